// The signup resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { signupRoutes } from "./routes";

export default { name: "signup", resource: RESOURCES.signup, routes: [signupRoutes] } satisfies ResourceModule;
