// Teams as one module (src/http/module.ts): the register entry, routes and MCP tools.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { listTool } from "../../http/tool";
import { listTeams } from "./operations";
import { teamRecord } from "./record";
import { teamRoutes } from "./routes";

export default {
  name: "teams",
  resource: RESOURCES.teams,
  eventRecords: { team: teamRecord.fields },
  routes: [teamRoutes],
  tools: [{ ...listTool("teams", teamRecord, listTeams), rank: 150 }],
} satisfies ResourceModule;
