// The team-members resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import { teamMemberRecord } from "./record";
import register from "./register";
import { teamMemberRoutes } from "./routes";

export default {
  name: "team-members",
  resource: register,
  eventRecords: { team_member: teamMemberRecord.fields },
  routes: [teamMemberRoutes],
} satisfies ResourceModule;
