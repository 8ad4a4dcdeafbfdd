// The team-members resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { teamMemberRecord } from "./record";
import { teamMemberRoutes } from "./routes";

export default {
  name: "team-members",
  resource: RESOURCES["team-members"],
  eventRecords: { team_member: teamMemberRecord.fields },
  routes: [teamMemberRoutes],
} satisfies ResourceModule;
