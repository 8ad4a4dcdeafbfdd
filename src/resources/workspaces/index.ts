// The workspaces resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { workspaceRoutes } from "./routes";

export default { name: "workspaces", resource: RESOURCES.workspaces, routes: [workspaceRoutes] } satisfies ResourceModule;
