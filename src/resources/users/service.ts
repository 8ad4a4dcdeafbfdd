import { and, eq, inArray, or, sql } from "drizzle-orm";
import { teamMembers, users, workspaceMembers } from "../../../drizzle/schema";
import type { Principal, WorkspaceRole } from "../../auth/principal";
import { requireWorkspaceRole } from "../../auth/roles";
import { conflict, forbidden, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { getUser } from "./queries";
import type { UserUpdateInput } from "./schema";

/** Whether the caller speaks for `target`: it is the caller, or an agent the caller owns. */
const speaksFor = (principal: Principal, target: { id: string; humanId: string | null }) =>
  target.id === principal.user.id || target.humanId === principal.user.id;

/**
 * 409 unless an OWNER outside `leaving` remains. The owner rows are locked in user-id order, so concurrent
 * demotions and removals queue rather than deadlock, and the second re-reads the rows after the first commits:
 * the owner the first took away no longer matches `role = 'OWNER'`.
 */
async function keepAnOwner(tx: Executor, workspaceId: string, leaving: string[]) {
  const owners = await tx
    .select({ userId: workspaceMembers.userId })
    .from(workspaceMembers)
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.role, "OWNER")))
    .orderBy(workspaceMembers.userId)
    .for("update");
  if (!owners.some((owner) => !leaving.includes(owner.userId))) throw conflict("A workspace must keep at least one OWNER");
}

/**
 * `name`/`avatarUrl`: only on yourself (or your own agent). `role`: workspace ADMIN/OWNER; granting OWNER or
 * changing an OWNER's role needs an OWNER; the last OWNER keeps the role (409).
 */
export function updateUser(db: Db, principal: Principal, id: string, input: UserUpdateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const [target] = await tx
      .select({ id: users.id, humanId: users.humanId, role: workspaceMembers.role })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.userId))
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, id)));
    if (!target) throw notFound("User");

    const profile = { name: input.name, avatarUrl: input.avatarUrl };
    const profileChange = profile.name !== undefined || profile.avatarUrl !== undefined;
    if (profileChange && !speaksFor(principal, target)) throw forbidden("You can only change your own name and avatar (or your agents')");
    if (input.role !== undefined) await checkRoleChange(tx, principal, target, input.role);

    if (profileChange)
      await tx
        .update(users)
        .set({ ...profile, updatedAt: sql`now()` })
        .where(eq(users.id, id));
    if (input.role !== undefined && input.role !== target.role) {
      await tx
        .update(workspaceMembers)
        .set({ role: input.role, updatedAt: sql`now()` })
        .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, id)));
    }
    return getUser(tx, workspaceId, id);
  });
}

async function checkRoleChange(tx: Executor, principal: Principal, target: { id: string; role: WorkspaceRole }, role: WorkspaceRole) {
  requireWorkspaceRole(principal, "ADMIN", "change workspace roles");
  if (role === target.role) return;
  if (role === "OWNER" || target.role === "OWNER") requireWorkspaceRole(principal, "OWNER", "grant or take away the OWNER role");
  if (target.role === "OWNER") await keepAnOwner(tx, principal.workspace.id, [target.id]);
}

/**
 * Removes a member from the workspace (ADMIN/OWNER; anyone may leave, and a human may remove their own agent),
 * together with their agents in it. Their team memberships in the workspace go; their API keys for it go with
 * the membership (api_keys_membership_fk), so those keys are 401 from the next request on. Removing an OWNER
 * needs an OWNER, and the last OWNER stays (409).
 */
export function removeUser(db: Db, principal: Principal, id: string) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    // The member and their agents in this workspace, in one read.
    const leaving = await tx
      .select({ id: users.id, humanId: users.humanId, role: workspaceMembers.role })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.userId))
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), or(eq(users.id, id), eq(users.humanId, id))));
    const target = leaving.find((u) => u.id === id);
    if (!target) throw notFound("User");

    if (!speaksFor(principal, target)) requireWorkspaceRole(principal, "ADMIN", "remove members");
    const ids = leaving.map((u) => u.id);
    if (leaving.some((u) => u.role === "OWNER")) {
      if (leaving.some((u) => u.role === "OWNER" && u.id !== principal.user.id))
        requireWorkspaceRole(principal, "OWNER", "remove an OWNER");
      await keepAnOwner(tx, workspaceId, ids);
    }

    await tx.delete(teamMembers).where(and(eq(teamMembers.workspaceId, workspaceId), inArray(teamMembers.userId, ids)));
    await tx.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.userId, ids)));
  });
}
