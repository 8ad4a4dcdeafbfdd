// The webhooks resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { webhookRoutes } from "./routes";

export default { name: "webhooks", resource: RESOURCES.webhooks, routes: [webhookRoutes] } satisfies ResourceModule;
