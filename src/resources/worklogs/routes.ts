import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { deleteWorklog, getWorklog, listTaskWorklogs, listWorklogs, logTime, updateWorklog } from "./operations";
import { Worklog, WorklogSelection, worklogRecord } from "./record";
import { SummaryQuery, secondsOf, WorklogCreate, WorklogSummary, WorklogUpdate } from "./schema";
import { worklogSummary } from "./summary";

const base = protectedRoute("Worklogs");
const one = z.object({ worklog: Worklog });
const TaskIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Task id or reference (`ENG-12`, any case)" }),
});
const WHO =
  "Its author or a workspace ADMIN/OWNER (who must still be team MEMBER or above, or workspace ADMIN/OWNER); anyone else gets 403.";

const create = createRoute({
  ...base,
  method: "post",
  operationId: "createWorklog",
  path: "/tasks/{id}/worklogs",
  summary: "Log time on a task",
  description:
    "The caller is the author (an agent's worklog shows the agent). Needs team MEMBER or above in the task's team, or workspace " +
    "ADMIN/OWNER (a VIEWER logs nothing: 403). In the same statement `adjustEstimate` (default `auto`) lowers the task's " +
    "`timeTracking.remainingSeconds` by the duration (`manual`: by reduceBySeconds; never below 0; a task without a remaining " +
    "estimate keeps none), or sets it (`new`), or leaves it (`leave`).",
  request: { params: TaskIdParam, ...jsonBody(WorklogCreate) },
  responses: { 201: createdResponse(one, "Logged"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }) },
});
const listOfTask = createRoute({
  ...base,
  method: "get",
  operationId: "listTaskWorklogs",
  path: "/tasks/{id}/worklogs",
  summary: "List a task's worklogs",
  description: listDescription(
    worklogRecord.list,
    "Whoever reads the task reads them. Oldest first by default; an unknown or foreign task is 404.",
  ),
  request: { params: TaskIdParam, query: listQueryFor(worklogRecord.list) },
  responses: {
    200: jsonResponse(paginated("worklogs", WorklogSelection), "Worklogs"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const list = createRoute({
  ...base,
  method: "get",
  operationId: "listWorklogs",
  path: "/worklogs",
  summary: "List the workspace's worklogs",
  description: listDescription(
    worklogRecord.list,
    "Those of the tasks the caller reads, e.g. one person's in a week: `filter[eq][userId]=ada@example.com&filter[gte][startedAt]=2026-03-02T00:00:00Z&filter[lt][startedAt]=2026-03-09T00:00:00Z`; `teamId` and `projectId` filter by the worklog's task.",
  ),
  request: { query: listQueryFor(worklogRecord.list) },
  responses: {
    200: jsonResponse(paginated("worklogs", WorklogSelection), "Worklogs"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const summary = createRoute({
  ...base,
  method: "get",
  operationId: "summarizeWorklogs",
  path: "/worklogs/summary",
  summary: "Sum the worklogs that started between two instants, by user, team, project or task",
  description:
    "`from` inclusive, `to` exclusive, on `startedAt`; each an RFC 3339 date (midnight UTC) or date-time, either may be left out. " +
    "Only the worklogs of the tasks the caller reads (a team-bound credential sums only its teams).",
  request: { query: SummaryQuery },
  responses: { 200: jsonResponse(WorklogSummary, "The sums"), ...errorResponses(["UNAUTHORIZED"], { validation: true }) },
});
const read = createRoute({
  ...base,
  method: "get",
  operationId: "getWorklog",
  path: "/worklogs/{id}",
  summary: "Get a worklog",
  description: "Another workspace's worklog is 404.",
  request: { params: IdParam, query: fieldsQueryFor(worklogRecord.shape) },
  responses: {
    200: jsonResponse(z.object({ worklog: WorklogSelection }), "The worklog"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateWorklog",
  path: "/worklogs/{id}",
  summary: "Change a worklog's start, duration or note",
  description: `${WHO} The task's remaining estimate is left as it is.`,
  request: { params: IdParam, ...jsonBody(WorklogUpdate) },
  responses: { 200: jsonResponse(one, "Updated"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }) },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteWorklog",
  path: "/worklogs/{id}",
  summary: "Delete a worklog",
  description: `${WHO} The task's remaining estimate is left as it is.`,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const worklogRoutes = newRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const worklog = await logTime(c.get("caller"), c.req.valid("param").id, { ...body, durationSeconds: secondsOf(body) as number });
    return created(c, "worklog", `/worklogs/${worklog.id}`, worklog);
  })
  .openapi(
    listOfTask,
    reading(
      listOfTask,
      listing(worklogRecord.list, "worklogs", (caller, params, param) => listTaskWorklogs(caller, param.id, params)),
    ),
  )
  .openapi(list, reading(list, listing(worklogRecord.list, "worklogs", listWorklogs)))
  // Before `/worklogs/{id}`, which would take `summary` for an id.
  .openapi(
    summary,
    reading(summary, ({ caller, query }) => worklogSummary(caller, query as z.infer<typeof SummaryQuery>)),
  )
  .openapi(read, reading(read, oneRecord("worklog", worklogRecord.shape, getWorklog)))
  .openapi(update, async (c) => {
    const { duration: _d, ...body } = c.req.valid("json");
    const worklog = await updateWorklog(c.get("caller"), c.req.valid("param").id, {
      ...body,
      durationSeconds: secondsOf(c.req.valid("json")),
    });
    return c.json({ worklog }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteWorklog(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
