import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { setMetric, timing } from "hono/timing";
import { CONNECT_TIMEOUT_MS, RequestDb, type Tx } from "../db/client";
import { POSITION_HEADER } from "../db/position";
import type { AppEnv } from "./context";
import { routePolicy } from "./policy";

/** With the bench routes on, `x-bench-db-path: websocket` keeps the request off the HTTP query (scripts/bench.mjs). */
export const SOCKET_ONLY_HEADER = "x-bench-db-path";

// `total;dur=<ms>` (no description), after the request's own metrics.
const serverTiming = timing({ totalDescription: "" });

/**
 * Opens the request's database handle lazily, names a write's position (`PM-Position`), reports round trips in Server-Timing (hono/timing:
 * `db;dur=<ms>;desc="<n> queries"`, `tx;desc="<n> transactions"`, `total;dur=<ms>`), and closes the pool (after
 * any deferred work) once the response has gone out.
 */
export const requestDb = createMiddleware<AppEnv>((c, next) =>
  serverTiming(c, async () => {
    // The bench's WebSocket tables (docs/performance.md) send every statement over the WebSocket: bench routes only.
    const socketOnly = c.env.BENCH_ROUTES === "true" && c.req.header(SOCKET_ONLY_HEADER) === "websocket";
    const { writeSeconds } = routePolicy(c);
    const bounds = writeSeconds ? { connect: CONNECT_TIMEOUT_MS, query: writeSeconds * 1000 } : undefined;
    const rdb = new RequestDb(c.env, { http: !socketOnly, bounds });
    c.set("rdb", rdb);
    try {
      await next();
      // A successful write names its position (src/db/position.ts): what a read from anywhere may then wait for.
      if (rdb.position && c.req.method !== "GET" && c.req.method !== "HEAD" && c.res.ok) c.res.headers.set(POSITION_HEADER, rdb.position);
    } finally {
      const { queries, transactions, ms } = rdb.stats;
      setMetric(c, "db", ms, `${queries} queries`);
      setMetric(c, "tx", `${transactions} transactions`);
      c.executionCtx.waitUntil(rdb.close());
    }
  }),
);

class ErrorAnswer extends Error {}

/**
 * Runs `work`, which calls the rest of the request (the handler), with every query of the request in one transaction,
 * for a rule that must hold atomically with the handler's write (If-Match, Idempotency-Key). It commits when the
 * answer is a success; an error answer stands and rolls back whatever the transaction holds.
 */
export async function inRequestTransaction(c: Context<AppEnv>, work: (tx: Tx) => Promise<void>): Promise<void> {
  try {
    // Interactive (the WebSocket): the handler's statements run in it, each decided by the last.
    await c.get("rdb").inTransaction(async (tx) => {
      await work(tx);
      if (c.res.status >= 400) throw new ErrorAnswer();
    });
  } catch (err) {
    if (!(err instanceof ErrorAnswer)) throw err;
  }
}
