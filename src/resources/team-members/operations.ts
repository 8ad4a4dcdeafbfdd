// The team-member operations, one function each. Every write is one statement that authenticates and authorizes itself
// and says why it wrote nothing (guardedWrite); the last-OWNER rule is one of its guards, read under a lock.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { teamMembers, teams, users, workspaceMembers } from "../../../drizzle/schema";
import { actorMay, mayGrantGuards, teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { iso } from "../../core/dates";
import { conflict, forbidden, notFound } from "../../core/errors";
import { newId } from "../../ids";
import { namedId, nameMatch } from "../../records/names";
import { type Guard, guardedDelete, guardedWrite, type Target, updatedRow } from "../../store/guarded";
import type { ListParams } from "../../store/list";
import { readRecord } from "../../store/reads";
import { teamRecord } from "../teams/record";
import {
  JOINED_AT,
  type TeamMemberCreateInput,
  type TeamMemberDto,
  type TeamMemberItemDto,
  type TeamMemberUpdateInput,
  teamMemberItemRecord,
  teamMemberRecord,
} from "./record";

/** The TeamMember answer of membership `id`, read in the statement that wrote it (its CTE `team_members` shadows the table). */
const written = (id: SQL): SQL<TeamMemberDto | null> =>
  sql`(select ${teamMemberRecord.json()} from ${teamMemberRecord.from} where ${teamMembers.id} = ${id})`;

/** The membership `id` in the caller's workspace, with the guards of the write on it. */
function membershipTarget(caller: Caller, id: string, guards: Guard[]): Target {
  return {
    from: sql`${teamMembers}`,
    where: and(eq(teamMembers.id, id), eq(teamMembers.workspaceId, caller.actor.workspace))!,
    columns: { id: teamMembers.id },
    guards,
    name: "Team member",
    team: teamMembers.teamId,
    table: teamMembers,
  };
}

/** Granting or taking away OWNER needs team OWNER or workspace ADMIN/OWNER; `holds` says when the write needs no such right. */
const ownerRights = (caller: Caller, holds: SQL): Guard => ({
  holds: sql`(${holds} or ${actorMay(caller.actor, teamMembers.teamId, "OWNER")})`,
  refusal: () => forbidden("Only a team OWNER or a workspace ADMIN/OWNER may grant or take away the OWNER role"),
});

/**
 * The last OWNER stays: when the target is an OWNER that stops being one, another OWNER of its team must remain. The
 * owners are locked in id order, so concurrent demotions and removals queue rather than deadlock, and the second reads
 * them after the first commits (the owner it took away no longer matches).
 */
const keepsAnOwner: Guard = {
  holds: sql`case when ${teamMembers.role} <> 'OWNER' then true else (select count(*) from (
    select o.id from ${teamMembers} as o where o.team_id = ${teamMembers.teamId} and o.role = 'OWNER' order by o.id for update
  ) as owners where owners.id <> ${teamMembers.id}) > 0 end`,
  refusal: () => conflict("A team must keep at least one OWNER"),
};

/**
 * POST /teams/{id}/members: team MEMBER (or workspace ADMIN/OWNER), never granting a role above one's own team role
 * (requireMayGrant's rule); the user must be a member of the workspace (404) and not yet of the team (409).
 */
export function addTeamMember(caller: Caller, teamId: string, input: TeamMemberCreateInput): Promise<TeamMemberDto> {
  const { actor } = caller;
  const id = newId("tmbr");
  // By id or email, in the statement; an email that names nobody stores nothing (the guard says User not found).
  const userId = namedId("user", input.userId, null);
  const isWorkspaceMember: Guard = {
    holds: sql`exists (select 1 from ${workspaceMembers} where ${workspaceMembers.workspaceId} = ${teams.workspaceId} and ${workspaceMembers.userId} = ${userId})`,
    refusal: () => notFound("User"),
  };
  const team: Target = {
    from: sql`${teams}`,
    where: and(nameMatch("team", teams.id, teamId, actor.workspace), eq(teams.workspaceId, actor.workspace))!,
    columns: { id: teams.id, workspaceId: teams.workspaceId },
    guards: [...mayGrantGuards(actor, teams.id, input.role), isWorkspaceMember],
    name: "Team",
    team: teams.id,
    table: teams,
  };
  return guardedWrite(caller, team, (allowed) => ({
    ctes: [
      sql`team_members as (insert into ${teamMembers} (id, workspace_id, team_id, user_id, role)
        select ${id}, target.${sql.identifier("workspaceId")}, target.id, ${userId}, ${input.role}::team_role
        from target where target.id = ${allowed} returning *)`,
    ],
    result: written(sql`${id}`),
  }));
}

/** PATCH /team-members/{id}: team ADMIN/OWNER or workspace ADMIN/OWNER change roles; OWNER needs ownerRights; the last OWNER stays. */
export function updateTeamMember(caller: Caller, id: string, { role }: TeamMemberUpdateInput): Promise<TeamMemberDto> {
  const guards = [
    teamRoleGuard(caller.actor, teamMembers.teamId, "ADMIN", "change team roles"),
    ownerRights(caller, role === "OWNER" ? sql`false` : sql`${teamMembers.role} <> 'OWNER'`),
    ...(role === "OWNER" ? [] : [keepsAnOwner]),
  ];
  return guardedWrite(caller, membershipTarget(caller, id, guards), (allowed) => ({
    ctes: [updatedRow(caller, "team_members", teamMembers, { role }, allowed)],
    result: written(sql`(select id from team_members)`),
  }));
}

/** DELETE /team-members/{id}: team ADMIN/OWNER or workspace ADMIN/OWNER remove members (an OWNER: ownerRights); anyone may leave; the last OWNER stays. */
export async function removeTeamMember(caller: Caller, id: string): Promise<void> {
  const self = sql`${teamMembers.userId} = ${caller.actor.user}`;
  const guards = [
    teamRoleGuard(caller.actor, teamMembers.teamId, "ADMIN", "remove team members", self),
    ownerRights(caller, sql`(${self} or ${teamMembers.role} <> 'OWNER')`),
    keepsAnOwner,
  ];
  await guardedDelete(caller, membershipTarget(caller, id, guards), teamMembers);
}

/** GET /team-members/{id}, in one statement that authenticates itself. */
export function getTeamMember(caller: Caller, id: string): Promise<TeamMemberDto> {
  return readRecord(caller, teamMemberRecord, id);
}

/**
 * GET /teams/{id}/members: one page. The team is right-joined so that one query tells an unknown team (no row) from a
 * page without members (one row of nulls); filters and the cursor sit in the join condition for that reason.
 */
export function listTeamMembers(caller: Caller, teamId: string, params: ListParams): Promise<TeamMemberItemDto[]> {
  return caller.list(async (actor) => {
    const rows = await caller.db
      .select({ item: teamMemberItemRecord.json(params.fields), membershipId: teamMembers.id, joinedAt: teamMembers.createdAt })
      .from(teamMembers)
      .innerJoin(users, eq(users.id, teamMembers.userId))
      .rightJoin(teams, and(eq(teams.id, teamMembers.teamId), params.where))
      .where(and(teamRecord.inReach(actor), nameMatch("team", teams.id, teamId, actor.workspace)))
      .orderBy(...params.orderBy)
      .limit(params.limit + 1);
    if (rows.length === 0) throw notFound("Team");
    return rows.flatMap(({ item, membershipId, joinedAt }) => (membershipId === null ? [] : [{ ...item, [JOINED_AT]: iso(joinedAt!) }]));
  });
}
