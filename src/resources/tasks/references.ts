// Project, milestone, cycle and parent of a task named in a request body: each must exist in the caller's reach (its workspace
// and, for a credential bound to teams, those teams: NOT_FOUND otherwise, as another workspace's record) and fit the
// task (422 at the field otherwise).
import { eq, sql } from "drizzle-orm";
import { cycles, milestones, projects, tasks, teams } from "../../../drizzle/schema";
import { invalid, notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import type { Reach } from "../../db/scope";
import { inTeams } from "../../db/scope";
import { lockSubtaskTree } from "../../db/tree-locks";
import { nameMatch } from "../../records/names";
import { milestoneRecord } from "../milestones/record";
import { projectRecord } from "../projects/record";
import { taskRecord } from "./record";

export interface References {
  projectId: string | null;
  milestoneId: string | null;
  cycleId: string | null;
  parentId: string | null;
}
export type ReferencesInput = { [K in keyof References]?: string | null };

async function projectOfTeam(tx: Executor, reach: Reach, idOrRef: string, teamId: string): Promise<string> {
  const [project] = await tx
    .select({ id: projects.id, teamId: projects.teamId })
    .from(projects)
    .innerJoin(teams, eq(teams.id, projects.teamId))
    .where(projectRecord.named(reach, idOrRef))
    .limit(1);
  if (!project) throw notFound("Project");
  if (project.teamId !== teamId) throw invalid("projectId", "Must be a project of the task's team");
  return project.id;
}

async function milestoneOfProject(tx: Executor, reach: Reach, id: string, projectId: string | null): Promise<string> {
  const [milestone] = await tx
    .select({ projectId: milestones.projectId })
    .from(milestones)
    .where(milestoneRecord.named(reach, id))
    .limit(1);
  if (!milestone) throw notFound("Milestone");
  if (milestone.projectId !== projectId) throw invalid("milestoneId", "Must be a milestone of the task's project");
  return id;
}

/** A cycle of the task's team that has not ended (docs/api.md, "Cycles"), share-locked so it stays while the task joins it. */
async function cycleOfTeam(tx: Executor, reach: Reach, idOrRef: string, teamId: string): Promise<string> {
  const [cycle] = await tx
    .select({ id: cycles.id, teamId: cycles.teamId, ended: sql<boolean>`${cycles.endsAt} <= now()` })
    .from(cycles)
    .innerJoin(teams, eq(teams.id, cycles.teamId))
    .where(
      sql`${cycles.workspaceId} = ${reach.workspace} and ${inTeams(reach.teams, cycles.teamId)} and ${nameMatch("cycle", cycles.id, idOrRef, reach.workspace)}`,
    )
    .limit(1)
    .for("key share", { of: cycles });
  if (!cycle) throw notFound("Cycle");
  if (cycle.teamId !== teamId) throw invalid("cycleId", "Must be a cycle of the task's team");
  if (cycle.ended) throw invalid("cycleId", "Must be a cycle that has not ended");
  return cycle.id;
}

async function parentInTeam(tx: Executor, reach: Reach, idOrRef: string, teamId: string, taskId: string | null): Promise<string> {
  const [parent] = await tx
    .select({ id: tasks.id, teamId: tasks.teamId })
    .from(tasks)
    .innerJoin(teams, eq(teams.id, tasks.teamId))
    .where(taskRecord.named(reach, idOrRef))
    .limit(1);
  if (!parent) throw notFound("Parent task");
  if (parent.teamId !== teamId) throw invalid("parentId", "Must be a task of the same team");
  if (taskId === null) return parent.id; // a new task has no subtasks: no cycle
  await lockSubtaskTree(tx, teamId);
  if (await isSelfOrDescendant(tx, reach.workspace, parent.id, taskId)) {
    throw invalid("parentId", "Must not be the task itself or one of its subtasks (that would make a cycle)");
  }
  return parent.id;
}

/** Walks up from the would-be parent in one recursive query: meeting the task means a cycle. */
async function isSelfOrDescendant(tx: Executor, workspaceId: WorkspaceScope, candidateId: string, taskId: string): Promise<boolean> {
  const result = await tx.execute(sql`
    with recursive chain(id, parent_id) as (
      select id, parent_id from tasks where id = ${candidateId} and workspace_id = ${workspaceId}
      union
      select t.id, t.parent_id from tasks t join chain on t.id = chain.parent_id where t.workspace_id = ${workspaceId}
    )
    select 1 from chain where id = ${taskId} limit 1`);
  return result.rows.length > 0;
}

/**
 * The foreign-key columns to store for `input` on a task of `teamId`, each looked up within `reach` (the caller's)
 * (`current` holds its present ones; `taskId` is null on create). A task whose project goes away or changes loses its
 * milestone, which belonged to the old one.
 */
export async function resolveReferences(
  tx: Executor,
  reach: Reach,
  teamId: string,
  input: ReferencesInput,
  current: References & { taskId: string | null },
): Promise<Partial<References>> {
  const out: Partial<References> = {};
  if (input.projectId !== undefined) {
    out.projectId = input.projectId === null ? null : await projectOfTeam(tx, reach, input.projectId, teamId);
  }
  const projectId = out.projectId !== undefined ? out.projectId : current.projectId;
  if (input.milestoneId !== undefined) {
    out.milestoneId = input.milestoneId === null ? null : await milestoneOfProject(tx, reach, input.milestoneId, projectId);
  } else if (projectId !== current.projectId && current.milestoneId !== null) {
    out.milestoneId = null;
  }
  if (input.cycleId !== undefined) {
    out.cycleId = input.cycleId === null ? null : await cycleOfTeam(tx, reach, input.cycleId, teamId);
  }
  if (input.parentId !== undefined) {
    out.parentId = input.parentId === null ? null : await parentInTeam(tx, reach, input.parentId, teamId, current.taskId);
  }
  return out;
}
