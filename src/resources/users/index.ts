// The users resource as one module (src/http/module.ts): its register entry and its routes.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { userRoutes } from "./routes";

export default { name: "users", resource: RESOURCES.users, routes: [userRoutes] } satisfies ResourceModule;
