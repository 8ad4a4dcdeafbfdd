import { and, eq } from "drizzle-orm";
import { teamMembers, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { requireTeamRole, type TeamRole } from "../../auth/roles";
import type { Executor } from "../../db/client";
import { notFound } from "../../core/errors";

export interface TeamForCaller {
  id: string;
  name: string;
  prefix: string;
  parentId: string | null;
  /** The caller's own role in the team (null when not a member); workspace ADMIN/OWNER act above it. */
  callerRole: TeamRole | null;
}

/** The team (in the caller's workspace) and the caller's role in it, in one query; NOT_FOUND otherwise. */
export async function teamForCaller(db: Executor, principal: Principal, teamId: string): Promise<TeamForCaller> {
  const [team] = await db
    .select({ id: teams.id, name: teams.name, prefix: teams.prefix, parentId: teams.parentId, callerRole: teamMembers.role })
    .from(teams)
    .leftJoin(teamMembers, and(eq(teamMembers.teamId, teams.id), eq(teamMembers.userId, principal.user.id)))
    .where(and(eq(teams.workspaceId, principal.workspace.id), eq(teams.id, teamId)))
    .limit(1);
  if (!team) throw notFound("Team");
  return team;
}

/** The team, after checking the caller may act on it with at least `min` (contract §4 write rules). */
export async function teamForWrite(db: Executor, principal: Principal, teamId: string, min: TeamRole = "MEMBER", what = "change this team's work") {
  const team = await teamForCaller(db, principal, teamId);
  requireTeamRole(principal, team.callerRole, min, what);
  return team;
}
