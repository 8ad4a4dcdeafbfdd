// Teams as one module (src/http/module.ts): the register entry, routes and MCP tools.
import type { ResourceModule } from "../../http/module";
import { listTool } from "../../http/tool";
import { listTeams } from "./operations";
import { teamRecord } from "./record";
import register from "./register";
import { teamRoutes } from "./routes";

export default {
  name: "teams",
  resource: register,
  eventRecords: { team: teamRecord.fields },
  routes: [teamRoutes],
  tools: [{ ...listTool("teams", teamRecord, listTeams), rank: 150 }],
} satisfies ResourceModule;
