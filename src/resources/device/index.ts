// The device resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { deviceRoutes } from "./routes";

export default { name: "device", resource: RESOURCES.device, routes: [deviceRoutes] } satisfies ResourceModule;
