// Exports and imports as modules (src/http/module.ts): a whole document's (`transfer`) and one sent in parts
// (`imports`), two register entries whose routes share this folder.
import { RESOURCES } from "../../core/resources";
import type { ResourceModule } from "../../http/module";
import { transferRoutes } from "./routes";
import { importRoutes } from "./staged-routes";

export const transfer = { name: "transfer", resource: RESOURCES.transfer, routes: [transferRoutes] } satisfies ResourceModule;
export const imports = { name: "imports", resource: RESOURCES.imports, routes: [importRoutes] } satisfies ResourceModule;
