// The system resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import { benchRoutes } from "./bench";
import register from "./register";
import { systemRoutes } from "./routes";

export default { name: "system", resource: register, routes: [systemRoutes, benchRoutes] } satisfies ResourceModule;
