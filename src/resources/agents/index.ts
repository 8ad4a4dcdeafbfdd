// The agents resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import { workspaceUserRecord } from "../users/record";
import register from "./register";
import { agentRoutes } from "./routes";

export default {
  name: "agents",
  resource: register,
  eventRecords: { agent: workspaceUserRecord.fields },
  routes: [agentRoutes],
} satisfies ResourceModule;
