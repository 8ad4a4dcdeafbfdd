// What a task answer says of its status, and a task's summary, kept apart from the Task record so the records that embed
// a task can use them. A status is a key of the task's team's workflow states (docs/api.md "Workflow
// states"); what it means is its category, stored with the task (`status_category`, kept by the trigger pm_task_state in
// the write's own statement): the rules that mean "done" or "open" name categories, here, never a key.
import { z } from "@hono/zod-openapi";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { stateCategory } from "../../drizzle/schema";
import { badRequest } from "../core/errors";
import { qualified } from "../store/field-map";
import type { FilterOp } from "../store/list";

/** A workflow state's category: what its tasks' status means. */
export const StateCategory = z.enum(stateCategory.enumValues).openapi("StateCategory", {
  description: "backlog, unstarted, started, completed or canceled: what a workflow state means, whatever its team calls it",
});
export type StateCategoryDto = z.infer<typeof StateCategory>;
/** The categories a task is finished in: a blocker in one no longer blocks; a duplicate in one stays as it is. */
export const CLOSED_CATEGORIES = ["completed", "canceled"] as const satisfies readonly StateCategoryDto[];
/** `status_category` (a column of the task's row, or a CTE named like its table) is one of CLOSED_CATEGORIES. */
export const isClosed = (category: SQLWrapper): SQL => sql`${category} in ('completed', 'canceled')`;

/** The key of the team's first state of `category` by position (a team keeps one `unstarted`, `completed` and `canceled`). */
export const firstStateKey = (teamId: SQLWrapper, category: StateCategoryDto): SQL =>
  sql`(select s.key from public.workflow_states as s where s.team_id = ${qualified(teamId)} and s.category = ${category}
    order by s.position, s.id limit 1)`;

/** A key of a team's workflow states: 1..32 of `A–Z 0–9 _`, unique in the team, fixed once made. */
export const StateKey = z
  .string()
  .max(32)
  .regex(/^[A-Z0-9_]{1,32}$/, "Must be 1 to 32 of A-Z, 0-9 and _")
  .openapi({ example: "IN_PROGRESS" });

/** A status as an export holds it, and an import takes it: a state's key, in any case. */
export const StatusKey = z
  .string()
  .max(32)
  .regex(/^[A-Za-z0-9_]{1,32}$/, "Must be a workflow state's key: 1 to 32 of A-Z, 0-9 and _");

/** A task's status in an answer: the key of one of its team's workflow states. */
export const TaskStatus = z.string().openapi("TaskStatus", {
  description: "The key of one of the task's team's workflow states (GET /teams/{id}/states), e.g. TODO, IN_PROGRESS, DONE",
  example: "IN_PROGRESS",
});
/** A task's status in a request: a state of the task's team by its key or its name, in any case (422 naming `status` otherwise). */
export const TaskStatusInput = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .openapi({
    description:
      "A workflow state of the task's team: its key (`IN_PROGRESS`) or its name (`In Progress`), in any case; stored as the key. " +
      "Left out on create: the team's first `unstarted` state",
    example: "IN_PROGRESS",
  });

/**
 * The `status` filter of a task list (or a claim's): tasks whose state one of `values` names, by key or by name in any
 * case. The keys those name (the values' own keys, and the keys of the states so named) are one array computed once,
 * so the list still walks its status index.
 */
export function statusFilter(status: SQLWrapper) {
  return (op: FilterOp, values: string[]): SQL => {
    const given = sql`unnest(${sql.param(values)}::text[]) as v`;
    const keys = sql`array(select upper(v) from ${given}
      union select s.key from public.workflow_states as s join ${given} on s.name_key = lower(v))`;
    if (op === "eq" || op === "in") return sql`${qualified(status)} = any(${keys})`;
    if (op === "neq") return sql`${qualified(status)} <> all(${keys})`;
    throw badRequest(`Operator '${op}' does not apply to 'status'`, { field: "status", operator: op, allowed: ["eq", "neq", "in"] });
  };
}

/** Where the task's state stands in its team's order (`sort[status]`), over the task's row. */
export const statusPosition = (task: { teamId: SQLWrapper; status: SQLWrapper }): SQL =>
  sql`(select s.position from public.workflow_states as s where s.team_id = ${qualified(task.teamId)} and s.key = ${qualified(task.status)})`;
/**
 * A `sort[status]` cursor's value: the last task's team and key, which find its state's position when the next page is
 * read (the answer carries the key, not the position).
 */
export const statusCursorValue = (item: Record<string, unknown>) => `${item.teamId} ${item.status}`;
/** The position a `sort[status]` cursor's value stands for (a state gone since: the end of the order). */
export const statusCursorBound = (value: unknown): SQL => {
  const [team, key] = String(value).split(" ");
  return sql`coalesce((select s.position from public.workflow_states as s where s.team_id = ${team} and s.key = ${key}), 'Infinity'::float8)`;
};

/** A task's subtasks: how many, and how many are in a `completed` state. */
export const SubtaskCounts = z
  .object({ total: z.number().int(), done: z.number().int() })
  .openapi("SubtaskCounts", { description: "The task's direct subtasks, and those of them in a `completed` state" });

export const TaskSummary = z
  .object({ id: z.string(), reference: z.string(), title: z.string(), status: TaskStatus })
  .openapi("TaskSummary");
export const taskSummaryShape = { id: true, reference: true, title: true, status: true } as const;
/** `{id, reference, title, status}` of a task joined with its team, built in SQL. */
export const taskSummaryJson = (t: Record<"id" | "number" | "title" | "status", SQLWrapper>, team: { prefix: SQLWrapper }): SQL =>
  sql`json_build_object('id', ${t.id}, 'reference', ${team.prefix} || '-' || ${t.number}, 'title', ${t.title}, 'status', ${t.status})`;
