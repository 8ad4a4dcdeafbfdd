import type { Caller } from "../../auth/caller";
import { scopeOf } from "../../core/scopes";
import type { AppEnv } from "../../http/context";
import { type AppHandle, dispatchGet, documentedRoute, type Outer } from "../../http/dispatch";
import type { Readers } from "../../middleware/if-match";
import { itemPath } from "./paths";
import { directRead, readDirectly, readRegistered, registeredRead } from "./read";

type Slot = Record<string, unknown>;
/**
 * An item's slot and whether it proved what the batch itself needs of the caller's credential: live, with the scope
 * `read` (a 2xx of a route that requires a credential and that scope; an export, which needs `export`, proves no `read`).
 */
export interface Item {
  slot: Slot;
  provesCredential: boolean;
}

/** Whether the document says the GET route of `pathname` requires a credential (public ones, e.g. /health, do not). */
const secured = (app: AppHandle, pathname: string) => documentedRoute(app, "GET", pathname)?.secured === true;
/** Whether a 2xx of GET `pathname` proves the credential grants the batch's own scope. */
const provesRead = (app: AppHandle, pathname: string) => secured(app, pathname) && scopeOf("GET", pathname) === scopeOf("POST", "/batch");
const failed = (code: string, message: string, details?: unknown): Slot => ({
  error: details ? { code, message, details } : { code, message },
});

/** Whether the app has a GET route (not only middleware) for `request`, as its own dispatch would match it. */
function routed(app: AppHandle, request: Request, env: AppEnv["Bindings"]): boolean {
  const [handlers] = app.router.match("GET", app.getPath(request, { env }));
  return handlers.some(([[, route]]) => route.method === "GET");
}

/** A failed item's slot: its error, a 422's field messages in `details.errors`. */
function failureSlot(status: number, body: Slot): Slot {
  if (status === 422 && body.errors) {
    const fields = Object.entries(body.errors as Record<string, string[]>).map(([field, messages]) => `${field}: ${messages.join(", ")}`);
    return failed("VALIDATION_FAILED", `Invalid request: ${fields.join("; ")}`, { errors: body.errors });
  }
  return body;
}

/** An item's answer as its slot: the JSON body of a 2xx, the error of a failure. */
async function toSlot(res: Response, path: string): Promise<Slot> {
  if (!res.headers.get("content-type")?.startsWith("application/json")) {
    await res.body?.cancel();
    return failed("BAD_REQUEST", `GET ${path} answers ${res.status} without JSON; a batch carries JSON answers only`);
  }
  const body = (await res.json()) as Slot;
  return res.ok ? body : failureSlot(res.status, body);
}

/** What the batch's items run with: the app, the registered one-record reads, the outer request and its caller. */
export interface BatchContext {
  app: AppHandle;
  readers: Readers;
  outer: Outer;
  caller: Caller;
}

/**
 * Runs one item as its direct GET would, with the caller's credential and the outer request's database handle: a
 * one-record read as a call of the resource's read (./read.ts); any other GET (lists, nested paths, history, search,
 * exports…) still through the app. An item that is not a GET of this API is a BAD_REQUEST slot and never run.
 */
export async function runItem({ app, readers, outer, caller }: BatchContext, raw: string, index: number): Promise<Item> {
  const path = itemPath(raw);
  if (typeof path !== "string") return { slot: failed(path.code, path.message), provesCredential: false };
  const url = new URL(path, outer.url);
  if (path === "/batch" || !routed(app, new Request(url), outer.env)) {
    return { slot: failed("BAD_REQUEST", `No GET route for ${path.split("?")[0]}`), provesCredential: false };
  }
  // The item's id names the batch and the slot, so an item's log line (or a 500's requestId) leads to both.
  const requestId = `${outer.requestId}-${index}`;
  const direct = directRead(app, readers, url);
  if (direct) {
    const answer = await readDirectly(direct, caller, requestId);
    if (!answer.ok) return { slot: failureSlot(answer.status, answer.body as Slot), provesCredential: false };
    return { slot: answer.body, provesCredential: provesRead(app, url.pathname) };
  }
  const registered = registeredRead(app, url);
  if (registered) {
    const answer = await readRegistered(registered, caller, requestId);
    if (!answer.ok) return { slot: failureSlot(answer.status, answer.body as Slot), provesCredential: false };
    return { slot: answer.body, provesCredential: provesRead(app, url.pathname) };
  }
  const res = await dispatchGet(app, outer, path, requestId, { batchItem: true });
  return { slot: await toSlot(res, path), provesCredential: res.ok && provesRead(app, url.pathname) };
}
