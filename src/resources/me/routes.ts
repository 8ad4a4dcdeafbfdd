import { createRoute, z } from "@hono/zod-openapi";
import { READABLE, SCOPES } from "../../core/scopes";
import { errorResponses, jsonResponse } from "../../http/openapi";
import { reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { UserSchema } from "../users/record";
import { WorkspaceSchema } from "../workspaces/record";
import { getMe } from "./operations";

const me = createRoute({
  method: "get",
  operationId: "getMe",
  path: "/me",
  // Any live credential may ask who it is (with its scopes).
  ...protectedRoute("Account", { scope: null }),
  summary: "The caller, their current workspace and their role in it",
  description: "The workspace is the credential's: an API key's workspace, or the `wid` of a JWT.",
  responses: {
    200: jsonResponse(
      z.object({
        user: UserSchema,
        workspace: WorkspaceSchema,
        role: z.enum(["MEMBER", "ADMIN", "OWNER"]),
        scopes: z.array(z.enum(SCOPES)).openapi({ description: "What this credential may do, within the role" }),
        reads: z.array(z.enum(READABLE)).openapi({
          description: "The resources this credential reads: `read` reads everything, a `<records>:write` scope its records",
        }),
        teamIds: z.array(z.string()).nullable().openapi({ description: "The only teams this credential reaches; null: every team" }),
        teams: z
          .array(z.object({ id: z.string(), prefix: z.string(), name: z.string() }))
          .nullable()
          .openapi({
            description: "Those teams with their prefix and name (by prefix), whatever the credential may read; null: every team",
          }),
      }),
      "The caller",
    ),
    ...errorResponses(["UNAUTHORIZED"]),
  },
});

export const meRoutes = newRouter().openapi(
  me,
  reading(me, ({ caller }) => getMe(caller)),
);
