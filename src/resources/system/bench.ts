import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { errorResponses, jsonResponse } from "../../http/openapi";
import { publicRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";

const Ok = z.object({ ok: z.literal(true) });

const ceiling = createRoute({
  ...publicRoute("System"),
  method: "get",
  operationId: "benchCeiling",
  path: "/_bench/ceiling",
  summary: "Benchmark reference (BENCH_ROUTES=true only): static JSON",
  description: "The fastest possible answer, no database: the ceiling `npm run bench` compares routes with.",
  responses: { 200: jsonResponse(Ok, "Static JSON") },
});

const floor = createRoute({
  ...publicRoute("System"),
  method: "get",
  operationId: "benchFloor",
  path: "/_bench/floor",
  summary: "Benchmark reference (BENCH_ROUTES=true only): `select 1`",
  description:
    "Runs `select 1` as a one-shot statement (the HTTP query; on the bench's WebSocket tables, a connection's opening and `select 1`): the floor `npm run bench` compares routes with.",
  responses: { 200: jsonResponse(Ok, "Connected"), ...errorResponses(["UNAVAILABLE"]) },
});

/** Reference routes for `npm run bench`, mounted only when BENCH_ROUTES=true (never in production). */
export const benchRoutes = newRouter()
  .openapi(ceiling, (c) => c.json({ ok: true as const }, 200))
  .openapi(floor, async (c) => {
    await c.get("rdb").db.execute(sql`select 1`);
    return c.json({ ok: true as const }, 200);
  });
