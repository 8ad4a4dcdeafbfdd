// The invites resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import { inviteRecord } from "./record";
import register from "./register";
import { inviteRoutes } from "./routes";

export default {
  name: "invites",
  resource: register,
  eventRecords: { invite: inviteRecord.fields },
  routes: [inviteRoutes],
} satisfies ResourceModule;
