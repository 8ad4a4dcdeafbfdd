import { and, eq, inArray, sql } from "drizzle-orm";
import { workspaceMembers, workspaces } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { forbidden, notFound } from "../../core/errors";
import type { Db } from "../../db/client";
import { serializeWorkspace } from "../users/schema";
import type { WorkspaceUpdateInput } from "./schema";

/**
 * Renames a workspace or changes its slug: one statement that also checks that the caller is its ADMIN/OWNER.
 * Only when it changed nothing does a second query tell 404 (not a member) from 403 (a MEMBER).
 */
export async function updateWorkspace(db: Db, principal: Principal, id: string, input: WorkspaceUpdateInput) {
  const userId = principal.user.id;
  const [row] = await db
    .update(workspaces)
    .set({ ...input, updatedAt: sql`now()` })
    .where(
      and(
        eq(workspaces.id, id),
        sql`exists (${db
          .select({ one: sql`1` })
          .from(workspaceMembers)
          .where(
            and(
              eq(workspaceMembers.workspaceId, id),
              eq(workspaceMembers.userId, userId),
              inArray(workspaceMembers.role, ["ADMIN", "OWNER"]),
            ),
          )})`,
      ),
    )
    .returning();
  if (row) return serializeWorkspace(row);
  const [member] = await db
    .select({ role: workspaceMembers.role })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, id), eq(workspaceMembers.userId, userId)));
  if (!member) throw notFound("Workspace");
  throw forbidden("Only a workspace ADMIN or OWNER may change the workspace");
}
