// The system resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { benchRoutes } from "./bench";
import { systemRoutes } from "./routes";

export default { name: "system", resource: RESOURCES.system, routes: [systemRoutes, benchRoutes] } satisfies ResourceModule;
