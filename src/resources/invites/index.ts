// The invites resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { inviteRecord } from "./record";
import { inviteRoutes } from "./routes";

export default {
  name: "invites",
  resource: RESOURCES.invites,
  eventRecords: { invite: inviteRecord.fields },
  routes: [inviteRoutes],
} satisfies ResourceModule;
