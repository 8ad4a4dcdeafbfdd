// The oauth resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import register from "./register";
import { oauthRoutes } from "./routes";

export default { name: "oauth", resource: register, routes: [oauthRoutes] } satisfies ResourceModule;
