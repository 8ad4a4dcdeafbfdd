import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { missingIsBadRequest, newRouter } from "../../http/router";
import { createTask, deleteTask, getTask, listTasks, updateTask } from "./operations";
import { Task, TaskCreate, type TaskCreateInput, TaskSelection, TaskUpdate, type TaskUpdateInput, taskRecord } from "./record";

/** GET /tasks/{id}'s answer, also what If-Match and the order of checks read. */
const readTask = oneRecord("task", taskRecord.shape, getTask);

/** Its writes: each answers its record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Tasks", { settled: "record" });
const one = z.object({ task: Task });
const oneSelected = z.object({ task: TaskSelection });
const TaskIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({
    param: { name: "id", in: "path" },
    description: "Task id or reference (`ENG-12`, any case)",
    example: "ENG-12",
  }),
});

const list = createRoute({
  ...protectedRoute("Tasks"),
  method: "get",
  operationId: "listTasks",
  path: "/tasks",
  summary: "List the workspace's tasks",
  description: listDescription(
    taskRecord.list,
    "`filter[eq][parentId]=null`: top-level tasks; `labelId` matches tasks carrying the label (`in`: any of them). Priority sorts " +
      "by rank (NONE < LOW < MEDIUM < HIGH < URGENT), status in workflow order, null due dates last.",
  ),
  request: { query: listQueryFor(taskRecord.list) },
  responses: {
    200: jsonResponse(paginated("tasks", TaskSelection), "Tasks (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createTask",
  path: "/tasks",
  summary: "Create a task in a team",
  description:
    "The reference `<PREFIX>-<n>` comes from the team's task counter. Missing `teamId` is 400; another workspace's team, project, " +
    "parent, assignee or label is 404; a project or parent of another team, or a milestone outside the task's project, is 422.",
  request: jsonBody(TaskCreate),
  responses: {
    201: createdResponse(one, "Created"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Tasks"),
  method: "get",
  operationId: "getTask",
  path: "/tasks/{id}",
  summary: "Get a task by id or reference",
  description: "`fields` narrows the answer, e.g. `reference,title,assignee{name},labels{name}`. Another workspace's task is 404.",
  request: { params: TaskIdParam, query: fieldsQueryFor(taskRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The task (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateTask",
  path: "/tasks/{id}",
  summary: "Update a task",
  description:
    "Partial; `null` clears projectId, milestoneId, parentId, assigneeId, delegateId, dueDate. `labelIds` replaces the set; `customFields` merges " +
    "(`null` removes a key). Clearing or changing the project clears the milestone. A parent that is the task or one of its subtasks is 422. " +
    "`teamId` cannot change (422). `delegateId` (an agent of the workspace; a person is 422) opens the agent's session on the task, or keeps its open one (docs/agents.md).",
  request: { params: TaskIdParam, ...jsonBody(TaskUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteTask",
  path: "/tasks/{id}",
  summary: "Delete a task with its subtasks and comments",
  description: "Needs team MEMBER or above (or workspace ADMIN/OWNER). The reference is never reused.",
  request: { params: TaskIdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const taskRoutes = newRouter()
  .openapi(list, reading(list, listing(taskRecord.list, "tasks", listTasks)))
  .openapi(
    create,
    async (c) => {
      const task = await createTask(c.get("caller"), c.req.valid("json") as TaskCreateInput);
      return created(c, "task", `/tasks/${task.id}`, task);
    },
    // A body without teamId is a missing required parameter: 400 (docs/api.md), not 422.
    missingIsBadRequest("teamId"),
  )
  .openapi(read, reading(read, readTask))
  .openapi(update, async (c) => {
    const task = await updateTask(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as TaskUpdateInput);
    return c.json({ task }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteTask(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
