// The labels resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { labelRoutes } from "./routes";

export default { name: "labels", resource: RESOURCES.labels, routes: [labelRoutes] } satisfies ResourceModule;
