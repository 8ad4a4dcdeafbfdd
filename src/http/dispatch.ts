// Running a GET through the app inside another request (a batch item), as the outer request's caller and on its
// database handle: the request it makes is the one a client would send.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { acceptedScopes, type Scope, scopeOf } from "../core/scopes";
import type { RequestDb } from "../db/client";
import type { AppEnv } from "./context";
import { inheritRequestDb } from "./request-db";

/** The built app requests run through (passed in by app.ts: nothing below it imports the app). */
export type AppHandle = Pick<OpenAPIHono<AppEnv>, "fetch" | "router" | "getPath" | "openAPIRegistry">;

/** The outer request's headers a dispatched GET gets: its credential, nothing else (no If-None-Match: a 304 has no body). */
const FORWARDED = ["svc-api-key", "authorization"];

/** What a dispatched GET takes from the request that dispatches it: where it runs, as whom, and on which database handle. */
export interface Outer {
  url: string;
  credential: Headers;
  requestId: string;
  rdb: RequestDb;
  env: AppEnv["Bindings"];
  ctx: Context["executionCtx"];
}

/** The outer request as its dispatched GETs see it. */
export function outerOf<E extends AppEnv>(c: Context<E>): Outer {
  const credential = new Headers();
  for (const name of FORWARDED) {
    const value = c.req.header(name);
    if (value) credential.set(name, value);
  }
  return { url: c.req.url, credential, requestId: c.get("requestId"), rdb: c.get("rdb"), env: c.env, ctx: c.executionCtx };
}

/** A GET of `path` through the app, as the outer request's caller and on its database handle. */
export async function dispatchGet(
  app: AppHandle,
  outer: Outer,
  path: string,
  requestId: string,
  { batchItem = false } = {},
): Promise<Response> {
  const headers = new Headers(outer.credential);
  headers.set("x-request-id", requestId);
  const request = new Request(new URL(path, outer.url), { headers });
  if (batchItem) batchItems.add(request);
  return app.fetch(inheritRequestDb(request, outer.rdb), outer.env, outer.ctx);
}

// A batch's items: each needs its operation's own scope (a read: `read`, the batch's), not a write scope that also reads
// its records, so an item's success proves the batch's scope and the batch needs no query of its own for it.
const batchItems = new WeakSet<Request>();

/** The scopes a request needs (core/scopes.ts): the named one for a batch item. */
export function requestScopes(request: Request, method: string, routePath: string): Scope[] | null {
  if (batchItems.has(request)) {
    const scope = scopeOf(method, routePath);
    return scope === null ? null : [scope];
  }
  return acceptedScopes(method, routePath);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

/** A documented operation: its method, its path template, and whether it requires a credential. */
export interface DocumentedRoute {
  method: string;
  path: string;
  pattern: RegExp;
  secured: boolean;
}

const documented = new WeakMap<AppHandle, DocumentedRoute[]>();
/** The app's documented operations (read once from its OpenAPI registry). */
export function documentedRoutes(app: AppHandle): DocumentedRoute[] {
  let routes = documented.get(app);
  if (!routes) {
    routes = app.openAPIRegistry.definitions.flatMap((d) =>
      d.type === "route"
        ? [
            {
              method: d.route.method.toUpperCase(),
              path: d.route.path,
              pattern: new RegExp(`^${escapeRegExp(d.route.path).replace(/\{[^}]+\}/g, "[^/]+")}$`),
              secured: Boolean(d.route.security?.length),
            },
          ]
        : [],
    );
    documented.set(app, routes);
  }
  return routes;
}

/** The documented operation `method` `pathname` is, if any. */
export const documentedRoute = (app: AppHandle, method: string, pathname: string) =>
  documentedRoutes(app).find((r) => r.method === method && r.pattern.test(pathname));
