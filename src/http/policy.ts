// What a route declares about itself beside its schemas (docs/architecture.md, "Adding a resource"): the kind and limit
// of its body, whether a POST takes Idempotency-Key, whether its answer gets an ETag, what its writes' events say in
// `via`. The app's middleware reads the policy of the route the router matched, never the URL's shape, so a new route
// gets another body limit, retry rule, ETag or `via` only by saying so.
import type { Context, Env, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { EventVia } from "../db/event-context";
import { withCaller } from "./caller";

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
}

const POLICY = Symbol("route policy");
type Declaring = MiddlewareHandler & { [POLICY]: RoutePolicy };

/** The route middleware that declares `policy`: it does nothing when run; the app's middleware finds it on the match. */
export const declaring = <E extends Env = Env>(policy: RoutePolicy): MiddlewareHandler<E> =>
  Object.assign((_c: Context<E>, next: () => Promise<void>) => next(), { [POLICY]: policy }) satisfies Declaring;

/** The policy a handler of a route declares, if it is the declaring middleware. */
export const declaredBy = (handler: unknown): RoutePolicy | undefined =>
  typeof handler === "function" ? (handler as Partial<Declaring>)[POLICY] : undefined;

/** The route the router matched: its method, its Hono path (`/tasks/:id`) and its policy (`{}` when it declares none). */
export interface MatchedRoute {
  method: string;
  path: string;
  policy: RoutePolicy;
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
    route = endpoint
      ? {
          method: endpoint.method,
          path: endpoint.path,
          policy: own.map((r) => declaredBy(r.handler)).find(Boolean) ?? {},
          secured: own.some((r) => r.handler === withCaller),
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

/** What each of `routes` (an app's) declares, by method and path, documented or Hono's (`{}`: the defaults). */
export function declaredPolicies(routes: ReadonlyArray<{ method: string; path: string; handler: unknown }>) {
  const policies = new Map<string, RoutePolicy>();
  for (const route of routes) {
    const policy = declaredBy(route.handler);
    if (policy) policies.set(`${route.method} ${route.path}`, policy);
  }
  return (method: string, path: string): RoutePolicy => policies.get(`${method.toUpperCase()} ${honoPath(path)}`) ?? {};
}
