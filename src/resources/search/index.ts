// The search resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { searchRoutes } from "./routes";

export default { name: "search", resource: RESOURCES.search, routes: [searchRoutes] } satisfies ResourceModule;
