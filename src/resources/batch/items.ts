// One batch item: a call of its GET's read (src/http/read-route.ts) with the batch's caller and database handle, under
// the route's own rules: its query and path schemas (query first, as the route validates), the scope the item's GET
// needs, the order of checks (401/403 before an input refusal), and the one error mapper for a failure's slot. No
// request goes back through the app.
import type { z } from "@hono/zod-openapi";
import type { Caller } from "../../auth/caller";
import { ValidationError } from "../../core/errors";
import { scopeOf } from "../../core/scopes";
import type { Db } from "../../db/client";
import type { AppEnv } from "../../http/context";
import type { AppHandle } from "../../http/documented-routes";
import { errorAnswer } from "../../http/error-mapper";
import { type ReadRoute, readRoute } from "../../http/read-route";
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

/** What the batch's items run with: the app (its router and document), the batch's caller, database and bindings. */
export interface BatchContext {
  app: AppHandle;
  caller: Caller;
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

/** The GET route the app's router would run for `pathname` (its Hono path), if it has one. */
function routeOf(app: AppHandle, url: URL, env: AppEnv["Bindings"]): string | undefined {
  const [handlers] = app.router.match("GET", app.getPath(new Request(url), { env }));
  return handlers.find(([[, route]]) => route.method === "GET")?.[0][1].path;
}

/** Hono's reading of a path value: percent-decoded, or as sent when it does not decode. */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The path values of `pathname` under `template` (`/tasks/:id`). */
function pathValues(template: string, pathname: string): Record<string, string> {
  const names = template.split("/");
  const values = pathname.split("/");
  return Object.fromEntries(names.flatMap((name, i) => (name.startsWith(":") ? [[name.slice(1), decoded(values[i])]] : [])));
}

/** The query as the route's validator reads it: a repeated name gives its values as an array. */
function queryValues(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(name);
    query[name] = all.length === 1 ? all[0] : all;
  }
  return query;
}

function parsed<T>(schema: z.ZodType | undefined, value: T): T {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodErrors(result.error));
  return result.data as T;
}

/** The item's answer: the read's body, or the error its GET would answer, as its slot. */
async function call({ route, read }: ReadRoute, template: string, url: URL, batch: BatchContext, requestId: string) {
  const secured = Boolean(route.security?.length);
  // The item needs its own operation's scope (a read: `read`), as its GET would.
  const scope = scopeOf("GET", route.path);
  const caller = batch.caller.requiring(scope === null ? null : [scope]);
  try {
    const request = route.request;
    const query = parsed(request?.query, queryValues(url));
    const param = parsed(request?.params, pathValues(template, url.pathname));
    const body = await read({ caller, param, query, url, db: batch.db, env: batch.env });
    return { slot: body as Slot, provesCredential: secured && scope === scopeOf("POST", "/batch") };
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
  const template = path === "/batch" ? undefined : routeOf(batch.app, url, batch.env);
  if (!template) {
    return { slot: failed("BAD_REQUEST", `No GET route for ${url.pathname}`), provesCredential: false };
  }
  const found = readRoute(template);
  if (!found)
    return {
      slot: failed(
        "BAD_REQUEST",
        `GET ${url.pathname} is none of the reads a batch runs (the API's JSON answers: no pages, files or documents)`,
      ),
      provesCredential: false,
    };
  // The item's id names the batch and the slot, so a 500's requestId leads to both.
  return call(found, template, url, batch, `${batch.requestId}-${index}`);
}
