// What a route declares about itself beside its schemas (docs/architecture.md, "Adding a resource"): the kind and limit
// of its body, whether a POST takes Idempotency-Key, whether its answer gets an ETag, what its writes' events say in
// `via`, the scope it needs, whether it honours If-Match, how it is rate-limited and in which shape its errors go. The
// app's middleware reads the policy of the route the router matched, never the URL's shape, so a new route gets another
// body limit, retry rule, ETag, `via`, scope, precondition, limit or error shape only by saying so; what it does not say
// comes from the resource it belongs to (its register entry: the write scope, what its reads read, If-Match).
import type { Context, Env, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { Resource } from "../core/resources";
import { readersOf, type Scope } from "../core/scopes";
import type { EventVia } from "../db/event-context";

export interface RoutePolicy {
  /**
   * What its body is (default `json`): JSON (1 MiB, refused when it holds text the API cannot keep), an import
   * document (JSON, 32 MiB), raw bytes streamed to storage (`upload`: their own limit, no JSON checks, a repeat told
   * apart by their digest), or JSON-RPC (`rpc`: 1 MiB; its tools check their own arguments).
   */
  body?: "json" | "import" | "upload" | "rpc";
  /** Whether a POST takes Idempotency-Key (default: yes). Not MCP's: JSON-RPC has its own request ids, and may stream. */
  idempotent?: boolean;
  /** Whether its answer gets a weak ETag and answers If-None-Match (default: yes). An export is new each time, and streams. */
  etag?: boolean;
  /** What its writes' events say in `via` instead of the credential's kind (a sign-up's whatever came along). */
  via?: Extract<EventVia, "sign_up" | "import" | "mcp">;
  /**
   * The scope a credential needs to call it (a 403's `details.requiredScope`). Default: `read` for a GET, else its
   * resource's write scope; null: none (any live credential: who am I, approving a device, MCP, whose tools ask their own).
   */
  scope?: Scope | null;
  /** Scopes that also allow it: a write whose record needs one scope or another by what it hangs on (a comment's file). */
  alsoScopes?: readonly Scope[];
  /** What a GET reads, when not its resource's own records (a task's history reads the task): the write scopes that read it also allow it. */
  reads?: string;
  /**
   * Whether a PATCH or DELETE honours If-Match: checked against what the GET of the same path answers, under the lock
   * of its resource's row. Default: its resource's (the register's `conditional`).
   */
  conditional?: boolean;
  /** Its rate limit's key (default: the credential): the client IP (public sign-up, login, …), or a client registration's own hourly budget. */
  rateLimit?: "ip" | "registration";
  /** The shape of its error answers (default: the API's): an OAuth token endpoint's (RFC 6749 §5.2). */
  errors?: "oauth";
  /**
   * What a write whose connection was lost after it went out answers once it is settled as committed (src/http/settled-write.ts):
   * `record` when its answer is its resource's record exactly as the GET `/<resource>/{id}` reads it (201 with it and its
   * Location, 200 with it; a delete's 204) and its event names that record. Default: none can be rebuilt (a secret shown
   * once, a key made on the side): OUTCOME_UNKNOWN, whose retry with the same Idempotency-Key replays the stored answer.
   */
  settled?: "record";
  /**
   * How long its statements may take, in seconds (default: QUERY_TIMEOUT_MS's 5, src/db/client.ts): a write whose size
   * the caller decides, such as a team's rename of every reference it names. The server's bound stays a second shorter,
   * so a 503 still means nothing was written.
   */
  writeSeconds?: number;
}

/** What a route's resource says for it where its policy says nothing (src/core/resources.ts: the register's entry). */
export type RouteOwner = Pick<Resource, "scope" | "reads" | "conditional" | "table" | "events"> & { name: string };

const POLICY = Symbol("route policy");
const SECURES = Symbol("requires a credential");

/** Marks `middleware` as the one that requires a credential (withCaller): a route that runs it is `secured`. */
export const securing = <M extends MiddlewareHandler>(middleware: M): M => Object.assign(middleware, { [SECURES]: true });
const isSecuring = (handler: unknown) => typeof handler === "function" && (handler as { [SECURES]?: boolean })[SECURES] === true;
type Declaring = MiddlewareHandler & { [POLICY]: RoutePolicy };

/** The route middleware that declares `policy`: it does nothing when run; the app's middleware finds it on the match. */
export const declaring = <E extends Env = Env>(policy: RoutePolicy): MiddlewareHandler<E> =>
  Object.assign((_c: Context<E>, next: () => Promise<void>) => next(), { [POLICY]: policy }) satisfies Declaring;

// The resource each declaring middleware belongs to, set as the app mounts a resource's routes (`assignRoutes`).
const owners = new WeakMap<object, RouteOwner>();

/** Marks the declared routes among `routes` (a router's) as `owner`'s: what they do not declare comes from it. */
export function assignRoutes(owner: RouteOwner, routes: ReadonlyArray<{ handler: unknown }>) {
  for (const { handler } of routes) if (declaredBy(handler)) owners.set(handler as object, owner);
}

/** What the middleware of a route's config declares (a registered read's route): its policy and resource. */
export function declaredIn(middleware: unknown): Pick<MatchedRoute, "policy" | "owner"> {
  const declaring = [middleware].flat().find((handler) => declaredBy(handler));
  return { policy: declaredBy(declaring) ?? {}, owner: declaring ? owners.get(declaring as object) : undefined };
}

/** The policy a handler of a route declares, if it is the declaring middleware. */
export const declaredBy = (handler: unknown): RoutePolicy | undefined =>
  typeof handler === "function" ? (handler as Partial<Declaring>)[POLICY] : undefined;

/** The route the router matched: its method, its Hono path (`/tasks/:id`) and its policy (`{}` when it declares none). */
export interface MatchedRoute {
  method: string;
  path: string;
  policy: RoutePolicy;
  /** The resource it belongs to (none when it declares no policy). */
  owner?: RouteOwner;
  /** Whether it requires a credential (it runs withCaller). */
  secured: boolean;
  /** Its first handler's place among the request's matched handlers (where its path values are). */
  index: number;
}

const matched = new WeakMap<Context, MatchedRoute | null>();

/**
 * The route that answers the request (the first the router matched for its method; app-wide middleware is `ALL`), or
 * null when none does (a 404 or 405). Its handlers are its own middleware, validators and handler, one of them the
 * declaring middleware when it has a policy.
 */
export function matchedRoute(c: Context): MatchedRoute | null {
  let route = matched.get(c);
  if (route === undefined) {
    const routes = matchedRoutes(c);
    const index = routes.findIndex((r) => r.method !== "ALL");
    const endpoint = routes[index];
    const own = endpoint ? routes.filter((r) => r.method === endpoint.method && r.path === endpoint.path) : [];
    const declaring = own.find((r) => declaredBy(r.handler));
    route = endpoint
      ? {
          method: endpoint.method,
          path: endpoint.path,
          policy: declaredBy(declaring?.handler) ?? {},
          owner: declaring && owners.get(declaring.handler as object),
          secured: own.some((r) => isSecuring(r.handler)),
          index,
        }
      : null;
    matched.set(c, route);
  }
  return route;
}

/** The path values of the matched route (`{id: "ENG-1"}`), as its own handlers read them, wherever the request is. */
export function matchedParams(c: Context): Record<string, string> {
  const route = matchedRoute(c);
  if (!route) return {};
  const at = c.req.routeIndex;
  c.req.routeIndex = route.index;
  try {
    return c.req.param() as Record<string, string>;
  } finally {
    c.req.routeIndex = at;
  }
}

/** The policy of the matched route (`{}`: the defaults, also for a request no route answers). */
export const routePolicy = (c: Context): RoutePolicy => matchedRoute(c)?.policy ?? {};

/** The Hono path of a documented path (`/tasks/{id}` → `/tasks/:id`), as @hono/zod-openapi mounts it. */
export const honoPath = (path: string) => path.replaceAll(/\/{(.+?)}/g, "/:$1");

type AppRoute = { method: string; path: string; handler: unknown };

/** Each of `routes` (an app's) that declares a policy, as the router would match it, by method and path, documented or Hono's. */
export function declaredRoutes(routes: ReadonlyArray<AppRoute>) {
  const declared = new Map<string, Pick<MatchedRoute, "method" | "path" | "policy" | "owner" | "secured">>();
  const secured = new Set(routes.filter((r) => isSecuring(r.handler)).map((r) => `${r.method} ${r.path}`));
  for (const { method, path, handler } of routes) {
    const policy = declaredBy(handler);
    const key = `${method} ${path}`;
    if (policy) declared.set(key, { method, path, policy, owner: owners.get(handler as object), secured: secured.has(key) });
  }
  return (method: string, path: string) => declared.get(`${method.toUpperCase()} ${honoPath(path)}`);
}

/** What each of `routes` (an app's) declares, by method and path, documented or Hono's (`{}`: the defaults). */
export function declaredPolicies(routes: ReadonlyArray<AppRoute>) {
  const routeAt = declaredRoutes(routes);
  return (method: string, path: string): RoutePolicy => routeAt(method, path)?.policy ?? {};
}

const isRead = (method: string) => method === "GET" || method === "HEAD";

/**
 * The scopes any one of which lets a credential call `route` (null: none needed), the first the one it names (a 403's
 * `details.requiredScope`): its declared scope, else its resource's. A read is also allowed by the write scopes that
 * read its records (`GET /tasks/{id}/comments` reads comments). Throws for a write whose resource declares no scope,
 * so a new one cannot go out unscoped (the app checks every route as it is built).
 */
export function routeScopes(route: Pick<MatchedRoute, "method" | "path" | "policy" | "owner">): Scope[] | null {
  const { policy, owner } = route;
  const method = route.method.toUpperCase();
  const scope = policy.scope !== undefined ? policy.scope : isRead(method) ? "read" : owner?.scope;
  if (scope === null) return null;
  if (!scope) throw new Error(`No scope is declared for ${method} ${route.path} (its policy or its resource's register entry)`);
  if (isRead(method) && scope === "read") return [scope, ...readersOf(policy.reads ?? owner?.reads?.[0] ?? "")];
  return [scope, ...(policy.alsoScopes ?? [])];
}

/** The scopes the matched route needs (routeScopes), null when none or no route answers. */
export function matchedScopes(c: Context): Scope[] | null {
  const route = matchedRoute(c);
  return route ? routeScopes(route) : null;
}

/** Whether `route`, a PATCH or DELETE, honours If-Match (its policy, else its resource's), and the table whose row it locks. */
export function conditionalTable(route: Pick<MatchedRoute, "method" | "policy" | "owner">): string | undefined {
  if (route.method !== "PATCH" && route.method !== "DELETE") return undefined;
  return (route.policy.conditional ?? route.owner?.conditional) ? route.owner?.table : undefined;
}
