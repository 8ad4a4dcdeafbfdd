import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { addTeamMember, getTeamMember, listTeamMembers, removeTeamMember, updateTeamMember } from "./operations";
import {
  TeamMember,
  TeamMemberCreate,
  type TeamMemberCreateInput,
  TeamMemberItemSelection,
  TeamMemberSelection,
  TeamMemberUpdate,
  teamMemberItemRecord,
  teamMemberRecord,
} from "./record";

/** GET /team-members/{id}'s answer, also what If-Match and the order of checks read. */
const readTeamMember = oneRecord("teamMember", teamMemberRecord.shape, getTeamMember);

const base = protectedRoute("Team members");
const one = z.object({ teamMember: TeamMember });
const oneSelected = z.object({ teamMember: TeamMemberSelection });

const list = createRoute({
  ...protectedRoute("Team members"),
  method: "get",
  operationId: "listTeamMembers",
  path: "/teams/{id}/members",
  summary: "List a team's members",
  description: listDescription(
    teamMemberItemRecord.list,
    "Items carry the user (`id` is the user id), the team `role` and `membershipId`. Default order: oldest membership first (`createdAt` is the membership's).",
  ),
  request: { params: IdParam, query: listQueryFor(teamMemberItemRecord.list) },
  responses: {
    200: jsonResponse(paginated("members", TeamMemberItemSelection), "Members"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "addTeamMember",
  path: "/teams/{id}/members",
  summary: "Add a workspace member to the team",
  description:
    "Needs team role MEMBER or higher (or workspace ADMIN/OWNER); `role` defaults to MEMBER and may not exceed the caller's own team role unless the caller is a workspace ADMIN/OWNER. A user outside the workspace is 404; an existing member is 409.",
  request: { params: IdParam, ...jsonBody(TeamMemberCreate) },
  responses: {
    201: createdResponse(one, "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Team members"),
  method: "get",
  operationId: "getTeamMember",
  path: "/team-members/{id}",
  summary: "Get a team membership",
  description: "By membership id (`tmbr_…`); `fields` narrows the answer. Another workspace's membership is 404.",
  request: { params: IdParam, query: fieldsQueryFor(teamMemberRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The team member"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateTeamMember",
  path: "/team-members/{id}",
  summary: "Change a member's team role",
  description:
    "Needs team ADMIN/OWNER or workspace ADMIN/OWNER; granting or taking away OWNER needs team OWNER or workspace ADMIN/OWNER. Demoting the last OWNER is 409.",
  request: { params: IdParam, ...jsonBody(TeamMemberUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteTeamMember",
  path: "/team-members/{id}",
  summary: "Remove a member from the team, or leave it",
  description:
    "Needs team ADMIN/OWNER or workspace ADMIN/OWNER (removing an OWNER: team OWNER or workspace ADMIN/OWNER); any member may remove themself. Removing the last OWNER is 409.",
  request: { params: IdParam },
  responses: { 204: { description: "Removed" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"]) },
});

export const teamMemberRoutes = newRouter()
  .openapi(
    list,
    reading(
      list,
      listing(teamMemberItemRecord.list, "members", (caller, params, param) => listTeamMembers(caller, param.id, params)),
    ),
  )
  .openapi(create, async (c) => {
    const input = c.req.valid("json") as TeamMemberCreateInput;
    const teamMember = await addTeamMember(c.get("caller"), c.req.valid("param").id, input);
    return created(c, "teamMember", `/team-members/${teamMember.id}`, teamMember);
  })
  .openapi(read, reading(read, readTeamMember))
  .openapi(update, async (c) => {
    const teamMember = await updateTeamMember(c.get("caller"), c.req.valid("param").id, c.req.valid("json"));
    return c.json({ teamMember }, 200);
  })
  .openapi(remove, async (c) => {
    await removeTeamMember(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
