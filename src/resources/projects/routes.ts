import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { missingIsBadRequest, newRouter } from "../../http/router";
import { createProject, deleteProject, getProject, listProjects, updateProject } from "./operations";
import {
  Project,
  ProjectCreate,
  type ProjectCreateInput,
  ProjectSelection,
  ProjectUpdate,
  type ProjectUpdateInput,
  projectRecord,
} from "./record";

/** GET /projects/{id}'s answer, also what If-Match and the order of checks read. */
const readProject = oneRecord("project", projectRecord.shape, getProject);

/** Its writes: each answers its record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Projects", { settled: "record" });
const one = z.object({ project: Project });
const oneSelected = z.object({ project: ProjectSelection });

const list = createRoute({
  ...protectedRoute("Projects"),
  method: "get",
  operationId: "listProjects",
  path: "/projects",
  summary: "List the workspace's projects",
  description: listDescription(
    projectRecord.list,
    "`labelId` matches projects carrying the label (`in`: any of them). Null dates sort last.",
  ),
  request: { query: listQueryFor(projectRecord.list) },
  responses: {
    200: jsonResponse(paginated("projects", ProjectSelection), "Projects"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createProject",
  path: "/projects",
  summary: "Create a project in a team",
  description:
    "Needs team role MEMBER or workspace ADMIN. The reference `<PREFIX>-P<n>` comes from the team's project counter, separate from task numbers.",
  request: jsonBody(ProjectCreate),
  responses: {
    201: createdResponse(one, "Created"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Projects"),
  method: "get",
  operationId: "getProject",
  path: "/projects/{id}",
  summary: "Get a project by id or reference (`ENG-P3`, any case)",
  description: "`fields` narrows the answer, e.g. `reference,name,lead{name}`. Another workspace's project is 404.",
  request: { params: IdParam, query: fieldsQueryFor(projectRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The project"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateProject",
  path: "/projects/{id}",
  summary: "Update a project",
  description:
    "Partial: `null` clears leadId, startDate, targetDate; `labelIds` replaces the labels; `customFields` merges. The team cannot change.",
  request: { params: IdParam, ...jsonBody(ProjectUpdate) },
  responses: { 200: jsonResponse(one, "Updated"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }) },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteProject",
  path: "/projects/{id}",
  summary: "Delete a project",
  description: "Its milestones and comments are deleted; its tasks stay, with `projectId` and `milestoneId` cleared.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const projectRoutes = newRouter()
  .openapi(list, reading(list, listing(projectRecord.list, "projects", listProjects)))
  .openapi(
    create,
    async (c) => {
      const project = await createProject(c.get("caller"), c.req.valid("json") as ProjectCreateInput);
      return created(c, "project", `/projects/${project.id}`, project);
    },
    // A body without teamId is a missing required parameter: 400 (docs/api.md), not 422.
    missingIsBadRequest("teamId"),
  )
  .openapi(read, reading(read, readProject))
  .openapi(update, async (c) => {
    const project = await updateProject(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as ProjectUpdateInput);
    return c.json({ project }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteProject(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
