// The events resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { eventRoutes } from "./routes";

export default { name: "events", resource: RESOURCES.events, routes: [eventRoutes] } satisfies ResourceModule;
