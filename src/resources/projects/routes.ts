import { createRoute, z } from "@hono/zod-openapi";
import { listParams } from "../../auth/middleware";
import { protectedRoute } from "../../auth/route-base";
import { listBody, parseFields, projectFields } from "../../http/list";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { missingIsBadRequest, newRouter } from "../../http/router";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/schemas";
import { getProject, listProjects, projectList } from "./queries";
import { Project, ProjectCreate, ProjectSelection, ProjectUpdate } from "./schema";
import {
  createProject,
  createProjectAs,
  deleteProject,
  explainRefusedCreate,
  explainRefusedDelete,
  explainRefusedUpdate,
  needsCheckedCreate,
  updateProject,
  writeProject,
} from "./service";

const base = protectedRoute("Projects");
const one = z.object({ project: Project });
const oneSelected = z.object({ project: ProjectSelection });

const list = createRoute({
  ...protectedRoute("Projects"),
  method: "get",
  operationId: "listProjects",
  path: "/projects",
  summary: "List the workspace's projects",
  description: listDescription(projectList, "`labelId` matches projects carrying the label (`in`: any of them). Null dates sort last."),
  request: { query: listQueryFor(projectList) },
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
  request: { params: IdParam, query: fieldsQueryFor(projectList.shape) },
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
  .openapi(list, async (c) => {
    const params = await listParams(c, projectList);
    const rows = await c.get("caller").list(({ workspace }) => listProjects(c.get("rdb").db, workspace, params));
    return c.json(await listBody("projects", params, rows), 200);
  })
  .openapi(
    create,
    async (c) => {
      const input = c.req.valid("json");
      const db = c.get("rdb").db;
      // The common body is one statement that authenticates itself; a lead, custom fields or dates out of order
      // take the checked create with the principal loaded first.
      const project = needsCheckedCreate(input)
        ? await createProject(db, await c.get("caller").principal(), input)
        : await c.get("caller").write(
            (actor) => createProjectAs(db, actor, input),
            (principal) => explainRefusedCreate(db, principal, input),
          );
      return created(c, "project", `/projects/${project.id}`, project);
    },
    missingIsBadRequest("teamId"),
  )
  .openapi(read, async (c) => {
    const fields = parseFields(c.req.valid("query").fields, projectList.shape);
    const { id } = c.req.valid("param");
    const project = await c.get("caller").read(({ workspace }) => getProject(c.get("rdb").db, workspace, id, fields));
    return c.json({ project: projectFields(project, fields) }, 200);
  })
  .openapi(update, async (c) => {
    const db = c.get("rdb").db;
    const { id } = c.req.valid("param");
    const input = c.req.valid("json");
    // A lead or custom fields take the checked update (principal first); otherwise one self-authenticating statement.
    const project =
      input.leadId || input.customFields
        ? await updateProject(db, await c.get("caller").principal(), id, input)
        : await c.get("caller").write(
            (actor) => writeProject(db, actor, id, input, undefined),
            (principal) => explainRefusedUpdate(db, principal, id, input),
          );
    return c.json({ project }, 200);
  })
  .openapi(remove, async (c) => {
    const db = c.get("rdb").db;
    const { id } = c.req.valid("param");
    await c.get("caller").write(
      async (actor) => (await deleteProject(db, actor, id)) || undefined,
      (principal) => explainRefusedDelete(db, principal, id),
    );
    return c.body(null, 204);
  });
