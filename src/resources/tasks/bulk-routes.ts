import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { protectedRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { bulkTasks, TaskBulk, TaskBulkResult } from "./bulk";

const bulkRoute = createRoute({
  ...protectedRoute("Tasks"),
  method: "post",
  operationId: "bulkTasks",
  path: "/tasks/bulk",
  summary: "Change or delete many tasks at once, all or nothing",
  description:
    "The tasks by `ids` (ids or references, up to 1000) or by `filter` (GET /tasks's filters as JSON; matching more than `limit`, " +
    "default 1000: 422 naming `filter`); then `set` (PATCH's fields status, priority, assigneeId, delegateId, projectId, milestoneId, " +
    "cycleId, dueDate, estimate), `addLabelIds`, `removeLabelIds`, or `delete: true`. One transaction: each task passes the rules of " +
    "its own PATCH or DELETE, or nothing is written: a task the caller may not change is 403 with `details: {tasks: [ids]}`, a value " +
    "one task cannot take is 422 keyed `tasks[<reference>].<field>`, a name that finds no task 422 naming `ids`. A task already as " +
    "asked is not written. One `task.updated` (or `task.deleted`) event per task changed, all with the request's id. `dryRun: true` " +
    "answers the same and writes nothing.",
  request: jsonBody(TaskBulk),
  responses: {
    200: jsonResponse(TaskBulkResult, "What matched, what changed, and each task's changes"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});

export const taskBulkRoutes = newRouter().openapi(bulkRoute, async (c) =>
  c.json(await bulkTasks(c.get("caller"), c.req.valid("json")), 200),
);
