// Scopes (docs/api.md, "Least privilege"): what a key, an agent's key or a device-flow token may do, on top of its
// user's roles. Every operation needs one scope, derived here from its method and path alone, so the REST route, the
// OpenAPI document, a batch item and the MCP tool that stands for an operation all ask for the same one.

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

// A write's scope by the path's first segment (the resource it changes), from the register.
const WRITE_SCOPES: Record<string, Scope> = Object.fromEntries(
  REGISTERED.flatMap((r): Array<[string, Scope]> => (r.scope ? [[r.name, r.scope]] : [])),
);

// The scopes that also allow a write under a path's first segment (Resource.scopeAlso).
const WRITE_ALSO: Record<string, readonly Scope[]> = Object.fromEntries(
  REGISTERED.flatMap((r): Array<[string, readonly Scope[]]> => (r.scopeAlso ? [[r.name, r.scopeAlso]] : [])),
);

type ReadsOf<R> = R extends { reads: readonly (infer N)[] } ? N : never;
/** What the scope `read` reads: every resource a GET names (a path's first segment, or a nested list's: `/teams/{id}/members`). */
export type Readable = ReadsOf<(typeof RESOURCES)[ResourceName]>;
export const READABLE = REGISTERED.flatMap((r) => r.reads ?? []) as [Readable, ...Readable[]];

/**
 * What a `<records>:write` scope reads besides (as GitHub's fine-grained tokens): its records, and for comments the
 * records they are on. `read` reads everything; `import` and `export` read nothing more.
 */
const WRITE_READS: Partial<Record<Scope, readonly Readable[]>> = {};
for (const r of REGISTERED) {
  if (!r.scope?.endsWith(":write")) continue;
  const reads = [...(r.reads ?? []), ...(r.scopeAlsoReads ?? [])] as Readable[];
  WRITE_READS[r.scope] = [...new Set([...(WRITE_READS[r.scope] ?? []), ...reads])];
}

/** The resources `scopes` read (null: every scope), sorted: what GET /me and GET /api-keys show as `reads`. */
export function readsOf(scopes: readonly Scope[] | null): Readable[] {
  if (scopes === null || scopes.includes("read")) return [...READABLE].sort();
  return [...new Set(scopes.flatMap((scope) => WRITE_READS[scope] ?? []))].sort();
}

/** The scopes that read `resource`, besides `read`. */
const readersOf = (resource: string): Scope[] => SCOPES.filter((scope) => WRITE_READS[scope]?.includes(resource as Readable));

// Operations any live credential may call whatever its scopes: who am I (with my scopes), approving a device (its token
// never gets more than the approver's credential has), and MCP (each tool asks for its operation's scope).
const UNSCOPED = new Set(["GET /me", "POST /auth/device/approve", "POST /mcp"]);

/**
 * The scope an operation needs: `method` and its path (a template such as `/tasks/{id}` or `/tasks/:id`, or a concrete
 * path). Null: no scope (public routes are never asked). Throws for a write to a resource this table does not know,
 * so a new one cannot go out unscoped.
 */
export function scopeOf(method: string, path: string): Scope | null {
  const verb = method.toUpperCase();
  const segments = path.split("?")[0].split("/").filter(Boolean);
  if (UNSCOPED.has(`${verb} /${segments.join("/")}`)) return null;
  const last = segments.at(-1);
  if (verb === "GET" || verb === "HEAD") return last === "export" ? "export" : "read";
  if (segments[0] === "batch") return "read";
  if (last === "import") return "import";
  // A comment written under its task, project or milestone (`/projects/{id}/comments`).
  if (segments.length > 1 && last === "comments") return "comments:write";
  const scope = WRITE_SCOPES[segments[0] ?? ""];
  if (!scope) throw new Error(`No scope is declared for ${verb} ${path} (src/core/scopes.ts)`);
  return scope;
}

/** RFC 8628 / RFC 6749 `scope`: space-separated names. Unknown names are returned apart so the caller can refuse them. */
export function parseScopeString(value: string): { scopes: Scope[]; unknown: string[] } {
  const names = [...new Set(value.split(/\s+/).filter(Boolean))];
  return { scopes: names.filter(isScope), unknown: names.filter((name) => !isScope(name)) };
}

/**
 * The scopes any one of which lets a credential call the operation (null: none needed); the first is the one it names
 * (scopeOf, the 403's `details.requiredScope`). A read is also allowed by the write scopes that read its resource
 * (`GET /tasks/{id}/comments` reads comments; `/tasks/{id}/history` the task).
 */
export function acceptedScopes(method: string, path: string): Scope[] | null {
  const scope = scopeOf(method, path);
  const segments = path.split("?")[0].split("/").filter(Boolean);
  if (scope === null) return null;
  if (scope !== "read" || !["GET", "HEAD"].includes(method.toUpperCase())) {
    const also = segments.length <= 2 && scope === WRITE_SCOPES[segments[0]] ? (WRITE_ALSO[segments[0]] ?? []) : [];
    return [scope, ...also];
  }
  // A record's history or content reads the record.
  const resource = segments.length >= 3 && !["history", "content"].includes(segments[2]) ? segments[2] : (segments[0] ?? "");
  return [scope, ...readersOf(resource)];
}
