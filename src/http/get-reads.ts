// Every JSON GET's read as a function that its REST route and a batch item both call: `getRoute` registers the route
// (same OpenAPI definition, validation and middleware) and records its read by path template, so a batch item finds it
// without a request through the app.
import type { RouteConfig, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Caller } from "../auth/caller";
import type { AppEnv } from "./context";

/** What a GET's read takes: its validated path parameters and query, and the raw query (lists parse it themselves). */
export interface ReadInput {
  param: Record<string, string>;
  query: Record<string, unknown>;
  searchParams: URLSearchParams;
}
export type GetRead = (caller: Caller, input: ReadInput) => Promise<object>;

/** A registered GET: its template, the route's own parameter schemas, and its read. */
export interface GetOperation {
  template: string;
  params: z.ZodType | undefined;
  query: z.ZodType | undefined;
  read: GetRead;
}

const register = new Map<string, GetOperation>();

/** The registered GET operation of `template` (`/teams/{id}/members`), if any. */
export const getOperation = (template: string) => register.get(template);

/**
 * The handler of `route`, a JSON GET answering 200 with `read`'s body; records the read for the batch. Used as
 * `.openapi(route, readHandler(route, read))`: same definition, validation and middleware as any route.
 */
export function readHandler<R extends RouteConfig>(route: R, read: GetRead): never {
  const request = route.request;
  register.set(route.path, { template: route.path, params: request?.params as z.ZodType, query: request?.query as z.ZodType, read });
  // The route's validators ran before the handler: its inputs are the valid ones.
  const handler = async (c: Context<AppEnv & { Variables: { caller: Caller } }>) => {
    const valid = (target: "param" | "query") => (c.req.valid as (t: string) => Record<string, never>)(target) ?? {};
    const input = {
      param: request?.params ? valid("param") : {},
      query: request?.query ? valid("query") : {},
      searchParams: new URL(c.req.url).searchParams,
    };
    return c.json(await read(c.get("caller"), input), 200);
  };
  return handler as never;
}
