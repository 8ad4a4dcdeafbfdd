// The device resource as one module (src/http/module.ts): its register entry and its routes.
import type { ResourceModule } from "../../http/module";
import register from "./register";
import { deviceRoutes } from "./routes";

export default { name: "device", resource: register, routes: [deviceRoutes] } satisfies ResourceModule;
