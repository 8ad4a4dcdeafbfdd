// A JSON GET's read as a function (docs/architecture.md, "One read per GET"): the route answers with it, and a batch
// item, If-Match and the order of checks call it (with their own caller and database handle): no request goes back
// through the app. It is registered once, with its route: the handler `reading` makes carries it, and the app's reads
// are found on its routes. A GET whose answer is not one JSON body (a file's bytes, a page) has none, and a batch
// refuses it.
import type { OpenAPIHono, RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Caller } from "../auth/caller";
import type { Db } from "../db/client";
import { type FieldSelection, type FieldShape, type ListParams, type ListSpec, listBody, parseFields, projectFields } from "../store/list";
import type { AppEnv } from "./context";

/** What a read gets: the validated path and query values, the URL's raw query (lists, filters), and where it runs. */
export interface ReadInput {
  /** The caller: undefined on a public route (no credential asked). */
  caller: Caller;
  param: Record<string, string>;
  query: Record<string, unknown>;
  url: URL;
  db: Db;
  env: AppEnv["Bindings"];
  /** Keeps the request alive, after its answer, for work others wait on (a waiting read's poll); absent in a batch item. */
  keepAlive?: (work: Promise<unknown>) => void;
}

export type Read = (input: ReadInput) => Promise<object>;

/** A registered GET: its documented route (schemas, security) and its read. */
export interface ReadRoute {
  route: RouteConfig;
  read: Read;
}

const READ = Symbol("read");

/** The built app, as what runs over it needs it (passed in by app.ts: nothing below it imports the app). */
export type AppHandle = Pick<OpenAPIHono<AppEnv>, "router" | "getPath" | "routes">;

/** The input of a read from the route's own request: what its validators accepted. */
const inputOf = (c: Context<AppEnv>): ReadInput => {
  const caller = (c as unknown as Context<AppEnv & { Variables: { caller: Caller } }>).get("caller");
  const valid = (target: string) => (c.req.valid as (target: string) => Record<string, unknown> | undefined).call(c.req, target);
  return {
    caller,
    param: (valid("param") ?? {}) as Record<string, string>,
    query: valid("query") ?? {},
    url: new URL(c.req.url),
    // Opened when the read asks for it: a read of no table (the health check, the keys) builds no database.
    get db() {
      return c.get("rdb").db;
    },
    env: c.env,
    keepAlive: (work) => c.executionCtx.waitUntil(work),
  };
};

/**
 * The handler of a JSON GET that answers `read`'s body (200), carrying its read for the batch, If-Match and the order
 * of checks. `answer` (optional) turns the body into the route's response when it is more than JSON (an export streams its text).
 */
export function reading<R extends RouteConfig>(
  route: R,
  read: Read,
  answer?: (c: Context<AppEnv>, input: ReadInput) => Promise<unknown>,
): never {
  const handler = async (c: Context<AppEnv>) => (answer ? answer(c, inputOf(c)) : c.json(await read(inputOf(c)), 200));
  // Typed to fit the route's documented answer, which `read` vouches for (the conformance tests check it).
  return Object.assign(handler, { [READ]: { route, read } satisfies ReadRoute }) as never;
}

const registries = new WeakMap<object, Map<string, ReadRoute>>();
/** The reads of `app`'s JSON GETs by Hono path (`/tasks/:id`), found once on its routes. */
export function readsOf(app: Pick<AppHandle, "routes">): Map<string, ReadRoute> {
  let reads = registries.get(app);
  if (!reads) {
    reads = new Map();
    for (const { method, path, handler } of app.routes) {
      const found = (handler as { [READ]?: ReadRoute })[READ];
      if (method === "GET" && found) reads.set(path, found);
    }
    registries.set(app, reads);
  }
  return reads;
}

/**
 * The read of `/<records>/{id}` (`?fields=`): `get`, the resource's read operation, answered under `key` and narrowed to
 * `fields`. If-Match and the order of checks read the record with it, so their ETag and their 404 are its GET's own.
 */
export const oneRecord =
  <K extends string, T>(key: K, shape: FieldShape, get: (caller: Caller, id: string, fields: FieldSelection | null) => Promise<T>): Read =>
  async ({ caller, param, query }) => {
    const selection = parseFields(query.fields as string | undefined, shape);
    return { [key]: projectFields(await get(caller, param.id, selection), selection) };
  };

/** The read of a list: the one list machinery's parameters from the URL's query, cursors bound to the caller. */
export const listing =
  <K extends string, T extends Record<string, unknown>>(
    spec: ListSpec,
    key: K,
    rows: (caller: Caller, params: ListParams, param: Record<string, string>) => Promise<T[]>,
  ): Read =>
  async ({ caller, url, param }) => {
    const params = await caller.listParams(spec, url.searchParams);
    return listBody(key, params, await rows(caller, params, param));
  };
