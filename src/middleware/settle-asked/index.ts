// The front Worker's question about a write the API Worker dropped (docs/edge.md): when its call failed (the binding
// threw, or workerd answered that the Worker restarted mid-request), it sends the same request again, without its body,
// with `x-pm-settle: 1` and the attempt it named the first time (`x-pm-attempt`). The write is not run again: the
// request is settled (src/http/settled-write.ts) and answered as the first would have been had it not been dropped (201 with
// the record, 503 "nothing was written", or 503 OUTCOME_UNKNOWN). The front Worker names every write's attempt and
// strips both headers from what callers send. The same rule is lent to routes that answer a lost write their own way
// (`settleWrite`: an MCP tool's).
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { AppError } from "../../core/errors";
import type { AppEnv } from "../../http/context";
import type { AppHandle } from "../../http/read-route";
import { settledAnswer, settledWrite } from "../../http/settled-write";

/** Request header: settle this request instead of running it. */
export const SETTLE = "x-pm-settle";
/** Request header: the request's attempt, named by the front Worker (src/middleware/event-context). */
export const ATTEMPT = "x-pm-attempt";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The attempt a caller named, when it is one (a UUID); else the request makes its own. */
export const namedAttempt = (value: string | undefined): string | undefined => (value && UUID.test(value) ? value : undefined);

export function settleAsked(app: AppHandle): MiddlewareHandler<AppEnv> {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set("settleWrite", (write) => settledWrite(app, c, write));
    if (c.req.header(SETTLE) !== "1" || c.req.method === "GET" || c.req.method === "HEAD") return next();
    if (!namedAttempt(c.req.header(ATTEMPT))) throw new AppError("BAD_REQUEST", `${SETTLE} needs the request's ${ATTEMPT} (a UUID)`);
    const outcome = await settledAnswer(app, c);
    if (!(outcome instanceof Response)) throw outcome;
    c.res = outcome;
  });
}
