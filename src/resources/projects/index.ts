// The projects resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { projectRoutes } from "./routes";

export default { name: "projects", resource: RESOURCES.projects, routes: [projectRoutes] } satisfies ResourceModule;
