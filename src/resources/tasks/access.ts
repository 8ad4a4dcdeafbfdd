import { and, eq } from "drizzle-orm";
import { tasks, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Executor } from "../../db/client";
import { type Access, callerTeamRole, rowForCaller } from "../access";
import { taskMatch } from "../refs";

/** A task of the caller's workspace (by id or reference) with its links and the caller's role in its team; NOT_FOUND otherwise, 403 below `access.min`. */
export function taskForCaller(db: Executor, principal: Principal, idOrRef: string, access: Access = {}) {
  const query = db
    .select({
      id: tasks.id,
      teamId: tasks.teamId,
      projectId: tasks.projectId,
      milestoneId: tasks.milestoneId,
      parentId: tasks.parentId,
      customFields: tasks.customFields,
      callerRole: callerTeamRole(principal.user.id, tasks.teamId),
    })
    .from(tasks)
    .innerJoin(teams, eq(teams.id, tasks.teamId))
    .where(and(eq(tasks.workspaceId, principal.workspace.id), taskMatch(idOrRef)))
    .$dynamic();
  return rowForCaller(principal, query, { table: tasks, name: "Task" }, access);
}
