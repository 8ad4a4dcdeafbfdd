// What a write answers when its database connection failed after a statement went out (docs/api.md, conventions;
// docs/security.md): the truth, settled on a connection of its own (src/db/settle.ts), never a guess.
// - It committed: the answer it would have had, rendered through the record's own read (201 with the record and its
//   Location, 200 with it, 204).
// - Nothing of it committed, and it is a write that always records its event: 503 UNAVAILABLE, "nothing was written".
// - Anything else (the database could not be reached to settle it, or a write that may commit without an event or
//   whose answer a read cannot give): 503 OUTCOME_UNKNOWN, retry with the same Idempotency-Key.
// A failure before any write went out is the error mapper's plain 503, as before. The error mapper renders all of them.
import type { Context, ErrorHandler } from "hono";
import { Caller } from "../auth/caller";
import { readCredential } from "../auth/credential";
import { AppError } from "../core/errors";
import { RequestDb } from "../db/client";
import { type SettledEvent, settle } from "../db/settle";
import type { AppEnv, SettledOutcome, SettledWrite } from "./context";
import { isLostConnection } from "./error-mapper";
import { declaredRoutes, matchedParams, matchedRoute } from "./policy";
import { type AppHandle, readsOf } from "./read-route";

const NOTHING_WRITTEN = "The database connection failed; nothing was written; retry shortly";
const UNKNOWN =
  "The database connection failed after the write was sent, and whether it was applied could not be checked; retry with " +
  "the same Idempotency-Key (its retry answers the write if it was applied, and applies it once if not)";
const ANSWER_LOST =
  "The write was applied but its answer was lost; retry with the same Idempotency-Key to get it (without one, a retry applies it again)";

/** The routes of `app` by what they declare, made once per app (a settled write is rare; the app's routes do not change). */
const declaredOf = new WeakMap<AppHandle, ReturnType<typeof declaredRoutes>>();
function declaredIn(app: AppHandle) {
  let routeAt = declaredOf.get(app);
  if (!routeAt) {
    routeAt = declaredRoutes(app.routes);
    declaredOf.set(app, routeAt);
  }
  return routeAt;
}

/** The record write an operation is (its route declares `settled: "record"`), with its resource's read and event type. */
function recordWrite(app: AppHandle, { method, route, id }: SettledWrite) {
  const declared = declaredIn(app)(method, route);
  if (declared?.policy.settled !== "record" || !declared.owner) return undefined;
  const { name, events } = declared.owner;
  const read = readsOf(app).get(`/${name}/:id`)?.read;
  const recordType = Object.keys(events ?? {})[0];
  const action = ({ POST: "created", PATCH: "updated", DELETE: "deleted" } as Record<string, string>)[method];
  if (!read || !recordType || !action) return undefined;
  return { name, read, type: `${recordType}.${action}`, id: action === "created" ? undefined : id };
}

/** The request's settled events (settled once: a request may fail twice, its statement then its transaction's rollback). */
const settledEvents = new WeakMap<RequestDb, Promise<SettledEvent[] | null>>();

/**
 * Whether a failure leaves a write of this request whose outcome is unknown: the connection was lost after a write's
 * statement went out. Anything else is answered as it is.
 */
export const mustSettle = (rdb: RequestDb | undefined, err: unknown): boolean =>
  Boolean(rdb?.eventContext && rdb.sent && isLostConnection(err));

/**
 * The one rule (REST's error handler, the front Worker's re-ask, an MCP tool): the request settled, and what `write`
 * answers: the committed write's answer, or the error that says what is known.
 */
export async function settledWrite(app: AppHandle, c: Context<AppEnv>, write: SettledWrite): Promise<SettledOutcome> {
  const rdb = c.get("rdb");
  const request = rdb.eventContext;
  const requestId = c.get("requestId");
  if (!request) return new AppError("OUTCOME_UNKNOWN", UNKNOWN, { requestId });
  let pending = settledEvents.get(rdb);
  if (!pending) {
    pending = settle(c.env, { attempt: request.attempt, requestId: request.requestId, startedAt: rdb.startedAt });
    settledEvents.set(rdb, pending);
  }
  const events = await pending;
  if (events === null) return new AppError("OUTCOME_UNKNOWN", UNKNOWN, { requestId });
  const record = recordWrite(app, write);
  if (!record) return new AppError("OUTCOME_UNKNOWN", events.length ? ANSWER_LOST : UNKNOWN, { requestId });
  const event = events.find((e) => e.type === record.type);
  // A record write always records its event (a PATCH that changes nothing has none, and wrote nothing either).
  if (!event)
    return new AppError(events.length ? "OUTCOME_UNKNOWN" : "UNAVAILABLE", events.length ? ANSWER_LOST : NOTHING_WRITTEN, { requestId });
  if (write.method === "DELETE") return { status: 204 };
  // Read on a connection of its own: the request's may be the one that failed (or its transaction's).
  const reader = new RequestDb(c.env);
  try {
    const credential = await readCredential(c.req, c.env);
    if (!credential) throw new Error("no credential");
    const caller = new Caller(credential, reader, c.env, null);
    const param = { id: record.id ?? event.resourceId };
    const body = (await record.read({ caller, param, query: {}, url: new URL(c.req.url), db: reader.db, env: c.env })) as Record<
      string,
      unknown
    >;
    return write.method === "PATCH" ? { status: 200, body } : { status: 201, body, location: `/${record.name}/${event.resourceId}` };
  } catch (err) {
    console.error(`[${requestId}] committed, but its read failed: ${err instanceof Error ? err.message : String(err)}`);
    return new AppError("OUTCOME_UNKNOWN", ANSWER_LOST, { requestId });
  } finally {
    c.executionCtx.waitUntil(reader.close());
  }
}

/**
 * The REST request settled, and its answer as a response (or the error to render). Also what the front Worker's re-ask
 * gets (src/middleware/settle-asked): the same request, its attempt named by the front.
 */
export async function settledAnswer(app: AppHandle, c: Context<AppEnv>): Promise<Response | Error> {
  const route = matchedRoute(c)?.path ?? "";
  const outcome = await settledWrite(app, c, { method: c.req.method, route, id: matchedParams(c).id });
  if (outcome instanceof Error) return outcome;
  if (outcome.status === 204) return c.body(null, 204);
  if (outcome.location) c.header("Location", outcome.location);
  return c.json(outcome.body, outcome.status);
}

/** Wraps the app's error handler: a lost connection after a write went out is settled before it is answered. */
export function settlingOutcome(app: AppHandle, onError: ErrorHandler<AppEnv>): ErrorHandler<AppEnv> {
  return async (err, c) => {
    if (!mustSettle(c.get("rdb"), err)) return onError(err, c);
    const outcome = await settledAnswer(app, c);
    return outcome instanceof Response ? outcome : onError(outcome, c);
  };
}
