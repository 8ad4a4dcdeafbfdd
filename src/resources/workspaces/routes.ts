import { createRoute, z } from "@hono/zod-openapi";
import { listParams } from "../../auth/middleware";
import { protectedRoute } from "../../auth/route-base";
import { listBody, parseFields, projectFields } from "../../http/list";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { newRouter } from "../../http/router";
import { fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/schemas";
import { WorkspaceSelection } from "../users/schema";
import { getWorkspace, listWorkspaces, workspaceList } from "./queries";
import { WorkspaceSchema, WorkspaceUpdate } from "./schema";
import { updateWorkspace } from "./service";

const one = z.object({ workspace: WorkspaceSchema });
const oneSelected = z.object({ workspace: WorkspaceSelection });

const list = createRoute({
  ...protectedRoute("Workspaces"),
  method: "get",
  operationId: "listWorkspaces",
  path: "/workspaces",
  summary: "List the caller's workspaces",
  description: listDescription(workspaceList, "Every workspace the caller is a member of (not only the credential's current one)."),
  request: { query: listQueryFor(workspaceList) },
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
  request: { params: IdParam, query: fieldsQueryFor(workspaceList.shape) },
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
  .openapi(list, async (c) => {
    const params = await listParams(c, workspaceList);
    const rows = await c.get("caller").list(({ workspace: _, user }) => listWorkspaces(c.get("rdb").db, user, params));
    return c.json(await listBody("workspaces", params, rows), 200);
  })
  .openapi(read, async (c) => {
    const fields = parseFields(c.req.valid("query").fields, workspaceList.shape);
    const { id } = c.req.valid("param");
    const workspace = await c.get("caller").read(({ workspace: _, user }) => getWorkspace(c.get("rdb").db, user, id));
    return c.json({ workspace: projectFields(workspace, fields) }, 200);
  })
  .openapi(update, async (c) => {
    const workspace = await updateWorkspace(
      c.get("rdb").db,
      await c.get("caller").principal(),
      c.req.valid("param").id,
      c.req.valid("json"),
    );
    return c.json({ workspace }, 200);
  });
