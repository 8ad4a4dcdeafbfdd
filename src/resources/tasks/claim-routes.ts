import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { protectedRoute } from "../../http/route-base";
import { IdParam } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { JsonFilter, JsonSort } from "../../store/list";
import { claimNext, claimTask, releaseTask } from "./claims";
import { LEASE, LeaseSeconds, TaskClaim } from "./claims-record";
import { Task } from "./record";

// A claim is not the task: If-Match, which compares the task's GET, does not apply to releasing it.
const base = protectedRoute("Tasks", { conditional: false });
const TaskIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Task id or reference (`ENG-12`, any case)" }),
});

export const ClaimCreate = z.object({ leaseSeconds: LeaseSeconds }).strict().openapi("TaskClaimCreate");
export const ClaimNextBody = z
  .object({
    filter: JsonFilter.openapi({
      description:
        'GET /tasks\'s filters as JSON, by the same names and operators: `{"eq": {"teamId": "ENG", "status": "TODO"}}`; ' +
        "`{}` for any task",
    }),
    sort: JsonSort.optional().openapi({
      description: 'GET /tasks\'s sorts as JSON, e.g. `{"priority": "desc"}` (default: createdAt ascending)',
    }),
    leaseSeconds: LeaseSeconds,
  })
  .strict()
  .openapi("TaskClaimNext");
export const Claimed = z.object({ task: Task, claim: TaskClaim }).openapi("ClaimedTask");

const RULES =
  "A claim is a write of the task: the `tasks:write` scope and the right to change it (team MEMBER or above, or workspace " +
  "ADMIN/OWNER; a VIEWER is 403), within the credential's teams. An expired claim holds nothing.";

const claimNextRoute = createRoute({
  ...base,
  method: "post",
  operationId: "claimNextTask",
  path: "/tasks/claim",
  summary: "Claim the first free task that matches a filter (a shared work queue)",
  description:
    "Atomically takes the first task, in the list's order, that matches `filter` and no live claim holds, for `leaseSeconds`; " +
    "concurrent callers each get another task. 204 when none is free. An unknown filter or sort name or operator is 400, as " +
    `for GET /tasks. ${RULES} Matching tasks that are free but that the caller may only read: 403. Event \`task.claimed\`.`,
  request: jsonBody(ClaimNextBody),
  responses: {
    200: jsonResponse(Claimed, "The task claimed, with its claim"),
    204: { description: "No matching task is free" },
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN"], { validation: true }),
  },
});
const claimRoute = createRoute({
  ...base,
  method: "post",
  operationId: "claimTask",
  path: "/tasks/{id}/claim",
  summary: "Claim a task, or renew one's claim",
  description:
    "Takes the task for `leaseSeconds` (expiry = now + lease), or renews the caller's own claim. While another holder's claim is " +
    `live: 409 CONFLICT with \`details: {holderId, expiresAt}\`. The body may be left out. ${RULES} Event \`task.claimed\`.`,
  request: { params: TaskIdParam, body: { required: false, content: { "application/json": { schema: ClaimCreate } } } },
  responses: {
    200: jsonResponse(Claimed, "The task, with its claim"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const releaseRoute = createRoute({
  ...base,
  method: "delete",
  operationId: "releaseTask",
  path: "/tasks/{id}/claim",
  summary: "Release a task's claim",
  description:
    "By the claim's holder, or a workspace ADMIN/OWNER (anyone else: 403). A task no live claim holds is released already: 204, " +
    "nothing written. Event `task.released`.",
  request: { params: TaskIdParam },
  responses: { 204: { description: "Released (or held by no claim)" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const taskClaimRoutes = newRouter()
  .openapi(claimNextRoute, async (c) => {
    const claimed = await claimNext(c.get("caller"), c.req.valid("json"));
    return claimed ? c.json(claimed, 200) : c.body(null, 204);
  })
  .openapi(claimRoute, async (c) => {
    const { leaseSeconds = LEASE.default } = c.req.valid("json") ?? {};
    return c.json(await claimTask(c.get("caller"), c.req.valid("param").id, leaseSeconds), 200);
  })
  .openapi(releaseRoute, async (c) => {
    await releaseTask(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
