// The oauth resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { oauthRoutes } from "./routes";

export default { name: "oauth", resource: RESOURCES.oauth, routes: [oauthRoutes] } satisfies ResourceModule;
