import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { createState, deleteState, getState, listStates, updateState } from "./operations";
import { MAX_STATES, StateCreate, type StateCreateInput, StateUpdate, type StateUpdateInput, stateRecord, WorkflowState } from "./record";

/** Its writes answer their record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Workflow states", { settled: "record" });
const one = z.object({ state: WorkflowState });
const TeamIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Team id or prefix (`ENG`, any case)" }),
});
const WHO = "Needs team ADMIN or OWNER, or workspace ADMIN/OWNER (403 otherwise); another workspace's is 404.";
const KEPT = "A team keeps at least one `unstarted`, one `completed` and one `canceled` state (422 otherwise).";

const list = createRoute({
  ...protectedRoute("Workflow states"),
  method: "get",
  operationId: "listStates",
  path: "/teams/{id}/states",
  summary: "List a team's workflow states, in position order",
  description:
    `Every state of the team (at most ${MAX_STATES}, not paginated), in position order: what a task's \`status\` may hold. ` +
    "An agent starting work moves its task to the first state whose category is `started`. Whoever reads the team reads them.",
  request: { params: TeamIdParam },
  responses: {
    200: jsonResponse(z.object({ states: z.array(WorkflowState) }), "The team's states"),
    ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createState",
  path: "/teams/{id}/states",
  summary: "Add a workflow state to a team",
  description:
    `${WHO} \`key\` (1..32 of A-Z, 0-9, _) is fixed once made; a key or name (any case) the team has already is 409; at most ` +
    `${MAX_STATES} a team (422). Without \`position\`, after the last state; without \`color\`, its category's.`,
  request: { params: TeamIdParam, ...jsonBody(StateCreate) },
  responses: {
    201: createdResponse(one, "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Workflow states"),
  method: "get",
  operationId: "getState",
  path: "/states/{id}",
  summary: "Get a workflow state",
  description: "Whoever reads its team reads it; another workspace's is 404.",
  request: { params: IdParam, query: fieldsQueryFor(stateRecord.shape) },
  responses: {
    200: jsonResponse(z.object({ state: stateRecord.selection }), "The state"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateState",
  path: "/states/{id}",
  summary: "Rename, recolour, reorder or recategorize a workflow state",
  description:
    `${WHO} Everything but \`key\` (422 as an unknown field). A new \`category\` reaches the state's tasks in the same ` +
    `statement (their \`statusCategory\`, \`startedAt\`, \`completedAt\`, \`canceledAt\`; one \`task.updated\` each). ${KEPT}`,
  request: { params: IdParam, ...jsonBody(StateUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteState",
  path: "/states/{id}",
  summary: "Delete a workflow state, moving its tasks to another",
  description:
    `${WHO} The tasks that hold it move to \`moveTo\` (another state of the team, by key or name) in the same transaction, ` +
    `one \`task.updated\` each; without \`moveTo\` while tasks hold it: 409 with \`details.tasks\`, their count. ${KEPT}`,
  request: {
    params: IdParam,
    query: z.object({
      moveTo: z
        .string()
        .min(1)
        .max(100)
        .optional()
        .openapi({ description: "The state its tasks move to: a key or name of another state of the team", example: "TODO" }),
    }),
  },
  responses: {
    204: { description: "Deleted" },
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});

export const stateRoutes = newRouter()
  .openapi(
    list,
    reading(list, async ({ caller, param }) => ({ states: await listStates(caller, param.id) })),
  )
  .openapi(create, async (c) => {
    const state = await createState(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as StateCreateInput);
    return created(c, "state", `/states/${state.id}`, state);
  })
  .openapi(read, reading(read, oneRecord("state", stateRecord.shape, getState)))
  .openapi(update, async (c) => {
    const state = await updateState(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as StateUpdateInput);
    return c.json({ state }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteState(c.get("caller"), c.req.valid("param").id, c.req.valid("query").moveTo);
    return c.body(null, 204);
  });
