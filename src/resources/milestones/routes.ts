import { createRoute, z } from "@hono/zod-openapi";
import { listParams } from "../../auth/middleware";
import { protectedRoute } from "../../auth/route-base";
import { listBody, parseFields, projectFields } from "../../http/list";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { newRouter } from "../../http/router";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/schemas";
import { getMilestone, listMilestones, listProjectMilestones, milestoneList } from "./queries";
import { Milestone, MilestoneCreate, MilestoneSelection, MilestoneUpdate } from "./schema";
import {
  createMilestone,
  createMilestoneAs,
  deleteMilestone,
  explainRefusedCreate,
  explainRefusedDelete,
  explainRefusedUpdate,
  updateMilestone,
  writeMilestone,
} from "./service";

const base = protectedRoute("Milestones");
const one = z.object({ milestone: Milestone });
const oneSelected = z.object({ milestone: MilestoneSelection });
const listResponses = {
  200: jsonResponse(paginated("milestones", MilestoneSelection), "Milestones"),
  ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
};
const filterDescription = listDescription(milestoneList, "Null target dates sort last.");

const list = createRoute({
  ...protectedRoute("Milestones"),
  method: "get",
  operationId: "listMilestones",
  path: "/milestones",
  summary: "List the workspace's milestones",
  description: filterDescription,
  request: { query: listQueryFor(milestoneList) },
  responses: listResponses,
});
const ofProject = createRoute({
  ...protectedRoute("Milestones"),
  method: "get",
  operationId: "listProjectMilestones",
  path: "/projects/{id}/milestones",
  summary: "List a project's milestones (project by id or reference)",
  description: filterDescription,
  request: { params: IdParam, query: listQueryFor(milestoneList) },
  responses: { ...listResponses, ...errorResponses(["NOT_FOUND"]) },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createMilestone",
  path: "/milestones",
  summary: "Create a milestone in a project",
  description: "Needs team role MEMBER in the project's team, or workspace ADMIN.",
  request: jsonBody(MilestoneCreate),
  responses: {
    201: createdResponse(one, "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Milestones"),
  method: "get",
  operationId: "getMilestone",
  path: "/milestones/{id}",
  summary: "Get a milestone",
  description: "`fields` narrows the answer. Another workspace's milestone is 404.",
  request: { params: IdParam, query: fieldsQueryFor(milestoneList.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The milestone"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateMilestone",
  path: "/milestones/{id}",
  summary: "Update a milestone",
  description: "Partial: `null` clears targetDate; `customFields` merges. The project cannot change.",
  request: { params: IdParam, ...jsonBody(MilestoneUpdate) },
  responses: { 200: jsonResponse(one, "Updated"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }) },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteMilestone",
  path: "/milestones/{id}",
  summary: "Delete a milestone",
  description: "Its comments are deleted; its tasks stay, with `milestoneId` cleared.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const milestoneRoutes = newRouter()
  .openapi(list, async (c) => {
    const params = await listParams(c, milestoneList);
    const rows = await c.get("caller").list(({ workspace }) => listMilestones(c.get("rdb").db, workspace, params));
    return c.json(await listBody("milestones", params, rows), 200);
  })
  .openapi(ofProject, async (c) => {
    const params = await listParams(c, milestoneList);
    const rows = await c
      .get("caller")
      .list(({ workspace }) => listProjectMilestones(c.get("rdb").db, workspace, c.req.valid("param").id, params));
    return c.json(await listBody("milestones", params, rows), 200);
  })
  .openapi(create, async (c) => {
    const db = c.get("rdb").db;
    const input = c.req.valid("json");
    // Custom fields take the checked create (principal first); otherwise one self-authenticating statement.
    const milestone = input.customFields
      ? await createMilestone(db, await c.get("caller").principal(), input)
      : await c.get("caller").write(
          (actor) => createMilestoneAs(db, actor, input),
          (principal) => explainRefusedCreate(db, principal, input),
        );
    return created(c, "milestone", `/milestones/${milestone.id}`, milestone);
  })
  .openapi(read, async (c) => {
    const fields = parseFields(c.req.valid("query").fields, milestoneList.shape);
    const { id } = c.req.valid("param");
    const milestone = await c.get("caller").read(({ workspace }) => getMilestone(c.get("rdb").db, workspace, id));
    return c.json({ milestone: projectFields(milestone, fields) }, 200);
  })
  .openapi(update, async (c) => {
    const db = c.get("rdb").db;
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    const milestone = input.customFields
      ? await updateMilestone(db, await c.get("caller").principal(), id, input)
      : await c.get("caller").write(
          (actor) => writeMilestone(db, actor, id, input),
          (principal) => explainRefusedUpdate(db, principal, id),
        );
    return c.json({ milestone }, 200);
  })
  .openapi(remove, async (c) => {
    const db = c.get("rdb").db;
    const { id } = c.req.valid("param");
    await c.get("caller").write(
      async (actor) => (await deleteMilestone(db, actor, id)) || undefined,
      (principal) => explainRefusedDelete(db, principal, id),
    );
    return c.body(null, 204);
  });
