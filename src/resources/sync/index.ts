// Sync as one module (src/http/module.ts): the snapshot a local copy starts from (docs/sync.md).
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { syncRoutes } from "./routes";

export default { name: "sync", resource: RESOURCES.sync, routes: [syncRoutes] } satisfies ResourceModule;
