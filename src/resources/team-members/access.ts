import { and, eq } from "drizzle-orm";
import { teamMembers } from "../../../drizzle/schema";
import { type Access, callerTeamRole, rowForCaller } from "../../auth/access";
import type { Principal } from "../../auth/principal";
import type { Executor } from "../../db/client";

/** The membership (in the caller's workspace) and the caller's own role in its team, in one query; NOT_FOUND otherwise. */
export function membershipForCaller(db: Executor, principal: Principal, id: string, access: Access = {}) {
  const query = db
    .select({
      id: teamMembers.id,
      teamId: teamMembers.teamId,
      userId: teamMembers.userId,
      role: teamMembers.role,
      callerRole: callerTeamRole(principal.user.id, teamMembers.teamId),
    })
    .from(teamMembers)
    .where(and(eq(teamMembers.workspaceId, principal.workspace.id), eq(teamMembers.id, id)))
    .$dynamic();
  return rowForCaller(principal, query, { table: teamMembers, name: "Team member" }, access);
}
