import { z } from "@hono/zod-openapi";
import { selectable } from "../../http/schemas";

export const UserSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    avatarUrl: z.string().nullable(),
    humanId: z.string().nullable(),
  })
  .openapi("UserSummary");

export const UserSchema = UserSummarySchema.extend({ type: z.enum(["HUMAN", "AGENT"]) }).openapi("User");

export const WorkspaceSchema = z
  .object({ id: z.string(), name: z.string(), slug: z.string(), createdAt: z.string(), updatedAt: z.string() })
  .openapi("Workspace");

export const serializeWorkspace = (w: { id: string; name: string; slug: string; createdAt: Date; updatedAt: Date }) => ({
  id: w.id,
  name: w.name,
  slug: w.slug,
  createdAt: w.createdAt.toISOString(),
  updatedAt: w.updatedAt.toISOString(),
});

/**
 * A user as a member of the current workspace (GET/PATCH /users): the User fields, the workspace `role`, and
 * `createdAt`, when the account was created (for an agent: when its owner created it).
 */
export const WorkspaceUserSchema = UserSchema.extend({
  role: z.enum(["MEMBER", "ADMIN", "OWNER"]).openapi({ description: "The user's role in the current workspace" }),
  createdAt: z.string().openapi({ description: "When the account was created" }),
}).openapi("WorkspaceUser", {
  description: "`humanId` names the owning human of an agent (null for a human); an agent's `email` is `<agent id>@agents.pm.invalid`.",
});

export const UserUpdate = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    avatarUrl: z
      .url({ protocol: /^https?$/, error: "Must be an http(s) URL" })
      .max(2048)
      .nullable()
      .optional(),
    role: z.enum(["MEMBER", "ADMIN", "OWNER"]).optional(),
  })
  .strict()
  .openapi("UserUpdate", {
    description: "Partial. `name` and `avatarUrl` (null clears it) only on yourself or your own agent; `role` needs workspace ADMIN/OWNER.",
  });

export type UserUpdateInput = z.infer<typeof UserUpdate>;
export type WorkspaceUser = z.infer<typeof WorkspaceUserSchema>;

/** What GET /users/{id} and GET /workspaces/{id} answer: their objects, narrowed by `fields`. */
export const WorkspaceUserSelection = selectable(WorkspaceUserSchema, "WorkspaceUserSelection");
export const WorkspaceSelection = selectable(WorkspaceSchema, "WorkspaceSelection");
