// The login resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import register from "./register";
import { loginRoutes } from "./routes";

export default { name: "login", resource: register, routes: [loginRoutes] } satisfies ResourceModule;
