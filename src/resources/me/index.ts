// The me resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { meRoutes } from "./routes";

export default { name: "me", resource: RESOURCES.me, routes: [meRoutes] } satisfies ResourceModule;
