// The Worklog record (docs/api.md, "Time tracking"): time a person or an agent spent on a task. Its one field map gives
// the answer, the lists' filters and sorts (by task, author, team, the task's project, when it started), what its events
// carry and what an export holds; the task's `timeTracking` sums these rows in the statement that reads the task.
import { z } from "@hono/zod-openapi";
import { type SQLWrapper, sql } from "drizzle-orm";
import { tasks, teams, worklogs } from "../../../drizzle/schema";
import { idKind, named } from "../../records/names";
import { TaskSummary, taskSummaryJson, taskSummaryShape } from "../../records/task-status";
import { defineRecord, f, qualified } from "../../store/field-map";
import { BodyId, ExportTimestamp, NOT_PLAIN, PLAIN_MESSAGE } from "../../store/schemas";

/** How a request names a worklog: by its id (`wlg_…`) only. */
export const WORKLOG_ID = idKind("a worklog id", "wlg");

/** The longest worklog: a year (a duration is a positive whole number of seconds). */
export const MAX_WORKLOG_SECONDS = 366 * 24 * 3600;
/** Seconds of an estimate or of what remains: 0 up to PostgreSQL's integer. */
export const EstimateSeconds = z.number().int().min(0).max(2_147_483_647);
export const DurationSeconds = z
  .number()
  .int()
  .min(1)
  .max(MAX_WORKLOG_SECONDS, `Must be at most ${MAX_WORKLOG_SECONDS.toLocaleString("en")} seconds (a year)`);

/** A worklog's note: plain text of at most 5,000 characters, or null. */
export const WorklogNote = z
  .string()
  .trim()
  .max(5000)
  .refine((s) => !NOT_PLAIN.test(s.replace(/[\n\t]/g, " ")), `Must be a note: ${PLAIN_MESSAGE} (new lines and tabs are fine)`)
  .nullable();

/** When the work started: an ISO 8601 date-time with its offset. */
export const StartedAt = z.iso
  .datetime({ offset: true, error: "Must be an ISO 8601 date-time such as 2026-03-02T09:00:00Z" })
  .openapi({ example: "2026-03-02T09:00:00.000Z" });

/** The worklog's task as a summary (`fields=task{reference,title}`): a timesheet names tasks by reference. */
const taskOf = sql`(select ${taskSummaryJson(
  { id: sql`wt.id`, number: sql`wt.number`, title: sql`wt.title`, status: sql`wt.status` },
  { prefix: sql`wtm.prefix` },
)} from ${tasks} as wt join ${teams} as wtm on wtm.id = wt.team_id where wt.id = ${qualified(worklogs.taskId)})`;

/** The project of a worklog's task (worklogs filter by it; a task may change project, so it is read, not stored). */
const taskProject = sql`(select wt.project_id from ${tasks} as wt where wt.id = ${qualified(worklogs.taskId)})`;

