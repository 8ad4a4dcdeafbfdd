import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { ALSO_WRITTEN, ASK_WORKSPACE } from "../../middleware/edge-workspace";
import { getUser, listUsers, otherWorkspacesOf, PROFILE_FIELDS, removeUser, updateUser } from "./operations";
import { UserUpdate, type UserUpdateInput, WorkspaceUserSchema, WorkspaceUserSelection, workspaceUserRecord } from "./record";

/** GET /users/{id}'s answer, also what If-Match and the order of checks read. */
const readUser = oneRecord("user", workspaceUserRecord.shape, getUser);

const one = z.object({ user: WorkspaceUserSchema });
const oneSelected = z.object({ user: WorkspaceUserSelection });

const list = createRoute({
  ...protectedRoute("Users"),
  method: "get",
  operationId: "listUsers",
  path: "/users",
  summary: "List the workspace's members",
  description: listDescription(
    workspaceUserRecord.list,
    "Humans and agents of the current workspace, each with their workspace `role`. `createdAt` is when the account was created. " +
      "`filter[eq][humanId]=null` matches people.",
  ),
  request: { query: listQueryFor(workspaceUserRecord.list) },
  responses: {
    200: jsonResponse(paginated("users", WorkspaceUserSelection), "Members (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Users"),
  method: "get",
  operationId: "getUser",
  path: "/users/{id}",
  summary: "Get a member of the workspace",
  description:
    "`humanId` names the owning human of an agent (null for a human). A user who is not a member of the current workspace is 404.",
  request: { params: IdParam, query: fieldsQueryFor(workspaceUserRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The user (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...protectedRoute("Users"),
  method: "patch",
  operationId: "updateUser",
  path: "/users/{id}",
  summary: "Change a member's profile or workspace role",
  description:
    "`name` and `avatarUrl` change only on yourself or on an agent you own (anyone else: 403). `role` needs workspace ADMIN or OWNER; " +
    "granting OWNER or changing an OWNER's role needs an OWNER, and a credential bound to teams changes no role (403). " +
    "The last OWNER keeps the role (409), also under concurrent requests.",
  request: { params: IdParam, ...jsonBody(UserUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...protectedRoute("Users"),
  method: "delete",
  operationId: "deleteUser",
  path: "/users/{id}",
  summary: "Remove a member from the workspace",
  description:
    "Needs workspace ADMIN or OWNER (anyone may remove themself, and a human their own agent); removing an OWNER needs an OWNER, and the " +
    "last OWNER stays (409). The member's agents leave the workspace with them. Their API keys for this workspace, and their agents', stop " +
    "working at once; their team memberships in the workspace are removed. The account itself, other workspaces, and their tasks, " +
    "comments and assignments stay.",
  request: { params: IdParam },
  responses: { 204: { description: "Removed" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"]) },
});

export const userRoutes = newRouter()
  .openapi(list, reading(list, listing(workspaceUserRecord.list, "users", listUsers)))
  .openapi(read, reading(read, readUser))
  .openapi(update, async (c) => {
    const input = c.req.valid("json") as UserUpdateInput;
    const user = await updateUser(c.get("caller"), c.req.valid("param").id, input);
    // Behind the front Worker, a profile change also stales the person's other workspaces' stored answers (GET /me there).
    if (c.req.header(ASK_WORKSPACE) && PROFILE_FIELDS.some((f) => input[f] !== undefined)) {
      const others = await otherWorkspacesOf(c.get("caller"), user.id);
      if (others.length > 0) c.header(ALSO_WRITTEN, others.join(","));
    }
    return c.json({ user }, 200);
  })
  .openapi(remove, async (c) => {
    await removeUser(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
