// The account resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { accountRoutes } from "./routes";

export default { name: "account", resource: RESOURCES.account, routes: [accountRoutes] } satisfies ResourceModule;
