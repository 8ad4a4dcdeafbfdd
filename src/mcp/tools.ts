// The MCP tools: each module's (src/resources/<name>/index.ts, `tools`), in the order agents read them, each given the
// scope of the REST operation it stands for, as its route declares it.
import type { Scope } from "../core/scopes";
import { moduleRoutes, type ResourceModule } from "../http/module";
import { declaredRoutes, routeScopes } from "../http/policy";
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

/**
 * `specs` in tools/list's order: those that name no tool to follow in the modules' order, each followed by the tools
 * that name it (a chain: `get_task`, then `list_tasks` after it, …). Naming a tool no module has is an error.
 */
function inOrder(specs: readonly ToolSpec[]): ToolSpec[] {
  const placed = specs.filter((spec) => spec.after === undefined);
  let pending = specs.filter((spec) => spec.after !== undefined);
  while (pending.length) {
    const waiting = pending.filter((spec) => !placed.some((p) => p.name === spec.after));
    if (waiting.length === pending.length)
      throw new Error(`Tools placed after no tool of the modules: ${waiting.map((s) => s.name).join(", ")}`);
    for (const spec of pending.filter((s) => !waiting.includes(s)))
      placed.splice(placed.findIndex((p) => p.name === spec.after) + 1, 0, spec);
    pending = waiting;
  }
  return placed;
}

/**
 * The tools of an app serving `modules`, each with its REST operation's scopes (the route its module declares). A tool
 * standing for no route of theirs is an error, not a tool nobody may call.
 */
export function toolsOf(modules: readonly ResourceModule[]): Tool[] {
  const routeAt = declaredRoutes(modules.flatMap((m) => moduleRoutes(m).flatMap((router) => router.routes)));
  return inOrder(modules.flatMap((m) => m.tools ?? [])).map((spec) => {
    const [method, path] = spec.rest.split(" ");
    const route = routeAt(method, path);
    if (!route) throw new Error(`The tool ${spec.name} stands for ${spec.rest}, which no module's route declares`);
    const scopes = routeScopes(route);
    return { ...spec, scope: scopes?.[0] ?? null, scopes, readOnly: method === "GET", destructive: method === "DELETE" };
  });
}

/** The service's tools (its own modules'). */
export const TOOLS: Tool[] = toolsOf(MODULES);
