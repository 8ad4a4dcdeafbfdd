// The signup resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import register from "./register";
import { signupRoutes } from "./routes";

export default { name: "signup", resource: register, routes: [signupRoutes] } satisfies ResourceModule;
