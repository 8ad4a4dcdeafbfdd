import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { teamMembers, teams, users } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { isWorkspaceAdmin, requireTeamRole, TEAM_ROLES, teamRoleAtLeast, type TeamRole } from "../../auth/roles";
import type { Db, Executor, WorkspaceScope } from "../../db/client";
import { conflict, forbidden, notFound } from "../../core/errors";
import type { ListParams, ListSpec } from "../../http/list";
import { iso } from "../../core/dates";
import { newId } from "../../ids";
import { teamForWrite } from "../teams/access";
import { assertWorkspaceMember } from "../users/membership";
import type { TeamMemberCreateInput } from "./schema";
import { memberItemColumns, memberItemShape, teamMemberColumns, type TeamMemberItemRow } from "./serialize";

/** The membership's creation time rides on each item under a symbol: the cursor needs it, the JSON body does not show it. */
const JOINED_AT = Symbol("joinedAt");

export const memberList: ListSpec = {
  resource: "team-members",
  // Items are keyed by user id, unique within a team: it is the tiebreak the cursor carries.
  id: teamMembers.userId,
  fields: {
    id: { expr: teamMembers.userId, kind: "id" },
    name: { expr: users.name, kind: "string" },
    email: { expr: users.email, kind: "string" },
    role: { expr: teamMembers.role, kind: "enum", values: TEAM_ROLES },
    membershipId: { expr: teamMembers.id, kind: "id" },
    createdAt: { expr: teamMembers.createdAt, kind: "datetime", cursorValue: (item) => (item as Record<symbol, unknown>)[JOINED_AT] },
  },
  shape: memberItemShape,
};

/**
 * One page of a team's members. The team is right-joined so that one query tells an unknown team (no row)
 * from a page without members (one row of nulls); filters and the cursor sit in the join condition for that reason.
 */
export async function listMembers(db: Db, workspaceId: WorkspaceScope, teamId: string, params: ListParams) {
  const rows = await db
    .select({ ...memberItemColumns, joinedAt: teamMembers.createdAt })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .rightJoin(teams, and(eq(teams.id, teamMembers.teamId), params.where))
    .where(and(eq(teams.workspaceId, workspaceId), eq(teams.id, teamId)))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  if (rows.length === 0) throw notFound("Team");
  return rows
    .filter((row) => row.membershipId !== null)
    .map(({ joinedAt, ...item }) => ({ ...(item as TeamMemberItemRow), [JOINED_AT]: iso(joinedAt!) }));
}

export async function getTeamMember(db: Executor, workspaceId: WorkspaceScope, id: string) {
  const [row] = await db
    .select(teamMemberColumns)
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(and(eq(teamMembers.workspaceId, workspaceId), eq(teamMembers.id, id)));
  if (!row) throw notFound("Team member");
  return row;
}

/** Needs team MEMBER (or workspace ADMIN/OWNER); nobody grants a role above their own team role unless a workspace ADMIN/OWNER. */
export function addTeamMember(db: Db, principal: Principal, teamId: string, input: TeamMemberCreateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const team = await teamForWrite(tx, principal, teamId, "MEMBER", "add team members");
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
    await tx.update(teamMembers).set({ role, updatedAt: sql`now()` }).where(and(eq(teamMembers.workspaceId, workspaceId), eq(teamMembers.id, id)));
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

const caller = alias(teamMembers, "caller");

/** The membership (in the caller's workspace) and the caller's own role in its team, in one query. */
async function membershipForCaller(tx: Executor, principal: Principal, id: string) {
  const [row] = await tx
    .select({ id: teamMembers.id, teamId: teamMembers.teamId, userId: teamMembers.userId, role: teamMembers.role, callerRole: caller.role })
    .from(teamMembers)
    .leftJoin(caller, and(eq(caller.teamId, teamMembers.teamId), eq(caller.userId, principal.user.id)))
    .where(and(eq(teamMembers.workspaceId, principal.workspace.id), eq(teamMembers.id, id)));
  if (!row) throw notFound("Team member");
  return row;
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
