import { createMiddleware } from "hono/factory";
import { RequestDb } from "../db/client";
import type { AppEnv } from "./context";

/**
 * Opens the request's database handle lazily, reports round trips in Server-Timing, and closes the pool
 * (after any deferred work) once the response has gone out.
 */
export const requestDb = createMiddleware<AppEnv>(async (c, next) => {
  const started = performance.now();
  const rdb = new RequestDb(c.env);
  c.set("rdb", rdb);
  try {
    await next();
  } finally {
    const { queries, transactions, ms } = rdb.stats;
    c.header(
      "Server-Timing",
      `db;dur=${ms.toFixed(1)};desc="${queries} queries", tx;desc="${transactions} transactions", total;dur=${(performance.now() - started).toFixed(1)}`,
    );
    c.executionCtx.waitUntil(rdb.close());
  }
});
