import { and, eq, sql } from "drizzle-orm";
import { teamMembers } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { isWorkspaceAdmin, requireTeamRole, type TeamRole, teamRoleAtLeast } from "../../auth/roles";
import { conflict, forbidden } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { teamForCaller } from "../teams/access";
import { assertWorkspaceMember } from "../users/membership";
import { membershipForCaller } from "./access";
import { getTeamMember } from "./queries";
import type { TeamMemberCreateInput } from "./schema";

/** Needs team MEMBER (or workspace ADMIN/OWNER); nobody grants a role above their own team role unless a workspace ADMIN/OWNER. */
export function addTeamMember(db: Db, principal: Principal, teamId: string, input: TeamMemberCreateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const team = await teamForCaller(tx, principal, teamId, { min: "MEMBER", what: "add team members" });
    if (!isWorkspaceAdmin(principal) && !teamRoleAtLeast(team.callerRole, input.role)) {
      throw forbidden(`You cannot grant team role ${input.role}, which is above your own`);
    }
    await assertWorkspaceMember(tx, workspaceId, input.userId);
    const id = newId("tmbr");
    await tx.insert(teamMembers).values({ id, workspaceId, teamId, userId: input.userId, role: input.role });
    return getTeamMember(tx, workspaceId, id);
  });
}

export function updateTeamMember(db: Db, principal: Principal, id: string, role: TeamRole) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const target = await membershipForCaller(tx, principal, id);
    requireTeamRole(principal, target.callerRole, "ADMIN", "change team roles");
    if (role === "OWNER" || target.role === "OWNER") requireOwnerRights(principal, target.callerRole);
    if (target.role === "OWNER" && role !== "OWNER") await keepAnOwner(tx, target);
    await tx
      .update(teamMembers)
      .set({ role, updatedAt: sql`now()` })
      .where(and(eq(teamMembers.workspaceId, workspaceId), eq(teamMembers.id, id)));
    return getTeamMember(tx, workspaceId, id);
  });
}

/** Team ADMIN/OWNER or workspace ADMIN/OWNER remove members; anyone may leave. The last OWNER stays either way. */
export function removeTeamMember(db: Db, principal: Principal, id: string) {
  return db.transaction(async (tx) => {
    const target = await membershipForCaller(tx, principal, id);
    if (target.userId !== principal.user.id) {
      requireTeamRole(principal, target.callerRole, "ADMIN", "remove team members");
      if (target.role === "OWNER") requireOwnerRights(principal, target.callerRole);
    }
    if (target.role === "OWNER") await keepAnOwner(tx, target);
    await tx.delete(teamMembers).where(and(eq(teamMembers.workspaceId, principal.workspace.id), eq(teamMembers.id, id)));
  });
}

function requireOwnerRights(principal: Principal, callerRole: TeamRole | null) {
  if (!isWorkspaceAdmin(principal) && callerRole !== "OWNER") {
    throw forbidden("Only a team OWNER or a workspace ADMIN/OWNER may grant or take away the OWNER role");
  }
}

/**
 * 409 unless another OWNER remains once `leaving` stops being one. The owner rows are locked (in id order, so
 * concurrent callers queue rather than deadlock): of two concurrent demotions, the second re-reads the rows
 * after the first commits and sees the owner it took away gone.
 */
async function keepAnOwner(tx: Executor, leaving: { id: string; teamId: string }) {
  const owners = await tx
    .select({ id: teamMembers.id })
    .from(teamMembers)
    .where(and(eq(teamMembers.teamId, leaving.teamId), eq(teamMembers.role, "OWNER")))
    .orderBy(teamMembers.id)
    .for("update");
  if (!owners.some((owner) => owner.id !== leaving.id)) throw conflict("A team must keep at least one OWNER");
}
