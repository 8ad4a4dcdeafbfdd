// The workspace operations, one function each: the caller's workspaces (any they are a member of, not only the
// credential's), and a rename or new slug in one statement that authenticates and authorizes itself (guardedWrite).
import { and, eq, sql } from "drizzle-orm";
import { workspaceMembers, workspaces } from "../../../drizzle/schema";
import type { Caller } from "../../auth/caller";
import { workspaceRoleSql } from "../../auth/roles";
import { forbidden, notFound } from "../../core/errors";
import { guardedWrite, updatedRow } from "../../store/guarded";
import { type FieldSelection, type ListParams, pageQuery } from "../../store/list";
import { type WorkspaceDto, type WorkspaceUpdateInput, workspaceRecord } from "./record";

/** The caller's memberships with their workspaces: the FROM of a read of the caller's workspaces. */
const memberships = sql`${workspaceMembers} join ${workspaces} on ${workspaces.id} = ${workspaceMembers.workspaceId}`;

/**
 * PATCH /workspaces/{id}: needs the caller's ADMIN or OWNER role in that workspace (a MEMBER: 403; not a member: 404, its
 * existence not revealed); a slug another workspace has is 409.
 */
export function updateWorkspace(caller: Caller, id: string, input: WorkspaceUpdateInput): Promise<WorkspaceDto> {
  const target = {
    from: memberships,
    where: and(eq(workspaces.id, id), eq(workspaceMembers.userId, caller.actor.user))!,
    columns: { id: workspaces.id },
    guards: [
      {
        holds: workspaceRoleSql(sql`${workspaceMembers.role}`, "ADMIN"),
        refusal: () => forbidden("Only a workspace ADMIN or OWNER may change the workspace"),
      },
    ],
    name: "Workspace",
    team: null,
  };
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [updatedRow(caller, "workspaces", workspaces, { ...input }, allowed)],
    result: sql`(select ${workspaceRecord.json()} from ${workspaceRecord.from})`,
  }));
}

/** GET /workspaces/{id}: a workspace the caller is a member of (any other is NOT_FOUND), in one statement. */
export function getWorkspace(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<WorkspaceDto> {
  return caller.read(async ({ user }) => {
    const [row] = await caller.db
      .select({ workspace: workspaceRecord.json(fields) })
      .from(memberships)
      .where(and(eq(workspaceMembers.userId, user), eq(workspaceMembers.workspaceId, id)));
    if (!row) throw notFound("Workspace");
    return row.workspace;
  });
}

/** GET /workspaces: one page of the workspaces the caller is a member of. */
export function listWorkspaces(caller: Caller, params: ListParams): Promise<WorkspaceDto[]> {
  return caller.list(async ({ user }) => {
    const rows = await pageQuery(
      caller.db
        .select({ workspace: workspaceRecord.json(params.fields) })
        .from(memberships)
        .$dynamic(),
      eq(workspaceMembers.userId, user),
      params,
    );
    return rows.map((row) => row.workspace);
  });
}