export const worklogRecord = defineRecord({
  name: "Worklog",
  resource: "worklogs",
  id: worklogs.id,
  workspace: worklogs.workspaceId,
  team: worklogs.teamId,
  from: sql`${worklogs}`,
  fields: {
    id: f.id(worklogs.id, { names: named(WORKLOG_ID), exported: BodyId, doc: { example: "wlg_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    taskId: f.id(worklogs.taskId, { names: named("task"), exported: BodyId }),
    task: f.json(taskOf, TaskSummary, {
      optional: true,
      onlyNamed: true,
      shape: taskSummaryShape,
      doc: { description: "Only when `fields` names it, e.g. `task{reference,title}`" },
    }),
    userId: f.id(worklogs.userId, {
      names: named("user"),
      nullable: true,
      exported: BodyId.nullable(),
      doc: { description: "Its author: the person or agent that logged it (null once the user is gone)" },
    }),
    startedAt: f.datetime(worklogs.startedAt, { exported: StartedAt }),
    durationSeconds: f.integer(worklogs.durationSeconds, { exported: DurationSeconds }),
    note: f.text(worklogs.note, { nullable: true, list: { sort: false }, exported: WorklogNote }),
    // Not in the answer: `filter[eq][teamId]=ENG`, `filter[eq][projectId]=ENG-P1` (the task's project now).
    teamId: f.id(worklogs.teamId, { names: named("team"), hidden: true, list: { sort: false } }),
    projectId: f.id(taskProject, { names: named("project"), hidden: true, nullable: true, list: { sort: false } }),
    createdAt: f.datetime(worklogs.createdAt, { exported: ExportTimestamp }),
    updatedAt: f.datetime(worklogs.updatedAt, { exported: ExportTimestamp }),
  },
});
export const Worklog = worklogRecord.schema;
export type WorklogDto = z.infer<typeof Worklog>;
export const WorklogSelection = worklogRecord.selection;

/** An exported worklog as an import reads it. */
export type ExportedWorklog = {
  id: string;
  taskId: string;
  userId: string | null;
  startedAt: string;
  durationSeconds: number;
  note: string | null;
  createdAt: string;
  updatedAt: string;
};

/** A task's time tracking as its answer carries it. */
export const TimeTracking = z
  .object({
    estimateSeconds: EstimateSeconds.nullable().openapi({ description: "The original estimate; null when not estimated" }),
    remainingSeconds: EstimateSeconds.nullable().openapi({ description: "What remains; worklogs lower it (`adjustEstimate`)" }),
    spentSeconds: z.number().int().openapi({ description: "The sum of the task's worklogs" }),
    totalSpentSeconds: z.number().int().openapi({ description: "spentSeconds plus every subtask's, at any depth" }),
  })
  .openapi("TimeTracking");
export const timeTrackingShape = { estimateSeconds: true, remainingSeconds: true, spentSeconds: true, totalSpentSeconds: true } as const;

/** What a task's create and update bodies set of it (a body that sets only the estimate also sets what remains, when unset). */
export const TimeTrackingInput = z
  .object({ estimateSeconds: EstimateSeconds.nullable().optional(), remainingSeconds: EstimateSeconds.nullable().optional() })
  .strict()
  .openapi("TimeTrackingInput", {
    description:
      "Seconds. Setting `estimateSeconds` while `remainingSeconds` is unset (and not given) sets it to the estimate too; `null` clears.",
  });
export type TimeTrackingInputDto = z.infer<typeof TimeTrackingInput>;

/**
 * The task columns a body's `timeTracking` writes. An estimate given alone also sets what remains: on create, to the
 * estimate; on update, when nothing remains set yet (in the UPDATE, so it reads the row it changes).
 */
export function timeTrackingValues(input: TimeTrackingInputDto | undefined, on: "create" | "update"): Record<string, unknown> {
  if (!input) return {};
  const { estimateSeconds, remainingSeconds } = input;
  const values: Record<string, unknown> = {};
  if (estimateSeconds !== undefined) values.estimateSeconds = estimateSeconds;
  if (remainingSeconds !== undefined) values.remainingSeconds = remainingSeconds;
  else if (estimateSeconds != null)
    values.remainingSeconds = on === "create" ? estimateSeconds : sql`coalesce(${tasks.remainingSeconds}, ${estimateSeconds}::int)`;
  return values;
}

/**
 * `timeTracking` of the task whose row is `task` (the table, or a CTE named like it), in the statement that reads it:
 * the worklogs' sums by the task index (the tables named with their schema, as a write's CTEs shadow the bare names).
 * `created`: of a task its statement made, which no worklog or subtask names yet (Field.created).
 */
export function timeTrackingJson(task: { id: SQLWrapper; estimateSeconds: SQLWrapper; remainingSeconds: SQLWrapper }, created = false) {
  const id = qualified(task.id);
  const spent = created
    ? sql`0`
    : sql`(select coalesce(sum(w.duration_seconds), 0)::bigint from public.worklogs as w where w.task_id = ${id})`;
  const total = created
    ? sql`0`
    : sql`(with recursive tree(id) as (select ${id}
        union all select sub.id from public.tasks as sub join tree on sub.parent_id = tree.id)
      select coalesce(sum(w.duration_seconds), 0)::bigint from tree join public.worklogs as w on w.task_id = tree.id)`;
  return sql`json_build_object('estimateSeconds', ${qualified(task.estimateSeconds)}, 'remainingSeconds', ${qualified(task.remainingSeconds)},
    'spentSeconds', ${spent}, 'totalSpentSeconds', ${total})`;
}
