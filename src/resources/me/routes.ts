import { createRoute, z } from "@hono/zod-openapi";
import { requireAuth } from "../../auth/middleware";
import { errorResponses, jsonResponse, security } from "../../http/openapi";
import { newRouter } from "../../http/router";
import { UserSchema, WorkspaceSchema, serializeWorkspace } from "../users/schema";

const me = createRoute({
  method: "get",
  path: "/me",
  tags: ["Account"],
  summary: "The caller, their current workspace and their role in it",
  security,
  middleware: [requireAuth] as const,
  responses: {
    200: jsonResponse(
      z.object({ user: UserSchema, workspace: WorkspaceSchema, role: z.enum(["MEMBER", "ADMIN", "OWNER"]) }),
      "The caller",
    ),
    ...errorResponses(["UNAUTHORIZED"]),
  },
});

// The principal already holds everything: /me costs exactly the authentication query.
export const meRoutes = newRouter().openapi(me, (c) => {
  const { user, workspace, role } = c.get("principal");
  return c.json({ user, workspace: serializeWorkspace(workspace), role }, 200);
});
