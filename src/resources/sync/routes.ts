import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../http/openapi";
import { protectedRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import type { EventRendering } from "../../records/events";
import { SNAPSHOT_TYPES, snapshotStream } from "./snapshot";

const snapshot = createRoute({
  // Each snapshot is new and streams: no ETag (hashing it would hold all of it).
  ...protectedRoute("Events", { etag: false }),
  method: "get",
  operationId: "syncSnapshot",
  path: "/sync/snapshot",
  summary: "The records the caller reads, at one position of the event stream",
  description:
    'NDJSON, from one consistent read: one `{"type": …, "record": {…}}` a line (each record as its events\' `data` ' +
    'renders it: the record\'s own fields, embedded objects left out, their ids there), then `{"position": "evt_…"}` last ' +
    "(null when the workspace has no event yet). `GET /events?after=<position>` continues from it: applying each later " +
    "event of these types in order (its `data` upserted, a `*.deleted` removing the record) keeps the records equal to a " +
    "fresh snapshot. A stream without the position line was cut: take a new snapshot. Only what the caller reads: its " +
    "workspace, within the credential's teams. The position expires with the stream (30 days): `after` an older one is " +
    "410 GONE (take a new snapshot).",
  request: {
    query: z.object({
      types: z
        .string()
        .max(500)
        .optional()
        .openapi({ description: `Comma-separated record types, default every one: ${SNAPSHOT_TYPES.join(", ")}`, example: "task,project" }),
      teamIds: z.string().max(2000).optional().openapi({
        description: "Comma-separated team ids or prefixes: only these teams' records (workspace-wide ones, labels and fields, stay)",
      }),
    }),
  },
  responses: {
    200: {
      description: "The records, one a line, then the position",
      content: { "application/x-ndjson": { schema: z.string() } },
    },
    ...errorResponses(["UNAUTHORIZED"], { validation: true }),
  },
});

/** The snapshot's route, rendering records with `rendering` (its app's: src/http/module.ts). */
export const syncRoutes = (rendering: EventRendering) =>
  newRouter().openapi(snapshot, async (c) => {
    const { body, done } = await snapshotStream(rendering, c.get("caller"), c.req.valid("query"));
    c.executionCtx.waitUntil(done);
    return new Response(body, { status: 200, headers: { "content-type": "application/x-ndjson; charset=utf-8" } }) as never;
  });
