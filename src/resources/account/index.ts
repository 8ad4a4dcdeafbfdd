// The account resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import register from "./register";
import { accountRoutes } from "./routes";

export default { name: "account", resource: register, routes: [accountRoutes] } satisfies ResourceModule;
