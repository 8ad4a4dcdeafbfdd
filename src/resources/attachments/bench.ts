// Reference routes for `npm run bench` beside what they are the reference of: a plain R2 `put` and `get`, no database,
// which an attachment's upload and download are compared with. Mounted only when BENCH_ROUTES=true (never in production).
import { createRoute, z } from "@hono/zod-openapi";
import { AppError } from "../../core/errors";
import { errorResponses, jsonResponse } from "../../http/openapi";
import { publicRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";

const filePut = createRoute({
  // Streamed as an upload is, so the two compare.
  ...publicRoute("System", { body: "upload" }),
  method: "post",
  operationId: "benchFilePut",
  path: "/_bench/files",
  summary: "Benchmark reference (BENCH_ROUTES=true only): the body straight into R2",
  description: "A plain R2 `put` of the raw body (its Content-Length), no database: what an attachment upload is compared with.",
  request: {
    body: { required: true, content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } },
  },
  responses: { 200: jsonResponse(z.object({ key: z.string() }), "Stored"), ...errorResponses(["BAD_REQUEST"]) },
});

const fileGet = createRoute({
  ...publicRoute("System"),
  method: "get",
  operationId: "benchFileGet",
  path: "/_bench/files/{key}",
  summary: "Benchmark reference (BENCH_ROUTES=true only): an R2 object straight out",
  description: "A plain R2 `get`, streamed: what an attachment download is compared with.",
  request: { params: z.object({ key: z.string() }) },
  responses: {
    200: { description: "The bytes", content: { "*/*": { schema: z.string().openapi({ format: "binary" }) } } },
    ...errorResponses(["NOT_FOUND"]),
  },
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The file references of `npm run bench`. */
export const fileBenchRoutes = newRouter()
  .openapi(filePut, async (c) => {
    const length = Number(c.req.header("content-length"));
    if (!c.req.raw.body || !Number.isSafeInteger(length)) throw new AppError("BAD_REQUEST", "Send a body with its Content-Length");
    const key = `bench/${crypto.randomUUID()}`;
    const fixed = new FixedLengthStream(length);
    await Promise.all([c.env.FILES.put(key, fixed.readable), c.req.raw.body.pipeTo(fixed.writable)]);
    return c.json({ key }, 200);
  })
  .openapi(fileGet, async (c) => {
    const { key } = c.req.valid("param");
    // The keys this route's put makes are UUIDs; anything else (R2 refuses keys over 1,024 bytes) names no object.
    const object = UUID.test(key) ? await c.env.FILES.get(`bench/${key}`) : null;
    if (!object) throw new AppError("NOT_FOUND", "No such object");
    // Its own ETag (R2's), as the attachment's route sets one: else the ETag middleware would hash the whole body.
    const headers = { "content-type": "application/octet-stream", etag: object.httpEtag };
    return new Response(object.body, { headers }) as never;
  });
