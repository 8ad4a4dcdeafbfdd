import { z } from "@hono/zod-openapi";

export { serializeWorkspace, WorkspaceSchema } from "../users/schema";

export const WorkspaceUpdate = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    slug: z
      .string()
      .min(1)
      .max(63)
      .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "Must be lowercase letters, digits and single hyphens between them")
      .optional(),
  })
  .strict()
  .openapi("WorkspaceUpdate", { description: "Partial. `slug` is unique across the service (409 when taken)." });

export type WorkspaceUpdateInput = z.infer<typeof WorkspaceUpdate>;
