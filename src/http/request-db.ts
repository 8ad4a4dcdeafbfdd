import { createMiddleware } from "hono/factory";
import { setMetric, timing } from "hono/timing";
import { RequestDb } from "../db/client";
import type { AppEnv } from "./context";

// `total;dur=<ms>` (no description), after the request's own metrics.
const serverTiming = timing({ totalDescription: "" });

/**
 * Opens the request's database handle lazily, reports round trips in Server-Timing (hono/timing:
 * `db;dur=<ms>;desc="<n> queries"`, `tx;desc="<n> transactions"`, `total;dur=<ms>`), and closes the pool (after
 * any deferred work) once the response has gone out.
 */
export const requestDb = createMiddleware<AppEnv>((c, next) =>
  serverTiming(c, async () => {
    const rdb = new RequestDb(c.env);
    c.set("rdb", rdb);
    try {
      await next();
    } finally {
      const { queries, transactions, ms } = rdb.stats;
      setMetric(c, "db", ms, `${queries} queries`);
      setMetric(c, "tx", `${transactions} transactions`);
      c.executionCtx.waitUntil(rdb.close());
    }
  }),
);
