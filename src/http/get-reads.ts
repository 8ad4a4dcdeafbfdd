// Every JSON GET's read as a function that its REST route and a batch item both call: `getRoute` registers the route
// (same OpenAPI definition, validation and middleware) and records its read by path template, so a batch item finds it
// without a request through the app.
import type { OpenAPIHono, RouteConfig, z } from "@hono/zod-openapi";
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

/** Registers `route` on `router`, answering 200 with `read`'s body, and records the read for the batch. */
export function getRoute<R extends RouteConfig, H extends OpenAPIHono<AppEnv>>(router: H, route: R, read: GetRead): H {
  const request = route.request;
  register.set(route.path, { template: route.path, params: request?.params as z.ZodType, query: request?.query as z.ZodType, read });
  // The route's validators ran before the handler: its inputs are the valid ones.
  const valid = (c: { req: { valid: (target: never) => unknown } }, target: string) =>
    (c.req.valid(target as never) ?? {}) as Record<string, never>;
  router.openapi(route, (async (c: any) =>
    c.json(
      await read(c.get("caller"), {
        param: request?.params ? valid(c, "param") : {},
        query: request?.query ? valid(c, "query") : {},
        searchParams: new URL(c.req.url).searchParams,
      }),
      200,
    )) as never);
  return router;
}
