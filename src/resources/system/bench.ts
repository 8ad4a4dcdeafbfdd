import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import type { EmailMessage } from "../../core/email-messages";
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

const mail = createRoute({
  ...publicRoute("System"),
  method: "post",
  operationId: "benchMail",
  path: "/_bench/mail",
  summary: "Benchmark reference (BENCH_ROUTES=true only): notification mails straight to the email queue",
  description:
    "Sends `count` notification mails to the email queue, as a write's relay does, with no database: the email consumer's CPU per mail, which `npm run bench` counts apart from the API Worker's.",
  request: { query: z.object({ count: z.coerce.number().int().min(0).max(100) }) },
  responses: { 200: jsonResponse(Ok, "Queued") },
});

/** A mention's mail as the relay sends it (src/email/relay.ts), to an address no one reads. */
const benchMail = (i: number): EmailMessage => ({
  id: `mail_bench_${crypto.randomUUID()}`,
  to: `bench-${i}@example.com`,
  template: "notification",
  data: {
    type: "mentioned",
    actor: "Bench",
    reference: "BEN-1",
    title: "A task someone was mentioned in",
    url: "http://127.0.0.1:8787/tasks/BEN-1",
    comment: "@bench have a look",
  },
});

/** Reference routes for `npm run bench`, mounted only when BENCH_ROUTES=true (never in production). */
export const benchRoutes = newRouter()
  .openapi(ceiling, (c) => c.json({ ok: true as const }, 200))
  .openapi(floor, async (c) => {
    await c.get("rdb").db.execute(sql`select 1`);
    return c.json({ ok: true as const }, 200);
  })
  .openapi(mail, async (c) => {
    const { count } = c.req.valid("query");
    const messages = Array.from({ length: count }, (_, i) => ({ body: benchMail(i), contentType: "json" as const }));
    if (messages.length > 0) await c.env.EMAIL_QUEUE.sendBatch(messages);
    return c.json({ ok: true as const }, 200);
  });
