import { sql } from "drizzle-orm";
import { Hono } from "hono";
import type { AppEnv } from "../../http/context";

/** Reference routes for `npm run bench`, mounted only when BENCH_ROUTES=true (never in production). */
export const benchRoutes = new Hono<AppEnv>()
  .get("/_bench/ceiling", (c) => c.json({ ok: true }))
  .get("/_bench/floor", async (c) => {
    await c.get("rdb").db.execute(sql`select 1`);
    return c.json({ ok: true });
  });
