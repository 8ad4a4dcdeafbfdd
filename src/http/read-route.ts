// A JSON GET's read as a function (docs/architecture.md, "One read per GET"): the route answers with it, and a batch
// item calls it with the batch's caller, database handle and the item's own query: no request goes back through the
// app. A GET whose answer is not one JSON body (a file's bytes, a page) registers none, and a batch refuses it.
import type { RouteConfig } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Caller } from "../auth/caller";
import type { Db } from "../db/client";
import { type ListParams, type ListSpec, listBody } from "../store/list";
import type { AppEnv } from "./context";
import { honoPath } from "./policy";

/** What a read gets: the validated path and query values, the URL's raw query (lists, filters), and where it runs. */
export interface ReadInput {
  /** The caller: undefined on a public route (no credential asked). */
  caller: Caller;
  param: Record<string, string>;
  query: Record<string, unknown>;
  url: URL;
  db: Db;
  env: AppEnv["Bindings"];
}

export type Read = (input: ReadInput) => Promise<object>;

/** A registered GET: its documented route (schemas, security) and its read. */
export interface ReadRoute {
  route: RouteConfig;
  read: Read;
}

// By the route's Hono path (`/tasks/:id`), the key the app's router answers a match with.
const READS = new Map<string, ReadRoute>();

/** The read registered for the route the app's router matched (its Hono path), if any. */
export const readRoute = (path: string): ReadRoute | undefined => READS.get(path);

/** The input of a read from the route's own request: what its validators accepted. */
const inputOf = (c: Context<AppEnv>): ReadInput => {
  const caller = (c as unknown as Context<AppEnv & { Variables: { caller: Caller } }>).get("caller");
  const valid = (target: string) => (c.req.valid as (target: string) => Record<string, unknown> | undefined).call(c.req, target);
  return {
    caller,
    param: (valid("param") ?? {}) as Record<string, string>,
    query: valid("query") ?? {},
    url: new URL(c.req.url),
    db: c.get("rdb").db,
    env: c.env,
  };
};

/**
 * The handler of a JSON GET that answers `read`'s body (200), and the read registered for batch items of the route.
 * `answer` (optional) turns the body into the route's response when it is more than JSON (an export streams its text).
 */
export function reading<R extends RouteConfig>(
  route: R,
  read: Read,
  answer?: (c: Context<AppEnv>, input: ReadInput) => Promise<unknown>,
): never {
  READS.set(honoPath(route.path), { route, read });
  const handler = async (c: Context<AppEnv>) => (answer ? answer(c, inputOf(c)) : c.json(await read(inputOf(c)), 200));
  // Typed to fit the route's documented answer, which `read` vouches for (the conformance tests check it).
  return handler as never;
}

/** The read of `/<records>/{id}` (`?fields=`): the resource's one-record read, as If-Match and the order of checks call it. */
export const byId =
  (read: (caller: Caller, id: string, fields?: string) => Promise<object>): Read =>
  ({ caller, param, query }) =>
    read(caller, param.id, query.fields as string | undefined);

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
