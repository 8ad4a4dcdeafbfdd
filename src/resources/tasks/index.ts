// The tasks resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { taskRoutes } from "./routes";

export default { name: "tasks", resource: RESOURCES.tasks, routes: [taskRoutes] } satisfies ResourceModule;
