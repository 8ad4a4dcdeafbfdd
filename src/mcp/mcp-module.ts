// MCP as a module of the app (src/http/module.ts): `POST /mcp` offers the tools of the modules it is built with.
import { RESOURCES } from "../core/resources";
import type { ResourceModule } from "../http/module";
import { MODULES } from "../resources";
import { mcpRoutes } from "./routes";
import { serviceTools, toolsOf } from "./tools";

/** The MCP module of an app serving `modules`. */
export const mcpModule = (modules: readonly ResourceModule[]): ResourceModule => ({
  name: "mcp",
  resource: RESOURCES.mcp,
  routes: [mcpRoutes(modules === MODULES ? serviceTools : () => toolsOf(modules))],
});
