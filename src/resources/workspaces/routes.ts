import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { getWorkspace, listWorkspaces, updateWorkspace } from "./operations";
import { WorkspaceSchema, WorkspaceSelection, WorkspaceUpdate, type WorkspaceUpdateInput, workspaceRecord } from "./record";

/** GET /workspaces/{id}'s answer, also what If-Match and the order of checks read. */
const readWorkspace = oneRecord("workspace", workspaceRecord.shape, getWorkspace);

const one = z.object({ workspace: WorkspaceSchema });
const oneSelected = z.object({ workspace: WorkspaceSelection });

const list = createRoute({
  ...protectedRoute("Workspaces"),
  method: "get",
  operationId: "listWorkspaces",
  path: "/workspaces",
  summary: "List the caller's workspaces",
  description: listDescription(workspaceRecord.list, "Every workspace the caller is a member of (not only the credential's current one)."),
  request: { query: listQueryFor(workspaceRecord.list) },
  responses: {
    200: jsonResponse(paginated("workspaces", WorkspaceSelection), "Workspaces (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const read = createRoute({
  ...protectedRoute("Workspaces"),
  method: "get",
  operationId: "getWorkspace",
  path: "/workspaces/{id}",
  summary: "Get a workspace the caller is a member of",
  description: "A workspace the caller is not a member of is 404.",
  request: { params: IdParam, query: fieldsQueryFor(workspaceRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The workspace (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...protectedRoute("Workspaces"),
  method: "patch",
  operationId: "updateWorkspace",
  path: "/workspaces/{id}",
  summary: "Rename a workspace or change its slug",
  description:
    "Needs the caller's ADMIN or OWNER role in that workspace (a MEMBER: 403; not a member: 404). `slug`: lowercase letters, digits and " +
    "hyphens (422 otherwise), unique (409).",
  request: { params: IdParam, ...jsonBody(WorkspaceUpdate) },
  responses: {
    200: jsonResponse(one, "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});

export const workspaceRoutes = newRouter()
  .openapi(list, reading(list, listing(workspaceRecord.list, "workspaces", listWorkspaces)))
  .openapi(read, reading(read, readWorkspace))
  .openapi(update, async (c) => {
    const workspace = await updateWorkspace(c.get("caller"), c.req.valid("param").id, c.req.valid("json") as WorkspaceUpdateInput);
    return c.json({ workspace }, 200);
  });
