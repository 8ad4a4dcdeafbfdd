// Sync as one module (src/http/module.ts): the snapshot a local copy starts from (docs/sync.md), its records rendered
// as their events' data with the field maps of the modules its app serves.
import { eventRenderingOf, type ResourceModule } from "../../http/module";
import register from "./register";
import { syncRoutes } from "./routes";

export default {
  name: "sync",
  resource: register,
  routes: (_app, modules) => [syncRoutes(eventRenderingOf(modules))],
} satisfies ResourceModule;
