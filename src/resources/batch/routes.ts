import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { matchedScopes } from "../../http/policy";
import type { AppHandle } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { combineRecordReads } from "../../store/reads";
import { runItem } from "./items";
import { BatchRequest, BatchResponse, MAX_ITEMS } from "./schema";

const batch = createRoute({
  // Each item needs its own scope besides.
  ...protectedRoute("Batch", { scope: "read" }),
  method: "post",
  operationId: "batch",
  path: "/batch",
  summary: "Run several GETs in one call",
  description: [
    `1..${MAX_ITEMS} relative GET paths, each answered by the read its direct GET answers with, under the same validation and`,
    "permissions, with the caller's credential (and no other header of this request: no `If-None-Match`, so every item answers its body). Items run",
    "concurrently on this request's database connections; `results` keeps the order of `requests`. The status is 200 even when",
    "items fail: a failed item's slot is `{error:{code,message,details?}}` with the code its direct GET would answer (404",
    "`NOT_FOUND` for another workspace's resource), a 422 is code `VALIDATION_FAILED` with the field messages in",
    "`details.errors`. A non-GET (`DELETE /tasks/ENG-1`), a path this API has no GET route for, an absolute URL, `//host`,",
    "a `.`/`..` segment, `/batch` itself, or a GET that answers no API JSON (`/docs`, a file, `/openapi.json`) is a `BAD_REQUEST` slot. A missing or",
    "invalid credential is 401 for the whole call, and one without the scope `read` 403 (each item also needs its own scope: an",
    "export's slot without `export` is 403 naming it).",
  ].join(" "),
  request: jsonBody(BatchRequest),
  responses: {
    200: jsonResponse(BatchResponse, "One result per request, in order"),
    ...errorResponses(["UNAUTHORIZED"], { validation: true }),
  },
});

/** POST /batch over `app`, the built app, whose router finds each item's route (app.ts passes it in, so nothing here imports app.ts). */
export const batchRoutes = (app: AppHandle) =>
  newRouter().openapi(batch, async (c) => {
    const { requests } = c.req.valid("json");
    const db = c.get("rdb").db;
    const context = {
      app,
      caller: c.get("caller"),
      scope: matchedScopes(c)?.[0] ?? null,
      db,
      env: c.env,
      url: c.req.url,
      requestId: c.get("requestId"),
    };
    // The one-record reads among the items cost one statement per resource, not one each (src/store/reads.ts).
    combineRecordReads(db);
    const items = await Promise.all(requests.map((raw, i) => runItem(context, raw, i)));
    // Every item ran with the same credential: one that succeeded on a route requiring it and the scope `read` proved
    // both. Otherwise (all failed, only public routes or only exports) one query checks them, so a bad credential is 401
    // for the whole call, and one without `read` 403.
    if (!items.some((item) => item.provesCredential)) await c.get("caller").principal();
    return c.json({ results: items.map((item) => item.slot) }, 200);
  });
