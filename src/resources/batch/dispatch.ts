import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { RequestDb } from "../../db/client";
import type { AppEnv } from "../../http/context";
import { inheritRequestDb } from "../../http/request-db";
import { itemPath } from "./paths";

/** The built app the items run through (passed in by app.ts: no import of it from here). */
export type BatchApp = Pick<OpenAPIHono<AppEnv>, "fetch" | "router" | "getPath" | "openAPIRegistry">;

/** The outer request's headers an item gets: its credential, nothing else (no If-None-Match: a 304 has no body to carry). */
const FORWARDED = ["svc-api-key", "authorization"];

/** What an item takes from the batch request: where it runs, as whom, and on which database handle. */
export interface Outer {
  url: string;
  credential: Headers;
  requestId: string;
  rdb: RequestDb;
  env: AppEnv["Bindings"];
  ctx: Context["executionCtx"];
}

/** The outer request as its items see it. */
export function outerOf<E extends AppEnv>(c: Context<E>): Outer {
  const credential = new Headers();
  for (const name of FORWARDED) {
    const value = c.req.header(name);
    if (value) credential.set(name, value);
  }
  return { url: c.req.url, credential, requestId: c.get("requestId"), rdb: c.get("rdb"), env: c.env, ctx: c.executionCtx };
}

type Slot = Record<string, unknown>;
/** An item's slot and whether it proved the caller's credential (a 2xx of a route that requires one). */
export interface Item {
  slot: Slot;
  provesCredential: boolean;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
const securedPaths = new WeakMap<BatchApp, RegExp[]>();
/** Whether the document says the GET route of `pathname` requires a credential (public ones, e.g. /health, do not). */
function secured(app: BatchApp, pathname: string): boolean {
  let paths = securedPaths.get(app);
  if (!paths) {
    paths = app.openAPIRegistry.definitions.flatMap((d) =>
      d.type === "route" && d.route.method === "get" && d.route.security?.length
        ? [new RegExp(`^${escapeRegExp(d.route.path).replace(/\{[^}]+\}/g, "[^/]+")}$`)]
        : [],
    );
    securedPaths.set(app, paths);
  }
  return paths.some((p) => p.test(pathname));
}
const failed = (code: string, message: string, details?: unknown): Slot => ({
  error: details ? { code, message, details } : { code, message },
});

/** Whether the app has a GET route (not only middleware) for `request`, as its own dispatch would match it. */
function routed(app: BatchApp, request: Request, env: AppEnv["Bindings"]): boolean {
  const [handlers] = app.router.match("GET", app.getPath(request, { env }));
  return handlers.some(([[, route]]) => route.method === "GET");
}

/** An item's answer as its slot: the JSON body of a 2xx, the error of a failure (a 422's field messages in `details.errors`). */
async function toSlot(res: Response, path: string): Promise<Slot> {
  if (!res.headers.get("content-type")?.startsWith("application/json")) {
    await res.body?.cancel();
    return failed("BAD_REQUEST", `GET ${path} answers ${res.status} without JSON; a batch carries JSON answers only`);
  }
  const body = (await res.json()) as Slot;
  if (res.ok) return body;
  if (res.status === 422 && body.errors) {
    const fields = Object.entries(body.errors as Record<string, string[]>).map(([field, messages]) => `${field}: ${messages.join(", ")}`);
    return failed("VALIDATION_FAILED", `Invalid request: ${fields.join("; ")}`, { errors: body.errors });
  }
  return body;
}

/**
 * Runs one item through the app as a direct GET with the caller's credential and the outer request's database
 * handle; an item that is not a GET of this API is a BAD_REQUEST slot and never dispatched.
 */
export async function dispatchItem(app: BatchApp, outer: Outer, raw: string, index: number): Promise<Item> {
  const path = itemPath(raw);
  if (typeof path !== "string") return { slot: failed(path.code, path.message), provesCredential: false };
  const url = new URL(path, outer.url);
  if (path === "/batch" || !routed(app, new Request(url), outer.env)) {
    return { slot: failed("BAD_REQUEST", `No GET route for ${path.split("?")[0]}`), provesCredential: false };
  }
  // The item's id names the batch and the slot, so an item's log line (or a 500's requestId) leads to both.
  const res = await dispatchGet(app, outer, path, `${outer.requestId}-${index}`);
  return { slot: await toSlot(res, path), provesCredential: res.ok && secured(app, url.pathname) };
}

/** A GET of `path` through the app, as the outer request's caller and on its database handle (inside its transaction, when one is open). */
export async function dispatchGet(app: BatchApp, outer: Outer, path: string, requestId: string): Promise<Response> {
  const headers = new Headers(outer.credential);
  headers.set("x-request-id", requestId);
  const request = new Request(new URL(path, outer.url), { headers });
  return app.fetch(inheritRequestDb(request, outer.rdb), outer.env, outer.ctx);
}
