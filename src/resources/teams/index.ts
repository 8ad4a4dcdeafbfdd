// The teams resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { teamRoutes } from "./routes";

export default { name: "teams", resource: RESOURCES.teams, routes: [teamRoutes] } satisfies ResourceModule;
