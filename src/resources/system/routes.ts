import { createRoute, z } from "@hono/zod-openapi";
import { desc, eq, sql } from "drizzle-orm";
import { devMailbox, devWebhookRequests } from "../../../drizzle/schema";
import { publicJwks } from "../../auth/jwt";
import { AppError, notFound } from "../../core/errors";
import { errorResponses, jsonResponse } from "../../http/openapi";
import { reading } from "../../http/read-route";
import { publicRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { newId } from "../../ids";

const health = createRoute({
  method: "get",
  operationId: "getHealth",
  path: "/health",
  ...publicRoute("System"),
  summary: "Liveness check; `?deep=1` also pings the database",
  description: "Without `deep` the database is not touched; with it, an unreachable database is 503.",
  request: { query: z.object({ deep: z.enum(["0", "1", "true", "false"]).optional() }) },
  responses: {
    200: jsonResponse(z.object({ status: z.literal("ok") }), "Alive"),
    ...errorResponses(["UNAVAILABLE"], { validation: true }),
  },
});

const jwks = createRoute({
  method: "get",
  operationId: "getJwks",
  path: "/.well-known/jwks.json",
  ...publicRoute("Account"),
  summary: "Public keys that verify the JWTs this service issues",
  description: "A JSON Web Key Set (RFC 7517) of the ES256 keys that sign the device flow's access tokens.",
  responses: { 200: jsonResponse(z.object({ keys: z.array(z.record(z.string(), z.unknown())) }), "JWKS") },
});

const mailbox = createRoute({
  method: "get",
  operationId: "getDevMailbox",
  path: "/_dev/mailbox",
  ...publicRoute("System"),
  summary: "Development only (DEV_MAILBOX=true): mail delivered to an address, newest first",
  description: "Exists only where DEV_MAILBOX=true (local stacks and tests); at most 100 messages.",
  request: { query: z.object({ to: z.string().min(1).max(254) }) },
  responses: {
    200: jsonResponse(
      z.object({
        messages: z.array(
          z.object({ id: z.string(), to: z.string(), subject: z.string(), text: z.string(), html: z.string(), createdAt: z.string() }),
        ),
      }),
      "Messages",
    ),
    ...errorResponses(["NOT_FOUND", "UNAVAILABLE"], { validation: true }),
  },
});

const DevWebhookRequest = z.object({ id: z.string(), headers: z.record(z.string(), z.string()), body: z.string(), createdAt: z.string() });

const devReceive = createRoute({
  method: "post",
  operationId: "receiveDevWebhook",
  path: "/_dev/webhooks",
  ...publicRoute("System"),
  summary: "Development only (DEV_WEBHOOKS=true): a built-in webhook receiver",
  description:
    "Exists only where DEV_WEBHOOKS=true (local stacks and tests). Keeps the request's headers and body as received and answers 200; " +
    "point a webhook at `http://127.0.0.1:8787/_dev/webhooks` and read what it got with GET. Any body, kept as text.",
  responses: {
    200: jsonResponse(z.object({ id: z.string() }), "Kept"),
    ...errorResponses(["BAD_REQUEST", "NOT_FOUND", "UNAVAILABLE"]),
  },
});

const devReceived = createRoute({
  method: "get",
  operationId: "listDevWebhooks",
  path: "/_dev/webhooks",
  ...publicRoute("System"),
  summary: "Development only (DEV_WEBHOOKS=true): what the built-in receiver got, newest first",
  description: "Exists only where DEV_WEBHOOKS=true; at most 100 requests, with their headers and body as received.",
  responses: {
    200: jsonResponse(z.object({ requests: z.array(DevWebhookRequest) }), "Requests"),
    ...errorResponses(["NOT_FOUND", "UNAVAILABLE"]),
  },
});

export const systemRoutes = newRouter()
  .openapi(
    health,
    // `input.db` read only for a deep check: the plain one opens no database (src/http/read-route.ts).
    reading(health, async (input) => {
      if (input.query.deep === "1" || input.query.deep === "true") {
        try {
          await input.db.execute(sql`select 1`);
        } catch {
          throw new AppError("UNAVAILABLE", "The database is unavailable");
        }
      }
      return { status: "ok" as const };
    }),
  )
  .openapi(
    jwks,
    reading(jwks, ({ env }) => publicJwks(env)),
  )
  .openapi(
    mailbox,
    reading(mailbox, async ({ env, query, db }) => {
      if (env.DEV_MAILBOX !== "true") throw notFound("Route");
      const to = (query.to as string).trim().toLowerCase();
      const rows = await db
        .select()
        .from(devMailbox)
        .where(eq(devMailbox.to, to))
        .orderBy(desc(devMailbox.createdAt), desc(devMailbox.id))
        .limit(100);
      return {
        messages: rows.map((m) => ({
          id: m.id,
          to: m.to,
          subject: m.subject,
          text: m.text,
          html: m.html,
          createdAt: m.createdAt.toISOString(),
        })),
      };
    }),
  )
  .openapi(devReceive, async (c) => {
    if (c.env.DEV_WEBHOOKS !== "true") throw notFound("Route");
    const id = newId("rcvd");
    const headers = Object.fromEntries(c.req.raw.headers);
    await c
      .get("rdb")
      .db.insert(devWebhookRequests)
      .values({ id, headers, body: await c.req.text() });
    return c.json({ id }, 200);
  })
  .openapi(
    devReceived,
    reading(devReceived, async ({ env, db }) => {
      if (env.DEV_WEBHOOKS !== "true") throw notFound("Route");
      const rows = await db
        .select()
        .from(devWebhookRequests)
        .orderBy(desc(devWebhookRequests.createdAt), desc(devWebhookRequests.id))
        .limit(100);
      return { requests: rows.map((r) => ({ id: r.id, headers: r.headers, body: r.body, createdAt: r.createdAt.toISOString() })) };
    }),
  );
