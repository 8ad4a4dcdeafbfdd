// The workspaces resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import { workspaceRecord } from "./record";
import register from "./register";
import { workspaceRoutes } from "./routes";

export default {
  name: "workspaces",
  resource: register,
  eventRecords: { workspace: workspaceRecord.fields },
  routes: [workspaceRoutes],
} satisfies ResourceModule;
