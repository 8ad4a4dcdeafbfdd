// The agents resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { workspaceUserRecord } from "../users/record";
import { agentRoutes } from "./routes";

export default {
  name: "agents",
  resource: RESOURCES.agents,
  eventRecords: { agent: workspaceUserRecord.fields },
  routes: [agentRoutes],
} satisfies ResourceModule;
