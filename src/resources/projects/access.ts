import { and, eq } from "drizzle-orm";
import { projects, teams } from "../../../drizzle/schema";
import { type Access, callerTeamRole, rowForCaller } from "../../auth/access";
import type { Principal } from "../../auth/principal";
import type { Executor } from "../../db/client";
import { projectMatch } from "../../records/refs";

/**
 * A project of the caller's workspace by id or reference (`ENG-P3`, any case) and the caller's role in its
 * team (workspace ADMIN/OWNER act above it), in one query; NOT_FOUND otherwise, 403 below `access.min`.
 */
export function projectForCaller(db: Executor, principal: Principal, idOrRef: string, access: Access = {}) {
  const query = db
    .select({
      id: projects.id,
      teamId: projects.teamId,
      startDate: projects.startDate,
      targetDate: projects.targetDate,
      customFields: projects.customFields,
      callerRole: callerTeamRole(principal.user.id, projects.teamId),
    })
    .from(projects)
    .innerJoin(teams, eq(teams.id, projects.teamId))
    .where(and(eq(projects.workspaceId, principal.workspace.id), projectMatch(idOrRef)))
    .$dynamic();
  return rowForCaller(principal, query, { table: projects, name: "Project" }, access);
}
