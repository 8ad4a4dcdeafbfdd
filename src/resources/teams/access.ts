import { and, eq } from "drizzle-orm";
import { teams } from "../../../drizzle/schema";
import { type Access, callerTeamRole, rowForCaller } from "../../auth/access";
import type { Principal } from "../../auth/principal";
import type { Executor } from "../../db/client";

/** The team (in the caller's workspace) and the caller's role in it, in one query; NOT_FOUND(`name`) otherwise, 403 below `access.min`. */
export function teamForCaller(db: Executor, principal: Principal, teamId: string, access: Access = {}, name = "Team") {
  const query = db
    .select({
      id: teams.id,
      name: teams.name,
      prefix: teams.prefix,
      parentId: teams.parentId,
      callerRole: callerTeamRole(principal.user.id, teams.id),
    })
    .from(teams)
    .where(and(eq(teams.workspaceId, principal.workspace.id), eq(teams.id, teamId)))
    .$dynamic();
  return rowForCaller(principal, query, { table: teams, name }, access);
}
