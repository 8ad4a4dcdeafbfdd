import { z } from "@hono/zod-openapi";

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
