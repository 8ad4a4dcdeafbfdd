// What a comment attaches to: exactly one task (id or reference), project (id or reference) or milestone of the
// caller's workspace. A create writes under the target's team rule; a list under a target reads the target alone.
import { and, eq, type SQLWrapper, sql } from "drizzle-orm";
import { comments, milestones, projects, tasks, teams } from "../../../drizzle/schema";
import { teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { projectMatch, taskMatch } from "../../records/names";
import type { Target } from "../../store/guarded";
import type { CommentCreateInput, CommentTargetKind } from "./record";

/** Commenting needs team role MEMBER or higher in the target's team, or workspace ADMIN/OWNER. */
const COMMENT = { min: "MEMBER", what: "comment on this team's work" } as const;

export interface CommentTarget {
  kind: CommentTargetKind;
  /** Id, or for tasks and projects a reference (`ENG-12`, `ENG-P3`). */
  idOrRef: string;
}

/** The comment column that names a target of each kind. */
export const TARGET_COLUMN = { task: comments.taskId, project: comments.projectId, milestone: comments.milestoneId } as const;
const TARGET_FIELD = { task: "taskId", project: "projectId", milestone: "milestoneId" } as const;

/** The one target a create names (CommentCreate lets no body with another count through). */
export function bodyTarget(input: CommentCreateInput): CommentTarget {
  for (const kind of Object.keys(TARGET_FIELD) as CommentTargetKind[]) {
    const idOrRef = input[TARGET_FIELD[kind]];
    if (idOrRef !== undefined) return { kind, idOrRef };
  }
  throw new Error("A comment create without a target got through CommentCreate");
}

/** The target in the caller's workspace, with the rule of commenting on it. */
export function commentTarget(caller: Caller, { kind, idOrRef }: CommentTarget): Target {
  const { actor } = caller;
  const rule = (teamId: SQLWrapper) => [teamRoleGuard(actor, teamId, COMMENT.min, COMMENT.what)];
  if (kind === "task") {
    return {
      from: sql`${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}`,
      where: and(eq(tasks.workspaceId, actor.workspace), taskMatch(idOrRef, actor.workspace))!,
      columns: { id: tasks.id },
      guards: rule(tasks.teamId),
      name: "Task",
      team: tasks.teamId,
      table: tasks,
    };
  }
  if (kind === "project") {
    return {
      from: sql`${projects} join ${teams} on ${teams.id} = ${projects.teamId}`,
      where: and(eq(projects.workspaceId, actor.workspace), projectMatch(idOrRef, actor.workspace))!,
      columns: { id: projects.id },
      guards: rule(projects.teamId),
      name: "Project",
      team: projects.teamId,
      table: projects,
    };
  }
  return {
    from: sql`${milestones} join ${projects} on ${projects.id} = ${milestones.projectId}`,
    where: and(eq(milestones.workspaceId, actor.workspace), eq(milestones.id, idOrRef))!,
    columns: { id: milestones.id },
    guards: rule(projects.teamId),
    name: "Milestone",
    team: projects.teamId,
    table: milestones,
  };
}
