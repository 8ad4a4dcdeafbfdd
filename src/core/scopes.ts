// Scopes (docs/api.md, "Least privilege"): what a key, an agent's key or a device-flow token may do, on top of its
// user's roles. Every operation needs one scope, derived here from its method and path alone, so the REST route, the
// OpenAPI document, a batch item and the MCP tool that stands for an operation all ask for the same one.

export const SCOPES = [
  "read",
  "tasks:write",
  "comments:write",
  "projects:write",
  "labels:write",
  "teams:write",
  "fields:write",
  "members:write",
  "keys:write",
  "webhooks:write",
  "import",
  "export",
] as const;
export type Scope = (typeof SCOPES)[number];

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

// A write's scope by the path's first segment (the resource it changes).
const WRITE_SCOPES: Record<string, Scope> = {
  tasks: "tasks:write",
  comments: "comments:write",
  projects: "projects:write",
  milestones: "projects:write",
  labels: "labels:write",
  teams: "teams:write",
  "team-members": "teams:write",
  fields: "fields:write",
  invites: "members:write",
  users: "members:write",
  agents: "members:write",
  workspaces: "members:write",
  "api-keys": "keys:write",
  // Revoking one's OAuth grants, like one's keys.
  oauth: "keys:write",
  webhooks: "webhooks:write",
  // An import sent in parts: opening, filling, committing and discarding it.
  imports: "import",
};

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
