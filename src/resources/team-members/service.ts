import { and, eq, isNotNull, ne, or, type SQL, sql } from "drizzle-orm";
import { teamMembers, teams, workspaceMembers } from "../../../drizzle/schema";
import { actorMay } from "../../auth/access";
import { type Actor, type Principal, principalActor } from "../../auth/principal";
import { isWorkspaceAdmin, requireMayGrant, requireTeamRole, type TeamRole } from "../../auth/roles";
import { conflict, forbidden, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { assertWorkspaceMember } from "../../records/users";
import { teamForCaller } from "../teams/access";
import { membershipForCaller } from "./access";
import { getTeamMember, selectTeamMember } from "./queries";
import type { TeamMemberCreateInput } from "./schema";

/**
 * Needs team MEMBER (or workspace ADMIN/OWNER); nobody grants a role above their own team role unless a workspace
 * ADMIN/OWNER. ONE statement (sent as one transaction) inserts under those rules, the user a member of the
 * workspace, and returns the TeamMember; when it writes nothing, the checked transaction decides with its errors.
 */
export async function addTeamMember(db: Db, principal: Principal, teamId: string, input: TeamMemberCreateInput) {
  const workspaceId = principal.workspace.id;
  const id = newId("tmbr");
  const team = sql`(select ${teams.id} from ${teams} where ${and(eq(teams.workspaceId, workspaceId), eq(teams.id, teamId))})`;
  // Every column in the table's order, as INSERT … SELECT takes them.
  const insert = db
    .insert(teamMembers)
    .select(
      db
        .select({
          id: sql<string>`${id}`.as("id"),
          workspaceId: workspaceMembers.workspaceId,
          teamId: sql<string>`${team}`.as("team_id"),
          userId: workspaceMembers.userId,
          role: sql<TeamRole>`${input.role}::team_role`.as("role"),
          createdAt: sql<Date>`now()`.as("created_at"),
          updatedAt: sql<Date>`now()`.as("updated_at"),
        })
        .from(workspaceMembers)
        .where(
          and(
            eq(workspaceMembers.workspaceId, workspaceId),
            eq(workspaceMembers.userId, input.userId),
            isNotNull(team),
            actorMay(principalActor(principal), team, "MEMBER"),
            actorMay(principalActor(principal), team, input.role),
          ),
        ),
    )
    .returning();
  const added = await selectTeamMember(db, workspaceId, id, insert.getSQL());
  if (added) return added;
  return db.transaction(async (tx) => {
    const found = await teamForCaller(tx, principal, teamId);
    requireMayGrant(principal, found.callerRole, input.role);
    await assertWorkspaceMember(tx, workspaceId, input.userId);
    await tx.insert(teamMembers).values({ id, workspaceId, teamId, userId: input.userId, role: input.role });
    return getTeamMember(tx, workspaceId, id);
  });
}

/**
 * Team ADMIN/OWNER (or workspace ADMIN/OWNER) change roles; only an OWNER (or workspace ADMIN/OWNER) grants or
 * takes away OWNER, and the last OWNER stays. When neither the old nor the new role is OWNER the rule is the team
 * role alone: ONE statement, which authenticates itself, changes the role under it and returns the TeamMember.
 * Otherwise, or when it wrote nothing, the checked transaction decides, with its errors.
 */
export function setTeamMemberRole(db: Db, actor: Actor, id: string, role: Exclude<TeamRole, "OWNER">) {
  return changeRole(db, actor.workspace, id, role, and(actorMay(actor, teamMembers.teamId, "ADMIN"), ne(teamMembers.role, "OWNER")));
}

/** The role change itself, returning the TeamMember; `guard` makes it refuse in SQL. */
const changeRole = (exec: Executor, workspace: Actor["workspace"], id: string, role: TeamRole, guard?: SQL) =>
  selectTeamMember(
    exec,
    workspace,
    id,
    exec
      .update(teamMembers)
      .set({ role, updatedAt: sql`now()` })
      .where(and(eq(teamMembers.workspaceId, workspace), eq(teamMembers.id, id), guard))
      .returning()
      .getSQL(),
  );

/**
 * The checked transaction of a role change, when the common one (setTeamMemberRole) does not apply or wrote
 * nothing: OWNER rights, the last-OWNER lock and every refusal.
 */
export function updateTeamMemberChecked(db: Db, principal: Principal, id: string, role: TeamRole) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const target = await membershipForCaller(tx, principal, id);
    requireTeamRole(principal, target.callerRole, "ADMIN", "change team roles");
    if (role === "OWNER" || target.role === "OWNER") requireOwnerRights(principal, target.callerRole);
    if (target.role === "OWNER" && role !== "OWNER") await keepAnOwner(tx, target);
    const changed = await changeRole(tx, workspaceId, id, role);
    if (!changed) throw notFound("Team member");
    return changed;
  });
}

/**
 * Team ADMIN/OWNER or workspace ADMIN/OWNER remove members; anyone may leave. The last OWNER stays either way.
 * A member who is not an OWNER goes in ONE guarded statement; an OWNER (or a refusal) takes the checked transaction.
 */
export async function removeNonOwner(db: Db, actor: Actor, id: string): Promise<boolean> {
  const mayRemove = or(eq(teamMembers.userId, actor.user), actorMay(actor, teamMembers.teamId, "ADMIN"));
  const removed = await db
    .delete(teamMembers)
    .where(and(eq(teamMembers.workspaceId, actor.workspace), eq(teamMembers.id, id), ne(teamMembers.role, "OWNER"), mayRemove))
    .returning({ id: teamMembers.id });
  return removed.length > 0;
}

/** The checked removal (after removeNonOwner, one statement that may authenticate itself, removed nothing). */
export async function removeTeamMemberChecked(db: Db, principal: Principal, id: string) {
  const workspaceId = principal.workspace.id;
  await db.transaction(async (tx) => {
    const target = await membershipForCaller(tx, principal, id);
    if (target.userId !== principal.user.id) {
      requireTeamRole(principal, target.callerRole, "ADMIN", "remove team members");
      if (target.role === "OWNER") requireOwnerRights(principal, target.callerRole);
    }
    if (target.role === "OWNER") await keepAnOwner(tx, target);
    await tx.delete(teamMembers).where(and(eq(teamMembers.workspaceId, workspaceId), eq(teamMembers.id, id)));
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
