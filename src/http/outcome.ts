// What a write answers when its database connection failed after a statement went out (docs/api.md, conventions;
// docs/security.md): the truth, settled on a connection of its own (src/db/outcome.ts), never a guess.
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
import { REGISTERED } from "../core/resources";
import { RequestDb } from "../db/client";
import { type SettledEvent, settle } from "../db/outcome";
import type { RecordReader } from "./answer";
import type { AppEnv } from "./context";
import { type AppHandle, documentedRoute } from "./documented-routes";
import { isLostConnection } from "./error-mapper";

export type Readers = Partial<Record<string, RecordReader<Caller>>>;

/**
 * Resources whose create (`POST /<name>`) and update (`PATCH /<name>/{id}`) answer `{<record>: …}` exactly as their read
 * does (test/outcome.test.ts compares them), and whose every change records its event. Others (an API key's or a
 * webhook's create shows a secret once; an agent's create makes a key) cannot be re-rendered: their settled commit is
 * OUTCOME_UNKNOWN, whose retry with the same Idempotency-Key replays the stored answer.
 */
const RENDERED_BY_READ = new Set(["tasks", "projects", "milestones", "comments", "labels", "teams", "fields"]);

const NOTHING_WRITTEN = "The database connection failed; nothing was written; retry shortly";
const UNKNOWN =
  "The database connection failed after the write was sent, and whether it was applied could not be checked; retry with " +
  "the same Idempotency-Key (its retry answers the write if it was applied, and applies it once if not)";
const ANSWER_LOST =
  "The write was applied but its answer was lost; retry with the same Idempotency-Key to get it (without one, a retry applies it again)";

const decodedOr = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/** The record write a route is (create, update or delete of a resource rendered by its read), or undefined. */
function recordWrite(app: AppHandle, readers: Readers, c: Context<AppEnv>) {
  const route = documentedRoute(app, c.req.method, c.req.path);
  const [, name, id, more] = (route?.path ?? "").split("/");
  const read = readers[name];
  const recordType = Object.keys(REGISTERED.find((r) => r.name === name)?.events ?? {})[0];
  if (!read || !recordType || !RENDERED_BY_READ.has(name) || more !== undefined) return undefined;
  const action = { POST: "created", PATCH: "updated", DELETE: "deleted" }[c.req.method];
  if (!action || (id === undefined) !== (action === "created")) return undefined;
  const raw = c.req.path.split("/")[2];
  return { name, read, type: `${recordType}.${action}`, id: id === undefined ? undefined : decodedOr(raw) };
}

/** The settled request's answer: the committed write's, or the error that says what is known. */
async function answerOf(app: AppHandle, readers: Readers, c: Context<AppEnv>, events: SettledEvent[] | null): Promise<Response | Error> {
  if (events === null) return new AppError("OUTCOME_UNKNOWN", UNKNOWN, { requestId: c.get("requestId") });
  const write = recordWrite(app, readers, c);
  if (!write) return new AppError("OUTCOME_UNKNOWN", events.length ? ANSWER_LOST : UNKNOWN, { requestId: c.get("requestId") });
  const event = events.find((e) => e.type === write.type);
  // A record write always records its event (a PATCH that changes nothing has none, and wrote nothing either).
  if (!event)
    return new AppError(events.length ? "OUTCOME_UNKNOWN" : "UNAVAILABLE", events.length ? ANSWER_LOST : NOTHING_WRITTEN, {
      requestId: c.get("requestId"),
    });
  if (c.req.method === "DELETE") return c.body(null, 204);
  // Read on a connection of its own: the request's may be the one that failed (or its transaction's).
  const rdb = new RequestDb(c.env);
  try {
    const credential = await readCredential(c.req, c.env);
    if (!credential) throw new Error("no credential");
    const body = await write.read(new Caller(credential, rdb, c.env, null), write.id ?? event.resourceId);
    if (c.req.method === "PATCH") return c.json(body, 200);
    c.header("Location", `/${write.name}/${event.resourceId}`);
    return c.json(body, 201);
  } catch (err) {
    console.error(`[${c.get("requestId")}] committed, but its read failed: ${err instanceof Error ? err.message : String(err)}`);
    return new AppError("OUTCOME_UNKNOWN", ANSWER_LOST, { requestId: c.get("requestId") });
  } finally {
    c.executionCtx.waitUntil(rdb.close());
  }
}

/** A request's settled answer, kept: a request may fail twice (its statement, then its transaction's rollback). */
const settled = new WeakMap<RequestDb, Promise<Response | Error>>();

/**
 * The request settled (once), and its answer: the committed write's, or the error that says what is known. Also what
 * the front Worker's re-ask gets (src/middleware/settle-asked): the same request, its attempt named by the front.
 */
export function settledAnswer(app: AppHandle, readers: Readers, c: Context<AppEnv>): Promise<Response | Error> {
  const rdb = c.get("rdb");
  const request = rdb.eventContext;
  if (!request) return Promise.resolve(new AppError("OUTCOME_UNKNOWN", UNKNOWN, { requestId: c.get("requestId") }));
  let answer = settled.get(rdb);
  if (!answer) {
    answer = settle(c.env, { attempt: request.attempt, requestId: request.requestId, startedAt: rdb.startedAt }).then((events) =>
      answerOf(app, readers, c, events),
    );
    settled.set(rdb, answer);
  }
  return answer.then((outcome) => (outcome instanceof Response ? outcome.clone() : outcome));
}

/** Wraps the app's error handler: a lost connection after a write went out is settled before it is answered. */
export function settlingOutcome(app: AppHandle, readers: Readers, onError: ErrorHandler<AppEnv>): ErrorHandler<AppEnv> {
  return async (err, c) => {
    const rdb = c.get("rdb");
    if (!rdb?.eventContext || !rdb.sent || !isLostConnection(err)) return onError(err, c);
    const outcome = await settledAnswer(app, readers, c);
    return outcome instanceof Response ? outcome : onError(outcome, c);
  };
}
