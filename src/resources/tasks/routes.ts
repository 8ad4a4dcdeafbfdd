import { createRoute, z } from "@hono/zod-openapi";
import { listParams } from "../../auth/middleware";
import { principalActor } from "../../auth/principal";
import { protectedRoute } from "../../auth/route-base";
import { listBody, parseFields, projectFields } from "../../http/list";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { missingIsBadRequest, newRouter } from "../../http/router";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/schemas";
import { listTasks, taskById, taskList } from "./queries";
import { Task, TaskCreate, TaskSelection, TaskUpdate } from "./schema";
import {
  createTask,
  deleteTask,
  explainRefusedCreate,
  explainRefusedDelete,
  explainRefusedUpdate,
  hasLinks,
  namesLinks,
  updateTask,
  updateTaskAs,
} from "./service";

const base = protectedRoute("Tasks");
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
    taskList,
    "`filter[eq][parentId]=null`: top-level tasks; `labelId` matches tasks carrying the label (`in`: any of them). Priority sorts " +
      "by rank (NONE < LOW < MEDIUM < HIGH < URGENT), status in workflow order, null due dates last.",
  ),
  request: { query: listQueryFor(taskList) },
  responses: {
    200: jsonResponse(paginated("tasks", TaskSelection), "Tasks (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...protectedRoute("Tasks"),
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
  request: { params: TaskIdParam, query: fieldsQueryFor(taskList.shape) },
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
    "Partial; `null` clears projectId, milestoneId, parentId, assigneeId, dueDate. `labelIds` replaces the set; `customFields` merges " +
    "(`null` removes a key). Clearing or changing the project clears the milestone. A parent that is the task or one of its subtasks is 422. " +
    "`teamId` cannot change (422).",
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
  .openapi(list, async (c) => {
    const params = await listParams(c, taskList);
    const rows = await c.get("caller").list(({ workspace }) => listTasks(c.get("rdb").db, workspace, params));
    return c.json(await listBody("tasks", params, rows), 200);
  })
  .openapi(
    create,
    async (c) => {
      const input = c.req.valid("json");
      const db = c.get("rdb").db;
      // One create (createTask). Without links it is one statement that authenticates itself; links are checked
      // against the caller's workspace, so then the principal comes first. A refusal is explained with the principal.
      const task = await c.get("caller").write(
        async (actor) => createTask(db, hasLinks(input) ? principalActor(await c.get("caller").principal()) : actor, input),
        (principal) => explainRefusedCreate(db, principalActor(principal), input),
      );
      return created(c, "task", `/tasks/${task.id}`, task);
    },
    // A body without teamId is a missing required parameter: 400 (contract §4), not 422.
    missingIsBadRequest("teamId"),
  )
  .openapi(read, async (c) => {
    const fields = parseFields(c.req.valid("query").fields, taskList.shape);
    const { id } = c.req.valid("param");
    const task = await c.get("caller").read(({ workspace }) => taskById(c.get("rdb").db, workspace, id, fields));
    return c.json({ task: projectFields(task, fields) }, 200);
  })
  .openapi(update, async (c) => {
    const db = c.get("rdb").db;
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    // Links (checked against the caller's workspace) take the checked update, principal first; otherwise one
    // statement that authenticates itself.
    const task = namesLinks(input)
      ? await updateTask(db, await c.get("caller").principal(), id, input)
      : await c.get("caller").write(
          (actor) => updateTaskAs(db, actor, id, input),
          (principal) => explainRefusedUpdate(db, principal, id, input.labelIds),
        );
    return c.json({ task }, 200);
  })
  .openapi(remove, async (c) => {
    const db = c.get("rdb").db;
    const { id } = c.req.valid("param");
    await c.get("caller").write(
      async (actor) => (await deleteTask(db, actor, id)) || undefined,
      (principal) => explainRefusedDelete(db, principal, id),
    );
    return c.body(null, 204);
  });
