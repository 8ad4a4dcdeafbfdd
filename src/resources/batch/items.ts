// One batch item: a call of its GET's read (src/http/read-route.ts) with the batch's caller and database handle, under
// the route's own rules: its query and path schemas (query first, as the route validates), the scope the item's GET
// needs, the order of checks (401/403 before an input refusal), and the one error mapper for a failure's slot. No
// request goes back through the app.
import type { z } from "@hono/zod-openapi";
import { HonoRequest } from "hono/request";
import type { Caller } from "../../auth/caller";
import { ValidationError } from "../../core/errors";
import type { Scope } from "../../core/scopes";
import type { Db } from "../../db/client";
import type { AppEnv } from "../../http/context";
import { errorAnswer } from "../../http/error-mapper";
import { declaredIn, routeScopes } from "../../http/policy";
import { type AppHandle, type ReadRoute, readsOf } from "../../http/read-route";
import { zodErrors } from "../../http/validation";
import { isInputRefusal } from "../../middleware/order-of-checks";
import { itemPath } from "./paths";

type Slot = Record<string, unknown>;
/**
 * An item's slot and whether it proved what the batch itself needs of the caller's credential: live, with the scope
 * `read` (a success of a route that requires a credential and that scope; an export, which needs `export`, proves no `read`).
 */
export interface Item {
  slot: Slot;
  provesCredential: boolean;
}

/** What the batch's items run with: the app (its router and reads), the batch's caller, database and bindings. */
export interface BatchContext {
  app: AppHandle;
  caller: Caller;
  /** The scope the batch itself needs (its route's): an item that needed it and succeeded proved it. */
  scope: Scope | null;
  db: Db;
  env: AppEnv["Bindings"];
  /** The batch request's URL: an item's path is resolved against it. */
  url: string;
  requestId: string;
}

const failed = (code: string, message: string, details?: unknown): Slot => ({
  error: details ? { code, message, details } : { code, message },
});

/** A failed item's slot: its error, a 422's field messages in `details.errors`. */
function failureSlot(status: number, body: Slot): Slot {
  if (status === 422 && body.errors) {
    const fields = Object.entries(body.errors as Record<string, string[]>).map(([field, messages]) => `${field}: ${messages.join(", ")}`);
    return failed("VALIDATION_FAILED", `Invalid request: ${fields.join("; ")}`, { errors: body.errors });
  }
  return body;
}

/**
 * The GET route the app's router would run for `url` (its Hono path), with the request as that route's handlers would
 * read it: its path values and query (a repeated name gives its values as an array, as Hono's validator reads it).
 */
function routeOf(app: AppHandle, url: URL, env: AppEnv["Bindings"]) {
  const request = new Request(url);
  const path = app.getPath(request, { env });
  const match = app.router.match("GET", path);
  const index = match[0].findIndex(([[, route]]) => route.method === "GET");
  if (index < 0) return undefined;
  const req = new HonoRequest(request, path, match);
  req.routeIndex = index;
  const query = Object.fromEntries(Object.entries(req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
  return { template: match[0][index][0][1].path, param: req.param() as Record<string, string>, query };
}

function parsed<T>(schema: z.ZodType | undefined, value: T): T {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodErrors(result.error));
  return result.data as T;
}

/** The item's answer: the read's body, or the error its GET would answer, as its slot. */
async function call(
  { route, read }: ReadRoute,
  values: { param: Record<string, string>; query: Record<string, unknown> },
  url: URL,
  batch: BatchContext,
  requestId: string,
) {
  const secured = Boolean(route.security?.length);
  // The item needs its own operation's scope (a read: `read`), as its GET's route declares it.
  const scope = routeScopes({ method: "GET", path: route.path, ...declaredIn(route.middleware) })?.[0] ?? null;
  const caller = batch.caller.requiring(scope === null ? null : [scope]);
  try {
    const request = route.request;
    const query = parsed(request?.query, values.query);
    const param = parsed(request?.params, values.param);
    const body = await read({ caller, param, query, url, db: batch.db, env: batch.env });
    return { slot: body as Slot, provesCredential: secured && scope === batch.scope };
  } catch (err) {
    const refusal = secured && isInputRefusal(err) ? await caller.refusal() : null;
    const { status, body } = errorAnswer(refusal ?? err, requestId);
    return { slot: failureSlot(status, body as Slot), provesCredential: false };
  }
}

/** Runs one item as its direct GET would answer it. An item that is not a JSON GET of this API is a BAD_REQUEST slot, never run. */
export async function runItem(batch: BatchContext, raw: string, index: number): Promise<Item> {
  const path = itemPath(raw);
  if (typeof path !== "string") return { slot: failed(path.code, path.message), provesCredential: false };
  const url = new URL(path, batch.url);
  const matched = path === "/batch" ? undefined : routeOf(batch.app, url, batch.env);
  if (!matched) {
    return { slot: failed("BAD_REQUEST", `No GET route for ${url.pathname}`), provesCredential: false };
  }
  const found = readsOf(batch.app).get(matched.template);
  if (!found)
    return {
      slot: failed(
        "BAD_REQUEST",
        `GET ${url.pathname} is none of the reads a batch runs (the API's JSON answers: no pages, files or documents)`,
      ),
      provesCredential: false,
    };
  // The item's id names the batch and the slot, so a 500's requestId leads to both.
  return call(found, matched, url, batch, `${batch.requestId}-${index}`);
}
