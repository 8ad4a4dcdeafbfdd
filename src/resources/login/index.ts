// The login resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { loginRoutes } from "./routes";

export default { name: "login", resource: RESOURCES.login, routes: [loginRoutes] } satisfies ResourceModule;
