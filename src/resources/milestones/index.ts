// The milestones resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { milestoneRoutes } from "./routes";

export default { name: "milestones", resource: RESOURCES.milestones, routes: [milestoneRoutes] } satisfies ResourceModule;
