// The batch as one module (src/http/module.ts): its route runs the built app's reads, so it is made per app.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { batchRoutes } from "./routes";

export default { name: "batch", resource: RESOURCES.batch, routes: (app) => [batchRoutes(app)] } satisfies ResourceModule;
