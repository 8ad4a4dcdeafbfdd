// The task relation operations (docs/api.md, "Task relations"), one function each, called alike by the REST routes and
// the MCP tools. A create is one statement: the task in the path under the task write rule, the other task within the
// caller's reach, the cycle check of a `blocks` edge (under the workspace's lock, taken in the same transaction), the
// edge, and a duplicate's move to a `canceled` state. A delete is one statement (guardedDelete); a list one query.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { taskRelations, taskRelationType, taskRelationViews, tasks, teams } from "../../../drizzle/schema";
import { taskTarget } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { conflict, invalid, notFound } from "../../core/errors";
import { statementBound } from "../../db/client";
import { inTeams, type Reach } from "../../db/scope";
import { blocksGraphLock } from "../../db/tree-locks";
import { newId } from "../../ids";
import { listTaskChildren } from "../../records/task-children";
import { firstStateKey, isClosed } from "../../records/task-status";
import { guardedDelete, guardedWrite, type Target } from "../../store/guarded";
import type { ListParams } from "../../store/list";
import { taskRecord } from "../tasks/record";
import {
  blockingPath,
  blocksReach,
  cycleText,
  relationFrom,
  relationRecord,
  type TaskRelationCreateInput,
  type TaskRelationDto,
} from "./record";

const v = taskRelationViews;

/** The other task a body names (id or reference), within the caller's reach (another team's task it may not read is none). */
const otherTask = (reach: Reach, idOrRef: string) =>
  sql`(select ${tasks.id} as id, ${tasks.teamId} as team_id from ${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}
    where ${taskRecord.named(reach, idOrRef)} limit 1)`;

/**
 * The stored edge a request names from the task's side (storedEdge's rule in SQL, over the two tasks' ids and teams):
 * `blocked_by` is `blocks` from the other task, `related` is stored once a pair, its smaller id first.
 */
function edgeOf(type: TaskRelationCreateInput["type"], task: { id: SQL; team: SQL }, other: { id: SQL; team: SQL }) {
  if (type === "blocked_by") return { type: "blocks" as const, source: other, target: task };
  if (type !== "related") return { type, source: task, target: other };
  const taskFirst = sql`(${task.id} < ${other.id})`;
  const pick = (first: SQL, second: SQL) => sql`(case when ${taskFirst} then ${first} else ${second} end)`;
  return {
    type,
    source: { id: pick(task.id, other.id), team: pick(task.team, other.team) },
    target: { id: pick(other.id, task.id), team: pick(other.team, task.team) },
  };
}

const col = (table: string, column: string) => sql`${sql.identifier(table)}.${sql.identifier(column)}`;

/**
 * POST /tasks/{id}/relations: by a caller who may change the task in the path (the task write rule); the other task may
 * be of any team of the workspace the caller reaches. Self is 422, the same relation again 409, a `blocks` edge that
 * closes a cycle 422 naming it.
 *
 * One statement (guardedWrite): the task, the other task, each rule as a flag, the edge, a duplicate's move to its team's first `canceled` state
 * and the answer. A `blocks` edge first takes the workspace's lock in a statement of its own, sent with it as one
 * transaction (one round trip over the HTTP query): two edges that together close a cycle each pass their check alone,
 * so one waits for the other, and its check (the next statement, a newer snapshot) sees the first edge (tree-locks.ts).
 */
export function createRelation(caller: Caller, idOrRef: string, input: TaskRelationCreateInput): Promise<TaskRelationDto> {
  const { actor } = caller;
  const task = taskTarget(caller, idOrRef);
  // The edge over the target's FROM (its rules), and over the target row (the write).
  const inFrom = edgeOf(
    input.type,
    { id: sql`${tasks.id}`, team: sql`${tasks.teamId}` },
    { id: col("other", "id"), team: col("other", "team_id") },
  );
  const inRow = edgeOf(
    input.type,
    { id: col("target", "id"), team: col("target", "teamId") },
    { id: col("target", "otherId"), team: col("target", "otherTeamId") },
  );
  const blocks = inFrom.type === "blocks";
  const target: Target = {
    ...task,
    // A `blocks` edge: the way back it would close (the new edge first), null when it closes none; walked once.
    from: sql`${task.from} left join ${otherTask(actor, input.taskId)} as other on true${
      blocks
        ? sql` left join lateral (select case when ${blocksReach(inFrom.target.id, inFrom.source.id)}
            then array(${blockingPath(actor, inFrom.target.id, inFrom.source.id)}) end as way) as cycle on true`
        : sql``
    }`,
    columns: {
      id: tasks.id,
      teamId: tasks.teamId,
      workspaceId: tasks.workspaceId,
      otherId: col("other", "id"),
      otherTeamId: col("other", "team_id"),
      ...(blocks ? { cycle: col("cycle", "way") } : {}),
    },
    guards: [
      ...task.guards,
      { holds: sql`${col("other", "id")} is not null`, refusal: () => notFound("Task") },
      {
        holds: sql`${col("other", "id")} <> ${tasks.id}`,
        refusal: () => invalid("taskId", "Must be another task: a task has no relation with itself"),
      },
      ...(blocks
        ? [
            {
              holds: sql`${col("cycle", "way")} is null`,
              readsTarget: true as const,
              refusal: (row: Record<string, unknown>) => invalid("taskId", cycleText(row.cycle as string[])),
            },
          ]
        : []),
      {
        holds: sql`not exists (select 1 from ${taskRelations} r where r.source_task_id = ${inFrom.source.id}
          and r.target_task_id = ${inFrom.target.id} and r.type = ${inFrom.type})`,
        refusal: () => conflict(`These tasks already have this relation (${input.type})`),
      },
    ],
  };
  const id = newId("rel");
  const before = blocks ? [sql`select ${blocksGraphLock(actor.workspace)} where ${statementBound}`] : [];
  return guardedWrite<TaskRelationDto>(
    caller,
    target,
    (allowed) => ({
      ctes: [
        sql`inserted as (insert into ${taskRelations}
          (id, workspace_id, type, source_task_id, target_task_id, source_team_id, target_team_id, creator_id)
          select ${id}, target."workspaceId", ${inRow.type}::${sql.identifier(taskRelationType.enumName)}, ${inRow.source.id}, ${inRow.target.id}, ${inRow.source.team},
            ${inRow.target.team}, ${actor.user} from target where target.id = ${allowed}
          on conflict do nothing returning *)`,
        // A duplicate moves to its team's first `canceled` state (unless it is completed or canceled already): its own
        // task.updated event, from the trigger, in this statement.
        ...(inRow.type === "duplicate_of"
          ? [
              sql`canceled as (update ${tasks} set status = ${firstStateKey(tasks.teamId, "canceled")}, updated_at = now()
                where ${tasks.id} = (select source_task_id from inserted) and not ${isClosed(tasks.statusCategory)} returning 1)`,
            ]
          : []),
        // The answer reads the new relation as the task in the path sees it: the view's row, from the inserted one.
        sql`${taskRelationViews} as (select i.id, i.workspace_id, target.id as task_id, target."otherId" as other_task_id,
          target."otherTeamId" as other_team_id, ${input.type}::text as type, i.creator_id, i.created_at from inserted i, target)`,
      ],
      result: sql`(select ${relationRecord.json()} from ${relationFrom})`,
    }),
    { before },
  );
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
