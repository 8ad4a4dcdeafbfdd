import { createRoute, z } from "@hono/zod-openapi";
import { invalid } from "../../core/errors";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { burnupSvg } from "./burnup";
import { CycleHistory, cycleHistory, teamVelocity, Velocity } from "./history";
import { createCycle, deleteCycle, getCycle, listCycles, updateCycle } from "./operations";
import { Cycle, CycleCreate, type CycleCreateInput, type CycleInput, CycleSelection, CycleUpdate, cycleRecord } from "./record";

/** GET /cycles/{id}'s answer, also what If-Match and the order of checks read. */
const readCycle = oneRecord("cycle", cycleRecord.shape, getCycle);

/** Its writes: each answers its record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Cycles", { settled: "record" });
const one = z.object({ cycle: Cycle });
const oneSelected = z.object({ cycle: CycleSelection });
const CycleParam = z.object({
  // No length bound: a value naming no cycle is 404, whatever its length, as every record's id.
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" }, description: "The cycle's id or name (`ENG-C3`)" }),
});

const list = createRoute({
  ...protectedRoute("Cycles"),
  method: "get",
  operationId: "listCycles",
  path: "/cycles",
  summary: "List the workspace's cycles",
  description: listDescription(cycleRecord.list, "E.g. `filter[eq][teamId]=ENG&filter[eq][state]=active`."),
  request: { query: listQueryFor(cycleRecord.list) },
  responses: {
    200: jsonResponse(paginated("cycles", CycleSelection), "Cycles"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createCycle",
  path: "/cycles",
  summary: "Create a cycle in a team",
  description:
    "Needs team role MEMBER, or workspace ADMIN. Numbered from the team's cycle counter (`ENG-C3`); `name` defaults to " +
    "`Cycle <number>`. A team's cycles never overlap (422 at `startsAt`); `endsAt` after `startsAt`, at most 26 weeks later.",
  request: jsonBody(CycleCreate),
  responses: {
    201: createdResponse(one, "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Cycles"),
  method: "get",
  operationId: "getCycle",
  path: "/cycles/{id}",
  summary: "Get a cycle (by id or name, `ENG-C3`) with its progress",
  description: "`fields` narrows the answer. Another workspace's cycle is 404.",
  request: { params: CycleParam, query: fieldsQueryFor(cycleRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The cycle"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateCycle",
  path: "/cycles/{id}",
  summary: "Update a cycle",
  description: "Partial. An ended cycle's dates are fixed (409); the team cannot change.",
  request: { params: CycleParam, ...jsonBody(CycleUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteCycle",
  path: "/cycles/{id}",
  summary: "Delete a cycle",
  description: "Its tasks stay, with `cycleId` cleared (one `task.updated` each).",
  request: { params: CycleParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});
const history = createRoute({
  ...protectedRoute("Cycles"),
  method: "get",
  operationId: "getCycleHistory",
  path: "/cycles/{id}/history",
  summary: "A cycle's progress day by day",
  description:
    "UTC days from `startsAt` to the earlier of today and `endsAt`, each as the tasks stood at the end of that day, " +
    "computed from the stored events (kept 30 days), so a past day's figures never change.",
  request: { params: CycleParam },
  responses: { 200: jsonResponse(CycleHistory, "The days"), ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]) },
});
const burnup = createRoute({
  ...protectedRoute("Cycles", { etag: false }),
  method: "get",
  operationId: "getCycleBurnup",
  path: "/cycles/{id}/burnup.svg",
  summary: "A cycle's burn-up picture (SVG)",
  description:
    "Scope and completed tasks over the history's days, as `image/svg+xml` with a `<title>` and the figures in `<desc>`; no script.",
  request: { params: CycleParam },
  responses: {
    200: { description: "The picture", content: { "image/svg+xml": { schema: z.string() } } },
    ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]),
  },
});
const velocity = createRoute({
  ...protectedRoute("Cycles"),
  method: "get",
  operationId: "getTeamVelocity",
  path: "/teams/{id}/velocity",
  summary: "What a team's last ended cycles completed",
  description: "Over the last `cycles` (1..12, default 3) ended cycles, newest first, with the average per cycle.",
  request: {
    params: IdParam,
    query: z.object({
      // Parsed by the read (422 `{errors:{cycles}}`, as `limit`), so the runtime schema stays a string.
      cycles: z.string().optional().openapi({ type: "integer", minimum: 1, maximum: 12, example: 3 }),
    }),
  },
  responses: {
    200: jsonResponse(Velocity, "The velocity"),
    ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});

/** `cycles` of GET /teams/{id}/velocity: 1..12, default 3. */
function cycleCount(value: unknown): number {
  if (value === undefined) return 3;
  const n = Number(value);
  if (!/^\d+$/.test(String(value)) || n < 1 || n > 12) throw invalid("cycles", "Must be an integer from 1 to 12");
  return n;
}

export const cycleRoutes = newRouter()
  .openapi(list, reading(list, listing(cycleRecord.list, "cycles", listCycles)))
  .openapi(create, async (c) => {
    const cycle = await createCycle(c.get("caller"), c.req.valid("json") as CycleCreateInput);
    return created(c, "cycle", `/cycles/${cycle.id}`, cycle);
  })
  .openapi(read, reading(read, readCycle))
  .openapi(update, async (c) => {
    const cycle = await updateCycle(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as CycleInput);
    return c.json({ cycle }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteCycle(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(
    history,
    reading(history, async ({ caller, param }) => ({ days: (await cycleHistory(caller, param.id)).days })),
  )
  .openapi(burnup, async (c) => {
    const svg = burnupSvg(await cycleHistory(c.get("caller"), c.req.valid("param").id));
    return c.body(svg, 200, { "content-type": "image/svg+xml; charset=utf-8" }) as never;
  })
  .openapi(
    velocity,
    reading(velocity, ({ caller, param, query }) => teamVelocity(caller, param.id, cycleCount(query.cycles))),
  );
