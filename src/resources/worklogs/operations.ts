// The worklog operations (docs/api.md, "Time tracking"), one function each, called alike by the REST routes, the MCP
// tools and the batch. Each is one statement that authenticates and authorizes itself (guardedWrite): a create inserts
// the worklog and applies `adjustEstimate` to its task's remaining estimate in that statement, so concurrent worklogs
// each lower it (the UPDATE waits for the row and reads its latest value); a read or a list is one query.
import { and, eq, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { tasks, worklogs } from "../../../drizzle/schema";
import { TASK_WRITE, taskTarget, teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { workspaceAdminSql } from "../../auth/roles";
import { forbidden } from "../../core/errors";
import { newId } from "../../ids";
import { listTaskChildren } from "../../records/task-children";
import { type Guard, guardedDelete, guardedWrite, type Target, updatedRow } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import { type WorklogDto, worklogRecord } from "./record";
import type { WorklogChange, WorklogCreateInput } from "./schema";

/** Logging time needs what changing the task needs (TASK_WRITE: a VIEWER logs nothing), refused in its own words. */
const logGuard = (caller: Caller, teamId: SQLWrapper): Guard =>
  teamRoleGuard(caller.actor, teamId, TASK_WRITE.min, "log time on this team's tasks");

/** Changing or deleting a worklog: its author, or a workspace ADMIN/OWNER. */
const authorGuard = (caller: Caller): Guard => ({
  holds: or(eq(worklogs.userId, caller.actor.user), workspaceAdminSql(caller.actor.role))!,
  refusal: () => forbidden("Only the worklog's author or a workspace ADMIN/OWNER may change or delete it"),
});

/** The Worklog answer of the worklog `id`, read in the statement that wrote it (its CTE `worklogs` shadows the table). */
const written = (id: SQL): SQL<WorklogDto | null> =>
  sql`(select ${worklogRecord.json()} from ${worklogRecord.from} where ${worklogs.id} = ${id})`;

/** The task's remaining estimate after a worklog of `seconds`, by `adjustEstimate` (null: left as it is). Never below 0. */
function remainingAfter(input: WorklogCreateInput, seconds: number): SQL | null {
  const lowered = (by: number) => sql`greatest(0, ${tasks.remainingSeconds} - ${by}::int)`;
  switch (input.adjustEstimate) {
    case "leave":
      return null;
    case "new":
      return sql`${input.newEstimateSeconds as number}::int`;
    case "manual":
      return lowered(input.reduceBySeconds as number);
    default:
      return lowered(seconds);
  }
}

/**
 * POST /tasks/{id}/worklogs: the caller is the author. ONE statement: the task and its rule, the insert, and the task's
 * remaining estimate adjusted (`auto` by default; a task without one keeps none, except that `new` sets it).
 */
export function logTime(caller: Caller, idOrRef: string, input: WorklogCreateInput & { durationSeconds: number }): Promise<WorklogDto> {
  const id = newId("wlg");
  // The task as its writes find it, under the logging rule.
  const target: Target = { ...taskTarget(caller, idOrRef), columns: { id: tasks.id }, guards: [logGuard(caller, tasks.teamId)] };
  const remaining = remainingAfter(input, input.durationSeconds);
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [
      sql`worklogs as (insert into ${worklogs} (id, workspace_id, team_id, task_id, user_id, started_at, duration_seconds, note)
        select ${id}, ${tasks.workspaceId}, ${tasks.teamId}, ${tasks.id}, ${caller.actor.user}, ${input.startedAt}::timestamptz,
          ${input.durationSeconds}::int, ${input.note ?? null}
        from ${tasks} where ${tasks.id} = ${allowed} returning *)`,
      ...(remaining
        ? [
            sql`adjusted as (update ${tasks} set remaining_seconds = ${remaining}, updated_at = now()
              where ${tasks.id} = (select task_id from worklogs)
                and (${tasks.remainingSeconds} is not null or ${input.adjustEstimate === "new"})
              returning ${tasks.id})`,
          ]
        : []),
    ],
    result: written(sql`${id}`),
  }));
}

/** The worklog `id` in the caller's workspace and teams, under the author rule and the team's write rule. */
function worklogTarget(caller: Caller, id: string): Target {
  return {
    from: sql`${worklogs}`,
    where: and(eq(worklogs.workspaceId, caller.actor.workspace), eq(worklogs.id, id))!,
    columns: { id: worklogs.id },
    guards: [logGuard(caller, worklogs.teamId), authorGuard(caller)],
    name: "Worklog",
    team: worklogs.teamId,
    table: worklogs,
  };
}

/** PATCH /worklogs/{id}: when it started, how long, the note; the task's remaining estimate is left as it is. */
export function updateWorklog(caller: Caller, id: string, change: WorklogChange): Promise<WorklogDto> {
  const values: Record<string, unknown> = {};
  if (change.startedAt !== undefined) values.startedAt = new Date(change.startedAt);
  if (change.durationSeconds !== undefined) values.durationSeconds = change.durationSeconds;
  if (change.note !== undefined) values.note = change.note;
  return guardedWrite(caller, worklogTarget(caller, id), (allowed) => ({
    ctes: [updatedRow(caller, "worklogs", worklogs, values, allowed)],
    result: written(sql`(select id from worklogs)`),
  }));
}

/** DELETE /worklogs/{id}: one statement; the task's remaining estimate is left as it is. */
export async function deleteWorklog(caller: Caller, id: string): Promise<void> {
  await guardedDelete(caller, worklogTarget(caller, id), worklogs);
}

/** GET /worklogs/{id}: whoever reads its task. */
export function getWorklog(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<WorklogDto> {
  return readRecord(caller, worklogRecord, id, fields);
}

/** GET /worklogs: the workspace's, within the caller's teams; one page in one query. */
export function listWorklogs(caller: Caller, params: ListParams): Promise<WorklogDto[]> {
  return listRecords(caller, worklogRecord, params);
}

/** GET /tasks/{id}/worklogs: one query, with the task's own 404. */
export function listTaskWorklogs(caller: Caller, idOrRef: string, params: ListParams): Promise<WorklogDto[]> {
  return listTaskChildren(caller, idOrRef, params, { record: worklogRecord, from: worklogs, taskId: worklogs.taskId });
}
