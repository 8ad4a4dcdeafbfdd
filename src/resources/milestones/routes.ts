import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { createMilestone, deleteMilestone, getMilestone, listMilestones, listProjectMilestones, updateMilestone } from "./operations";
import {
  Milestone,
  MilestoneCreate,
  type MilestoneCreateInput,
  MilestoneSelection,
  MilestoneUpdate,
  type MilestoneUpdateInput,
  milestoneRecord,
} from "./record";

/** GET /milestones/{id}'s answer, also what If-Match and the order of checks read. */
const readMilestone = oneRecord("milestone", milestoneRecord.shape, getMilestone);

/** Its writes: each answers its record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Milestones", { settled: "record" });
const one = z.object({ milestone: Milestone });
const oneSelected = z.object({ milestone: MilestoneSelection });
const listResponses = {
  200: jsonResponse(paginated("milestones", MilestoneSelection), "Milestones"),
  ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
};
const filterDescription = listDescription(milestoneRecord.list, "Null target dates sort last.");

const list = createRoute({
  ...protectedRoute("Milestones"),
  method: "get",
  operationId: "listMilestones",
  path: "/milestones",
  summary: "List the workspace's milestones",
  description: filterDescription,
  request: { query: listQueryFor(milestoneRecord.list) },
  responses: listResponses,
});
const ofProject = createRoute({
  ...protectedRoute("Milestones"),
  method: "get",
  operationId: "listProjectMilestones",
  path: "/projects/{id}/milestones",
  summary: "List a project's milestones (project by id or reference)",
  description: filterDescription,
  request: { params: IdParam, query: listQueryFor(milestoneRecord.list) },
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
  request: { params: IdParam, query: fieldsQueryFor(milestoneRecord.shape) },
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
  .openapi(list, reading(list, listing(milestoneRecord.list, "milestones", listMilestones)))
  .openapi(
    ofProject,
    reading(
      ofProject,
      listing(milestoneRecord.list, "milestones", (caller, params, param) => listProjectMilestones(caller, param.id, params)),
    ),
  )
  .openapi(create, async (c) => {
    const milestone = await createMilestone(c.get("caller"), c.req.valid("json") as MilestoneCreateInput);
    return created(c, "milestone", `/milestones/${milestone.id}`, milestone);
  })
  .openapi(read, reading(read, readMilestone))
  .openapi(update, async (c) => {
    const milestone = await updateMilestone(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as MilestoneUpdateInput);
    return c.json({ milestone }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteMilestone(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
