// The comments resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { commentRoutes } from "./routes";

export default { name: "comments", resource: RESOURCES.comments, routes: [commentRoutes] } satisfies ResourceModule;
