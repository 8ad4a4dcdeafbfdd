// The MCP tools: each module's (src/resources/<name>/index.ts, `tools`), in the order agents read them, each given the
// scope of the REST operation it stands for, as its route declares it.
import type { Scope } from "../core/scopes";
import { moduleRoutes, type ResourceModule } from "../http/module";
import { declaredRoutes, routeScopes } from "../http/policy";
import { newRouter } from "../http/router";
import type { ToolSpec } from "../http/tool";
import { MODULES } from "../resources";

export type { ToolContext } from "../http/tool";

/** A tool as MCP offers it: its declaration with the scopes of its REST operation's route. */
export interface Tool extends ToolSpec {
  /** The scope the REST operation names (a 403's `details.requiredScope`). */
  scope: Scope | null;
  /** The scopes any one of which the REST operation needs (a write scope also reads its records). */
  scopes: readonly Scope[] | null;
  /** A GET: the tool changes nothing. */
  readOnly: boolean;
  /** A DELETE: what it removes is gone. */
  destructive: boolean;
}

/** `specs` in tools/list's order: by rank, those without one last; ties keep the modules' order (the sort is stable). */
const rankOf = (spec: ToolSpec) => spec.rank ?? Number.MAX_SAFE_INTEGER;
const inOrder = (specs: readonly ToolSpec[]): ToolSpec[] => [...specs].sort((a, b) => rankOf(a) - rankOf(b));

/**
 * The tools of an app serving `modules`, each with its REST operation's scopes (the route its module declares). A tool
 * standing for no route of theirs is an error, not a tool nobody may call.
 */
export function toolsOf(modules: readonly ResourceModule[]): Tool[] {
  // Only what the routes of the modules with tools declare is read here: those made per app are made again over a bare
  // router, never served (the others are not made twice).
  const withTools = modules.filter((m) => m.tools);
  const routeAt = declaredRoutes(withTools.flatMap((m) => moduleRoutes(m, newRouter(), modules).flatMap((router) => router.routes)));
  const specs = modules.flatMap((m) => (typeof m.tools === "function" ? m.tools(modules) : (m.tools ?? [])));
  return inOrder(specs).map((spec) => {
    const [method, path] = spec.rest.split(" ");
    const route = routeAt(method, path);
    if (!route) throw new Error(`The tool ${spec.name} stands for ${spec.rest}, which no module's route declares`);
    const scopes = routeScopes(route);
    return { ...spec, scope: scopes?.[0] ?? null, scopes, readOnly: method === "GET", destructive: method === "DELETE" };
  });
}

let service: Tool[] | undefined;
/**
 * The service's tools (its own modules'), made on the first MCP request rather than at the Worker's start: making them
 * builds the routes of the modules with tools again, which a request that is not MCP never needs.
 */
export const serviceTools = (): Tool[] => (service ??= toolsOf(MODULES));
