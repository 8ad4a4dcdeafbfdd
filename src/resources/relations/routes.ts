import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { createRelation, deleteRelation, listRelations } from "./operations";
import { relationRecord, TaskRelation, TaskRelationCreate, TaskRelationSelection } from "./record";

const base = protectedRoute("Tasks");
const TaskIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Task id or reference (`ENG-12`, any case)" }),
});

const list = createRoute({
  ...base,
  method: "get",
  operationId: "listTaskRelations",
  path: "/tasks/{id}/relations",
  summary: "List a task's relations, both directions",
  description: listDescription(
    relationRecord.list,
    "Each relation as this task sees it (`blocked_by` for a task another blocks, `duplicated_by` for a duplicate's original), " +
      "with the other task's `{id, reference, title, status}`; relations whose other task the caller may not read are left out. " +
      "Oldest first by default; an unknown or foreign task is 404.",
  ),
  request: { params: TaskIdParam, query: listQueryFor(relationRecord.list) },
  responses: {
    200: jsonResponse(paginated("relations", TaskRelationSelection), "Relations"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createTaskRelation",
  path: "/tasks/{id}/relations",
  summary: "Relate a task to another (blocks, blocked_by, duplicate_of, related)",
  description:
    "Needs the right to change the task in the path (team MEMBER or above, or workspace ADMIN/OWNER); the other task may be of any " +
    "team of the workspace. One stored edge per pair and meaning: `blocked_by` is `blocks` from the other side, `related` is " +
    "symmetric; the same relation again is 409, the task itself 422, a `blocks` that would close a cycle 422 naming it. " +
    "`duplicate_of` moves this task to its team's first `canceled` state (unless it is completed or canceled).",
  request: { params: TaskIdParam, ...jsonBody(TaskRelationCreate) },
  responses: {
    201: createdResponse(z.object({ relation: TaskRelation }), "Created, as seen from the task in the path"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteTaskRelation",
  path: "/tasks/{id}/relations/{relationId}",
  summary: "Remove a relation (from either task)",
  description: "Needs the right to change the task in the path. A duplicate stays in its canceled state.",
  request: {
    params: TaskIdParam.extend({
      relationId: z
        .string()
        .min(1)
        .openapi({ param: { name: "relationId", in: "path" } }),
    }),
  },
  responses: { 204: { description: "Removed" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const taskRelationRoutes = newRouter()
  .openapi(
    list,
    reading(
      list,
      listing(relationRecord.list, "relations", (caller, params, param) => listRelations(caller, param.id, params)),
    ),
  )
  .openapi(create, async (c) => {
    const { id } = c.req.valid("param");
    const relation = await createRelation(c.get("caller"), id, c.req.valid("json"));
    return created(c, "relation", `/tasks/${id}/relations`, relation);
  })
  .openapi(remove, async (c) => {
    const { id, relationId } = c.req.valid("param");
    await deleteRelation(c.get("caller"), id, relationId);
    return c.body(null, 204);
  });
