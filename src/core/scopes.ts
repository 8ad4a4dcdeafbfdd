// Scopes (docs/api.md, "Least privilege"): what a key, an agent's key or a device-flow token may do, on top of its
// user's roles. Every operation needs one scope, which its route declares or its resource's register entry gives
// (src/http/policy.ts, routeScopes), so the REST route, the OpenAPI document, a batch item and the MCP tool that stands
// for an operation all ask for the same one; here, what each scope reads.

import { REGISTERED, type RESOURCES, type ResourceName } from "./resources";
import { SCOPES, type Scope } from "./scope-names";

// The names themselves sit below the register (which states each resource's write scope with them).
export { SCOPES, type Scope } from "./scope-names";

/** What each scope allows, in words (the device approval page, the OpenAPI document). */
export const SCOPE_WORDS: Record<Scope, string> = {
  read: "read everything you can see",
  "tasks:write": "create, change and delete tasks",
  "comments:write": "write and delete comments",
  "projects:write": "create, change and delete projects and milestones",
  "labels:write": "create, change and delete labels",
  "teams:write": "create and change teams and their members",
  "fields:write": "define custom fields",
  "members:write": "invite people, change members and roles, create agents, change the workspace",
  "keys:write": "create and revoke your own API keys",
  "webhooks:write": "create, change and delete webhooks",
  import: "import teams and workspaces",
  export: "export tasks, projects, teams and workspaces",
};

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

type ReadsOf<R> = R extends { reads: readonly (infer N)[] } ? N : never;
/** What the scope `read` reads: every resource a GET names (a path's first segment, or a nested list's: `/teams/{id}/members`). */
export type Readable = ReadsOf<(typeof RESOURCES)[ResourceName]>;
export const READABLE = REGISTERED.flatMap((r) => r.reads ?? []) as [Readable, ...Readable[]];

/**
 * What a `<records>:write` scope reads besides (as GitHub's fine-grained tokens): its records and what they embed, and
 * for comments the records they are on. `read` reads everything; `import` and `export` read nothing more.
 */
const WRITE_READS: Partial<Record<Scope, readonly Readable[]>> = {};
/** What reading each record reads besides: what its answer embeds (its register entry's `embeds`). */
const EMBEDS = new Map(REGISTERED.flatMap((r) => (r.reads ?? []).map((name) => [name, r.embeds ?? []] as const)));
for (const r of REGISTERED) {
  if (!r.scope?.endsWith(":write")) continue;
  const read = [...(r.reads ?? []), ...(r.scopeAlsoReads ?? [])];
  const reads = read.flatMap((name) => [name, ...(EMBEDS.get(name) ?? [])]) as Readable[];
  WRITE_READS[r.scope] = [...new Set([...(WRITE_READS[r.scope] ?? []), ...reads])];
}

/** The resources `scopes` read (null: every scope), sorted: what GET /me and GET /api-keys show as `reads`. */
export function readsOf(scopes: readonly Scope[] | null): Readable[] {
  if (scopes === null || scopes.includes("read")) return [...READABLE].sort();
  return [...new Set(scopes.flatMap((scope) => WRITE_READS[scope] ?? []))].sort();
}

/** The scopes that read `resource` (a name of the register's `reads`), besides `read`. */
export const readersOf = (resource: string): Scope[] => SCOPES.filter((scope) => WRITE_READS[scope]?.includes(resource as Readable));

/** RFC 8628 / RFC 6749 `scope`: space-separated names. Unknown names are returned apart so the caller can refuse them. */
export function parseScopeString(value: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(value.split(/\s+/).filter(Boolean))];
  return { scopes: names.filter(isScope), unknown: names.filter((name) => !isScope(name)) };
}
