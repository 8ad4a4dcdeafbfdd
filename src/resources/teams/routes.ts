import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { createTeam, deleteTeam, getTeam, listTeams, updateTeam } from "./operations";
import { Team, TeamCreate, type TeamCreateInput, TeamSelection, TeamUpdate, type TeamUpdateInput, teamRecord } from "./record";

/** GET /teams/{id}'s answer, also what If-Match and the order of checks read. */
const readTeam = oneRecord("team", teamRecord.shape, getTeam);

/** Its writes: each answers its record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Teams", { settled: "record" });
const one = z.object({ team: Team });
const oneSelected = z.object({ team: TeamSelection });

const list = createRoute({
  ...protectedRoute("Teams"),
  method: "get",
  operationId: "listTeams",
  path: "/teams",
  summary: "List the workspace's teams, each with its parent and members",
  description: listDescription(teamRecord.list, "`filter[eq][parentId]=null` matches top-level teams."),
  request: { query: listQueryFor(teamRecord.list) },
  responses: {
    200: jsonResponse(paginated("teams", TeamSelection), "Teams"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createTeam",
  path: "/teams",
  summary: "Create a team; the caller becomes its OWNER",
  description:
    "Any workspace member may create a top-level team; a sub-team (`parentId`) needs team role ADMIN or higher in the parent, or " +
    "workspace ADMIN/OWNER (403). `prefix` is unique in the workspace (409). An unknown or foreign `parentId` is 404.",
  request: jsonBody(TeamCreate),
  responses: {
    201: createdResponse(one, "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Teams"),
  method: "get",
  operationId: "getTeam",
  path: "/teams/{id}",
  summary: "Get a team with its parent and members",
  description: "`fields` narrows the answer, e.g. `name,prefix,members{name,role}`. Another workspace's team is 404.",
  request: { params: IdParam, query: fieldsQueryFor(teamRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The team"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  // A rename writes an event for each of the team's tasks and projects: 100,000 of them take seconds, more than a write's 5.
  ...protectedRoute("Teams", { settled: "record", writeSeconds: 120 }),
  method: "patch",
  operationId: "updateTeam",
  path: "/teams/{id}",
  summary: "Update a team (team ADMIN/OWNER or workspace ADMIN/OWNER)",
  description:
    "Partial; `parentId: null` makes the team top-level. A new parent needs team role ADMIN or higher in it (or workspace ADMIN/OWNER). " +
    "A prefix another team of the workspace has is 409; a parent that is the team or one of its sub-teams is 422. " +
    "A new `prefix` renames the team's tasks and projects (`ENG-12` becomes `OPS-12`): each gets a `task.updated` or " +
    "`project.updated` event with `changes.reference`, and the old prefix keeps naming the same records until another team takes it.",
  request: { params: IdParam, ...jsonBody(TeamUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteTeam",
  path: "/teams/{id}",
  summary: "Delete a team with its tasks and projects (team OWNER or workspace ADMIN/OWNER)",
  description: "Sub-teams are kept and become top-level.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});

export const teamRoutes = newRouter()
  .openapi(list, reading(list, listing(teamRecord.list, "teams", listTeams)))
  .openapi(create, async (c) => {
    const team = await createTeam(c.get("caller"), c.req.valid("json") as TeamCreateInput);
    return created(c, "team", `/teams/${team.id}`, team);
  })
  .openapi(read, reading(read, readTeam))
  .openapi(update, async (c) => {
    const team = await updateTeam(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as TeamUpdateInput);
    return c.json({ team }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteTeam(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
