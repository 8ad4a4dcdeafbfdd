// The workspaces resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { workspaceRecord } from "./record";
import { workspaceRoutes } from "./routes";

export default {
  name: "workspaces",
  resource: RESOURCES.workspaces,
  eventRecords: { workspace: workspaceRecord.fields },
  routes: [workspaceRoutes],
} satisfies ResourceModule;
