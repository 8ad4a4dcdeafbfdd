import { and, eq } from "drizzle-orm";
import { milestones, projects } from "../../../drizzle/schema";
import { type Access, callerTeamRole, rowForCaller } from "../../auth/access";
import type { Principal } from "../../auth/principal";
import type { Executor } from "../../db/client";

/**
 * A milestone of the caller's workspace, its project's team and the caller's role there, in one query;
 * NOT_FOUND otherwise, 403 below `access.min`.
 */
export function milestoneForCaller(db: Executor, principal: Principal, id: string, access: Access = {}) {
  const query = db
    .select({
      id: milestones.id,
      projectId: milestones.projectId,
      teamId: projects.teamId,
      customFields: milestones.customFields,
      callerRole: callerTeamRole(principal.user.id, projects.teamId),
    })
    .from(milestones)
    .innerJoin(projects, eq(projects.id, milestones.projectId))
    .where(and(eq(milestones.workspaceId, principal.workspace.id), eq(milestones.id, id)))
    .$dynamic();
  return rowForCaller(principal, query, { table: milestones, name: "Milestone" }, access);
}
