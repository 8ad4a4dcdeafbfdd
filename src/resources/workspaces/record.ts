// The Workspace record: its one field map (answer, schema, `fields` shape, list spec, update body, export fields).
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { workspaces } from "../../../drizzle/schema";
import { idKind, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import { BodyId } from "../../store/schemas";

/** How a request names a workspace: by its id (`ws_…`) only. */
export const WORKSPACE_ID = idKind("a workspace id", "ws");

/** A workspace's name, as signup, a rename and an import take it. */
export const WorkspaceName = z.string().trim().min(1).max(200);

export const workspaceRecord = defineRecord({
  name: "Workspace",
  resource: "workspaces",
  id: workspaces.id,
  workspace: workspaces.id,
  team: null,
  from: sql`${workspaces}`,
  fields: {
    id: f.id(workspaces.id, { names: named(WORKSPACE_ID), exported: BodyId }),
    name: f.text(workspaces.name, { input: { schema: WorkspaceName }, exported: true }),
    slug: f.text(workspaces.slug, {
      input: {
        schema: z
          .string()
          .min(1)
          .max(63)
          .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "Must be lowercase letters, digits and single hyphens between them"),
      },
      exported: z.string().max(100),
    }),
    createdAt: f.datetime(workspaces.createdAt),
    updatedAt: f.datetime(workspaces.updatedAt),
  },
});

export const WorkspaceSchema = workspaceRecord.schema;
export type WorkspaceDto = z.infer<typeof WorkspaceSchema>;
export const WorkspaceSelection = workspaceRecord.selection;

export const WorkspaceUpdate = z
  .object(workspaceRecord.inputShape())
  .partial()
  .strict()
  .openapi("WorkspaceUpdate", { description: "Partial. `slug` is unique across the service (409 when taken)." });
export interface WorkspaceUpdateInput {
  name?: string;
  slug?: string;
}

/** A workspace row as the Workspace answer, for the one answer not built by PostgreSQL (transfer's workspace import). */
export const serializeWorkspace = (w: { id: string; name: string; slug: string; createdAt: Date; updatedAt: Date }): WorkspaceDto => ({
  id: w.id,
  name: w.name,
  slug: w.slug,
  createdAt: w.createdAt.toISOString(),
  updatedAt: w.updatedAt.toISOString(),
});
