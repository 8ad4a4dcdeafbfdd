// The me resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import register from "./register";
import { meRoutes } from "./routes";

export default { name: "me", resource: register, routes: [meRoutes] } satisfies ResourceModule;
