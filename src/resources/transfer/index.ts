// Exports and imports as modules (src/http/module.ts): a whole document's (`transfer`) and one sent in parts
// (`imports`), two register entries whose routes share this folder. Their routes are made from the modules the app
// serves: the collections hanging on tasks are the parts those declare (parts.ts).
import type { ResourceModule } from "../../http/module";
import { transferOf } from "./document";
import register, { imports as importsEntry } from "./register";
import { transferRoutes } from "./routes";
import { importRoutes } from "./staged-routes";

export const transfer = {
  name: "transfer",
  resource: register,
  routes: (_app, modules) => [transferRoutes(transferOf(modules))],
} satisfies ResourceModule;
export const imports = {
  name: "imports",
  resource: importsEntry,
  routes: (_app, modules) => [importRoutes(transferOf(modules))],
} satisfies ResourceModule;
