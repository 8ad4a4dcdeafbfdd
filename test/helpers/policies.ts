// What the served app's routes declare (src/http/policy.ts), for tests that compare against it: the scope an operation
// needs and the OAuth token endpoints.
import { app } from "../../src/app";
import { REGISTERED } from "../../src/core/resources";
import type { Scope } from "../../src/core/scopes";
import { declaredRoutes, routeScopes } from "../../src/http/policy";

const routeAt = declaredRoutes(app.routes);

/**
 * The scope `method` `path` needs (a template, `/tasks/{id}`): its route's. For a path no route serves (`POST
 * /attachments`), what a write to the resource its first segment names needs by its register entry (throws when it
 * declares none, as the app does for such a route).
 */
export function scopeOf(method: string, path: string): Scope | null {
  const route = routeAt(method, path);
  if (route) return routeScopes(route)?.[0] ?? null;
  const name = path.split("/")[1];
  const entry = REGISTERED.find((r) => r.name === name);
  return routeScopes({ method, path, policy: {}, owner: entry && { ...entry, name } })?.[0] ?? null;
}

/** The paths whose routes answer in OAuth's error shape (`errors: "oauth"`). */
export const OAUTH_TOKEN_PATHS: ReadonlySet<string> = new Set(
  app.routes.filter((r) => routeAt(r.method, r.path)?.policy.errors === "oauth").map((r) => r.path),
);
