// Users as one module (src/http/module.ts): the register entry, routes and MCP tools.
import type { ResourceModule } from "../../http/module";
import { listTool } from "../../http/tool";
import { listUsers } from "./operations";
import { workspaceUserRecord } from "./record";
import register from "./register";
import { userRoutes } from "./routes";

export default {
  name: "users",
  resource: register,
  eventRecords: { member: workspaceUserRecord.fields },
  routes: [userRoutes],
  tools: [
    {
      ...listTool("users", workspaceUserRecord, listUsers, ' Find one by name or email: filter {"contains": {"name": "ana"}}.'),
      rank: 140,
    },
  ],
} satisfies ResourceModule;
