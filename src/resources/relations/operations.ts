// The task relation operations (docs/api.md, "Task relations"), one function each, called alike by the REST routes and
// the MCP tools. A create runs in one transaction: the task in the path under the task write rule, the other task within
// the caller's reach, the cycle check of a `blocks` edge under the workspace's lock, the edge, and a duplicate's move to
// CANCELED. A delete is one statement (guardedDelete); a list one query.
import { and, eq, notInArray, sql } from "drizzle-orm";
import { taskRelations, taskRelationViews, tasks, teams } from "../../../drizzle/schema";
import { taskTarget } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { conflict, invalid, notFound } from "../../core/errors";
import type { Executor } from "../../db/client";
import { inTeams, type Reach } from "../../db/scope";
import { lockBlocksGraph } from "../../db/tree-locks";
import { newId } from "../../ids";
import { listTaskChildren } from "../../records/task-children";
import { cycleMessage, relationRecord, storedEdge, type TaskRelationCreateInput, type TaskRelationDto } from "../../records/task-relations";
import { taskRecord } from "../../records/tasks";
import { guardedDelete, readTarget, type Target } from "../../store/guarded";
import type { ListParams } from "../../store/list";

const v = taskRelationViews;

/** The other task a body names (id or reference), within the caller's reach: another team's task it may not read is 404. */
async function otherTask(tx: Executor, reach: Reach, idOrRef: string) {
  const [task] = await tx
    .select({ id: tasks.id, teamId: tasks.teamId, workspaceId: tasks.workspaceId })
    .from(tasks)
    .innerJoin(teams, eq(teams.id, tasks.teamId))
    .where(taskRecord.named(reach, idOrRef))
    .limit(1);
  if (!task) throw notFound("Task");
  return task;
}

/** Whether a chain of `blocks` edges leads from `from` to `to`: the tasks `from` blocks, directly or not, each once. */
async function blocksReach(tx: Executor, from: string, to: string): Promise<boolean> {
  const { rows } = await tx.execute(sql`
    with recursive reached(id) as (
      select ${from}::text
      union
      select r.target_task_id from reached join ${taskRelations} r on r.source_task_id = reached.id and r.type = 'blocks'
      where reached.id <> ${to}
    )
    select 1 from reached where id = ${to} limit 1`);
  return rows.length > 0;
}

/** The relation `id` as the task `taskId` sees it. */
async function relationAsSeenBy(tx: Executor, taskId: string, id: string): Promise<TaskRelationDto> {
  const [row] = await tx
    .select({ relation: relationRecord.json() })
    .from(relationRecord.from)
    .where(and(eq(v.id, id), eq(v.taskId, taskId)))
    .limit(1);
  return row.relation as TaskRelationDto;
}

/**
 * POST /tasks/{id}/relations: by a caller who may change the task in the path (the task write rule); the other task may
 * be of any team of the workspace the caller reaches. Self is 422, the same relation again 409, a `blocks` edge that
 * closes a cycle 422 naming it.
 */
export function createRelation(caller: Caller, idOrRef: string, input: TaskRelationCreateInput): Promise<TaskRelationDto> {
  // Interactive (the WebSocket): both tasks are read and the edge's rules checked before it is written.
  return caller.transaction(async (tx) => {
    const task = await readTarget<{ id: string; teamId: string }>(tx, caller, taskTarget(caller, idOrRef), "key share");
    const other = await otherTask(tx, caller.actor, input.taskId);
    if (other.id === task.id) throw invalid("taskId", "Must be another task: a task has no relation with itself");
    const edge = storedEdge(input.type, task.id, other.id);
    const teamOf = (id: string) => (id === task.id ? task.teamId : other.teamId);
    if (edge.type === "blocks") {
      // Two edges that together close a cycle each pass their check alone: one waits here for the other (tree-locks.ts).
      await lockBlocksGraph(tx, other.workspaceId);
      if (await blocksReach(tx, edge.target, edge.source)) {
        // The new edge first: source blocks target blocks … blocks source.
        throw invalid("taskId", await cycleMessage(tx, caller.actor, edge.source, edge.target));
      }
    }
    const id = newId("rel");
    const inserted = await tx
      .insert(taskRelations)
      .values({
        id,
        workspaceId: other.workspaceId,
        type: edge.type,
        sourceTaskId: edge.source,
        targetTaskId: edge.target,
        sourceTeamId: teamOf(edge.source),
        targetTeamId: teamOf(edge.target),
        creatorId: sql`${caller.actor.user}`,
      })
      .onConflictDoNothing()
      .returning({ id: taskRelations.id });
    if (inserted.length === 0) throw conflict(`These tasks already have this relation (${input.type})`);
    if (edge.type === "duplicate_of") {
      // Its own task.updated event, from the trigger, in this transaction.
      await tx
        .update(tasks)
        .set({ status: "CANCELED", updatedAt: sql`now()` })
        .where(and(eq(tasks.id, edge.source), notInArray(tasks.status, ["DONE", "CANCELED"])));
    }
    return relationAsSeenBy(tx, task.id, id);
  });
}

/** The relation `relationId` of the task `idOrRef`, under the task write rule; a relation whose other task the caller may not read is 404. */
function relationTarget(caller: Caller, idOrRef: string, relationId: string): Target {
  const task = taskTarget(caller, idOrRef);
  return {
    ...task,
    from: sql`${task.from} join ${v} on ${v.taskId} = ${tasks.id}`,
    where: and(task.where, eq(v.id, relationId), inTeams(caller.actor.teams, v.otherTeamId))!,
    columns: { id: v.id },
    name: "Relation",
    table: undefined,
  };
}

/** DELETE /tasks/{id}/relations/{relationId}: from either task's side, one statement. */
export async function deleteRelation(caller: Caller, idOrRef: string, relationId: string): Promise<void> {
  await guardedDelete(caller, relationTarget(caller, idOrRef, relationId), taskRelations);
}

/** GET /tasks/{id}/relations: both directions, those whose other task the caller may read, in one query. */
export function listRelations(caller: Caller, idOrRef: string, params: ListParams): Promise<TaskRelationDto[]> {
  return listTaskChildren(caller, idOrRef, params, { record: relationRecord, from: sql`(${relationRecord.from})`, taskId: v.taskId });
}
