// The batch as one module (src/http/module.ts): its route runs the built app's reads, so it is made per app.
import type { ResourceModule } from "../../http/module";
import register from "./register";
import { batchRoutes } from "./routes";

export default { name: "batch", resource: register, routes: (app) => [batchRoutes(app)] } satisfies ResourceModule;
