import { createMiddleware } from "hono/factory";
import { Caller, unauthorizedRequest } from "../auth/caller";
import { readCredential } from "../auth/credential";
import { badRequest } from "../core/errors";
import { MIN_POSITION_HEADER, positionKnown } from "../db/position";
import { typeIdTime } from "../ids";
import { EVENT_RETENTION_DAYS } from "../records/events";
import type { AppEnv } from "./context";
import { matchedScopes, securing } from "./policy";

/** What a protected route has: the caller (docs/architecture.md, "One auth idiom"). */
export type CallerEnv = AppEnv & { Variables: { caller: Caller } };

/**
 * Every protected route: reads `svc-api-key` or `Authorization: Bearer <JWT>` without a query (a request with neither,
 * or with a JWT that does not verify, is 401 at once) and sets `caller`, requiring the scope its route declares (src/http/policy.ts);
 * whether the credential is live and grants it is decided by the operation's own statement, or by loading the principal
 * when it needs one.
 */
export const withCaller = securing(
  createMiddleware<CallerEnv>(async (c, next) => {
    const credential = await readCredential(c.req, c.env);
    if (!credential) throw unauthorizedRequest(c.req);
    const caller = new Caller(credential, c.get("rdb"), c.env, matchedScopes(c));
    c.set("caller", caller);
    const position = c.req.method === "GET" ? c.req.header(MIN_POSITION_HEADER) : undefined;
    if (position === undefined) return next();
    // Asked beside the operation's own statement, so it adds no round trip; it decides only an answer that stands
    // (a refusal of the credential, the scope or the record comes first, as the order of checks says).
    const known = isRecentEvent(position) ? knownPosition(caller, position) : Promise.resolve(typeIdTime(position, "evt") !== null);
    await next();
    const answer = await known;
    if (c.res.status >= 400) return;
    if (answer instanceof Error) throw answer;
    if (!answer) throw unknownPosition(position);
  }),
);

/** An event id young enough to be kept: an older one is of the past whatever workspace made it, so any answer is newer. */
const isRecentEvent = (id: string) => (typeIdTime(id, "evt") ?? 0) >= Date.now() - EVENT_RETENTION_DAYS * 86_400_000;

/** Whether `id` is an event of the caller's workspace; an error (the database's) is kept for after the answer. */
async function knownPosition(caller: Caller, id: string): Promise<boolean | Error> {
  try {
    const { rows } = await caller.db.execute<{ known: boolean }>(positionKnown(caller.actor.workspace, id));
    return rows[0]?.known === true;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** Like `after=` naming no event of the workspace (GET /events): 400, naming the header. */
const unknownPosition = (value: string) =>
  badRequest(
    typeIdTime(value, "evt") === null
      ? `${MIN_POSITION_HEADER}: expected an event id (\`evt_…\`, a write's PM-Position), got '${value.slice(0, 64)}'`
      : `${MIN_POSITION_HEADER}: no event ${value} in this workspace`,
    { header: MIN_POSITION_HEADER },
  );
