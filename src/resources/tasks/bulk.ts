// Bulk writes (docs/api.md "Bulk writes"): POST /tasks/bulk changes or deletes many tasks at once, all or
// nothing. Each task is held to its own PATCH's or DELETE's rule, never a copy of it: the task write rule and the labels'
// guard (auth/access.ts) are flags of the statement on every task; the links `set` names go through PATCH's own checks
// (resolveReferences, workspaceMember, workspaceAgent), once per group of tasks they read alike, never once per task; a
// status through the trigger that checks every write's (pm_task_state). The write is one statement, sent with the read of
// the events its triggers wrote (the answer's `changes`) in one round trip; a body naming a link, or a dry run, is one
// interactive transaction (the tasks are read and locked first), and a dry run rolls its write back.
import { z } from "@hono/zod-openapi";
import { type AnyColumn, and, type SQL, sql } from "drizzle-orm";
import { events, tasks } from "../../../drizzle/schema";
import { labelsGuard, TASK_WRITE, taskWriteGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { teamRoleRefusal } from "../../auth/roles";
import { forbidden, invalid, ValidationError } from "../../core/errors";
import { type Executor, statementBound } from "../../db/client";
import { contextSet } from "../../db/event-context";
import { positionSelect } from "../../db/position";
import { databaseValidation } from "../../http/error-mapper";
import { type EventRecords, eventRendering } from "../../records/events";
import { NameOf } from "../../records/names";
import { statusFilter } from "../../records/task-status";
import { updatedRow } from "../../store/guarded";
import { filterSortQuery, JsonFilter } from "../../store/list";
import { delegationCtes } from "../agent-sessions/record";
import { LabelIds, labelEditChanges, labelEditCtes } from "../labels/record";
import { workspaceMember } from "../users/record";
import { storedValues } from "./operations";
import { TaskUpdate, type TaskUpdateInput, taskRecord, workspaceAgent } from "./record";
import { resolveReferences } from "./references";

/** The most tasks one bulk write names or matches. */
export const MAX_BULK = 1000;

/** What `set` may change: PATCH's body schema (TaskUpdate), restricted to these fields, so the same values are valid. */
const SET_FIELDS = ["status", "priority", "assigneeId", "delegateId", "projectId", "milestoneId", "cycleId", "dueDate", "estimate"];
const updateShape = TaskUpdate.shape as Record<string, z.ZodType>;
export const TaskBulkSet = z
  .object(Object.fromEntries(SET_FIELDS.map((name) => [name, updateShape[name]])))
  .strict()
  .openapi("TaskBulkSet");

export const TaskBulk = z
  .object({
    ids: z
      .array(NameOf("task"))
      .min(1)
      .max(MAX_BULK)
      .optional()
      .openapi({ description: "The tasks, by id or reference (`ENG-12`); one that names no task you reach is 422 naming `ids`" }),
    filter: JsonFilter.optional().openapi({
      description: 'GET /tasks\'s filters as JSON, by the same names and operators: `{"eq": {"teamId": "ENG", "status": "TODO"}}`',
    }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_BULK)
      .optional()
      .openapi({ description: "With `filter`: the most tasks it may match (default 1000); more is 422 naming `filter`" }),
    set: TaskBulkSet.optional(),
    addLabelIds: LabelIds.optional().openapi({ description: "Labels attached to every task (by id or name), the others kept" }),
    removeLabelIds: LabelIds.optional().openapi({ description: "Labels taken off every task (by id or name)" }),
    delete: z.literal(true).optional().openapi({ description: "Deletes the tasks (with their subtasks and comments), as DELETE does" }),
    dryRun: z.boolean().optional().openapi({ description: "Answers as the write would, and writes nothing" }),
  })
  .strict()
  .openapi("TaskBulk");
export type TaskBulkInput = z.infer<typeof TaskBulk>;

const Change = z.object({ from: z.unknown(), to: z.unknown() });
export const TaskBulkResult = z
  .object({
    matched: z.number().int().openapi({ description: "Tasks the ids or the filter name" }),
    changed: z.number().int().openapi({ description: "Tasks written (a task already as asked is not)" }),
    tasks: z.array(
      z.object({
        id: z.string(),
        reference: z.string(),
        changes: z.record(z.string(), Change).openapi({
          description:
            "Each changed field as `{from, to}`, as the task's `task.updated` event says; empty for a task left as it was, or deleted",
        }),
      }),
    ),
    position: z.string().nullable().openapi({ description: "The write's position, as its PM-Position header (GET /events?after=)" }),
  })
  .openapi("TaskBulkResult");
export type TaskBulkAnswer = z.infer<typeof TaskBulkResult>;

/** The links `set` may name: checked against each task's team (or the workspace) before the write. */
const LINKS = ["projectId", "milestoneId", "cycleId", "assigneeId", "delegateId"] as const;

/** A matched task as the statement reads it, with whether the caller may write it; its links only in the read alone. */
interface Matched {
  id: string;
  reference: string;
  may: boolean;
}
type MatchedWithLinks = Matched & { teamId: string; projectId: string | null; milestoneId: string | null };
interface Verdict {
  live: boolean;
  complete: boolean;
  labels: boolean;
  matched: Matched[] | null;
}

/** What the write stores on each task it changes: `set`'s columns (links resolved) and the tasks that lose their milestone. */
interface Values {
  columns: Record<string, unknown>;
  clearMilestone: string[];
}

/** Whether writing `values` (and the label edit) changes the task's row: a task already as asked is not written at all. */
function changing(caller: Caller, input: TaskBulkInput, values: Values): SQL {
  if (input.delete) return sql`true`;
  const terms = Object.entries(values.columns).map(([name, value]) =>
    name === "status"
      ? sql`not coalesce(${statusFilter(tasks.status)("eq", [value as string])}, false)`
      : sql`${(tasks as unknown as Record<string, AnyColumn>)[name]} is distinct from ${value}`,
  );
  if (values.clearMilestone.length)
    terms.push(sql`(${tasks.id} = any(${sql.param(values.clearMilestone)}::text[]) and ${tasks.milestoneId} is not null)`);
  if (input.addLabelIds?.length || input.removeLabelIds?.length) {
    terms.push(labelEditChanges("task", caller.actor.workspace, tasks.id, input.addLabelIds ?? [], input.removeLabelIds ?? []));
  }
  return terms.length ? sql`(${sql.join(terms, sql` or `)})` : sql`false`;
}

/**
 * ONE statement: the matched tasks, locked, each with the task write rule's flag; the verdict (every name found, the
 * filter within its limit, every task writable, the labels the workspace's); then, with `values`, the write of every
 * task it changes, only when the verdict holds. Without `values`, the read alone (a transaction's first statement).
 */
function bulkStatement(caller: Caller, input: TaskBulkInput, filter: SQL | undefined, values: Values | null): SQL {
  const { actor } = caller;
  const limit = input.ids ? MAX_BULK : (input.limit ?? MAX_BULK);
  const context = caller.writing();
  const selection = input.ids ? sql`${tasks.id} = any(array(select id from named))` : filter;
  const labelNames = [...(input.addLabelIds ?? []), ...(input.removeLabelIds ?? [])];
  const target = sql`select ${tasks.id} as id, ${taskRecord.fields.reference.value} as reference, ${tasks.teamId} as "teamId",
      ${tasks.projectId} as "projectId", ${tasks.milestoneId} as "milestoneId", coalesce(${taskWriteGuard(actor, tasks.teamId).holds}, false) as may,
      ${values ? sql`coalesce(${changing(caller, input, values)}, false)` : sql`false`} as changes
    from ${taskRecord.from}
    where ${and(taskRecord.inReach(actor), selection, statementBound, context ? contextSet(context) : undefined)}
    order by ${tasks.id} limit ${limit + 1}
    for no key update of ${tasks}`;
  // Every name finds a task in reach: by one of the keys it finds its record by (a batch's reads resolve names so).
  const names = [...new Set(input.ids ?? [])];
  const keys = names.flatMap((name, i) => taskRecord.pathKeys(name).map((key) => [i, key] as const));
  const complete = input.ids
    ? sql`(select count(distinct g.i) from unnest(${sql.param(keys.map(([i]) => i))}::int[], ${sql.param(keys.map(([, key]) => key))}::text[])
        as g(i, key) join named on named.key = g.key join target on target.id = named.id) = ${names.length}`
    : sql`true`;
  const ok = sql`(select ok from verdict)`;
  // What the answer needs of each task; the links' checks also read its team, project and milestone (the read alone).
  const matchedFields = values
    ? sql`json_build_object('id', id, 'reference', reference, 'may', may)`
    : sql`json_build_object('id', id, 'reference', reference, 'may', may, 'teamId', "teamId", 'projectId', "projectId", 'milestoneId', "milestoneId")`;
  const writes: SQL[] = [];
  if (values && input.delete) {
    writes.push(sql`deleted as (delete from ${tasks} where ${tasks.id} = any(array(select id from target where ${ok})) returning id)`);
  } else if (values) {
    const { columns, clearMilestone } = values;
    const stored = clearMilestone.length
      ? {
          ...columns,
          milestoneId: sql`case when ${tasks.id} = any(${sql.param(clearMilestone)}::text[]) then null else ${tasks.milestoneId} end`,
        }
      : columns;
    writes.push(updatedRow(caller, "tasks", tasks, stored, sql`any(array(select id from target where changes and ${ok}))`, true));
    writes.push(...labelEditCtes("task", actor.workspace, input.addLabelIds ?? [], input.removeLabelIds ?? [], "tasks"));
    if (columns.delegateId) writes.push(...delegationCtes(actor.user));
  }
  return sql`
    with ${input.ids ? sql`named as materialized (${taskRecord.keyedIds(names, actor.workspace)}), ` : sql``}
    target as materialized (${target}),
    checks as (select ${caller.live} as live, ${complete} as complete, coalesce(${labelsGuard(actor.workspace, labelNames).holds}, false) as labels),
    verdict as (select checks.*, live and complete and labels and (select count(*) from target) <= ${limit}
      and coalesce((select bool_and(may) from target), true) as ok from checks)
    ${writes.length ? sql`, ${sql.join(writes, sql`, `)}` : sql``}
    select live, complete, labels, (select json_agg(${matchedFields} order by id) from target) as matched from verdict`;
}

/**
 * The events this transaction wrote of tasks (one per task changed, folded by pm_emit): the answer's `changes`, rendered
 * as the events render them. An update's images carry only the columns it changed (its answer stays small for 1,000
 * tasks); a delete's none. A task's two images are rows of one table, so they have the same keys in the same order
 * (jsonb sorts them): walked side by side (ROWS FROM), each once, not one key looked up in the other per key (3× dearer).
 * The label lists as JSON: a thousand rows of three text[] each took the Worker longer to parse than the rest.
 */
const writtenEvents = sql`select ${events.type} as type, ${events.resourceType} as resource_type,
    ${events.resourceId} as resource_id, ${events.reference} as reference, ${events.createdAt} as created_at, changed.old_image, changed.new_image, array_to_json(${events.labelsAfter}) as labels_after,
    array_to_json(${events.labelsAdded}) as labels_added, array_to_json(${events.labelsRemoved}) as labels_removed
  from ${events} left join lateral (
    select coalesce(jsonb_object_agg(p.key, p.before), '{}') as old_image, coalesce(jsonb_object_agg(p.key, p.after), '{}') as new_image
    from rows from (jsonb_each(${events.oldImage}), jsonb_each(${events.newImage})) as p(key, before, after_key, after)
    where p.before is distinct from p.after
  ) as changed on ${events.type} = 'task.updated'
  where ${events.xact} = pg_current_xact_id_if_assigned()::text::bigint and ${events.resourceType} = 'task'`;
const rendering = eventRendering({ task: taskRecord.fields } as unknown as EventRecords);
type WrittenEvent = Parameters<typeof rendering.renderChanges>[0];

/** Throws why the verdict did not let the write happen: 401, 422 naming `ids` or `filter`, 403 naming the tasks, 404 (a label). */
async function refuseUnless(caller: Caller, input: TaskBulkInput, verdict: Verdict): Promise<Matched[]> {
  const matched = verdict.matched ?? [];
  if (!verdict.live) throw await caller.refused();
  if (!verdict.complete) {
    const found = new Set(matched.flatMap((t) => [t.id, t.reference.toLowerCase()]));
    const missing = (input.ids ?? []).filter((name) => !found.has(name) && !found.has(name.toLowerCase()));
    throw invalid("ids", `Names no task you can reach${missing.length ? `: ${missing.join(", ")}` : ""}`);
  }
  const limit = input.limit ?? MAX_BULK;
  if (!input.ids && matched.length > limit) {
    throw invalid("filter", `Matches more than ${limit} tasks: narrow it${limit < MAX_BULK ? " or raise limit" : ""}`);
  }
  const refused = matched.filter((t) => !t.may);
  if (refused.length) {
    const rule = teamRoleRefusal(TASK_WRITE.min, TASK_WRITE.what).message;
    throw forbidden(`${rule}: ${refused.map((t) => t.reference).join(", ")}`, { tasks: refused.map((t) => t.id) });
  }
  if (!verdict.labels) throw labelsGuard(caller.actor.workspace, []).refusal({});
  return matched;
}

/** A refusal keyed by the field of the task it names: `tasks[ENG-12].status`. */
const perTask = (references: string[], errors: Record<string, string[]>) =>
  new ValidationError(
    Object.fromEntries(
      references.flatMap((ref) => Object.entries(errors).map(([field, messages]) => [`tasks[${ref}].${field}`, messages])),
    ),
  );

/**
 * The write, the read of its events and its position (what PM-Position says: read here too, since a request under an
 * Idempotency-Key commits only after its answer is made), in one round trip; a status some task's team lacks is 422
 * naming that task.
 */
async function write(caller: Caller, input: TaskBulkInput, filter: SQL | undefined, values: Values): Promise<TaskBulkAnswer> {
  let rows: Record<string, unknown>[][];
  try {
    rows = await caller.executeWrites([
      bulkStatement(caller, input, filter, values),
      writtenEvents,
      positionSelect(caller.actor.workspace),
    ]);
  } catch (err) {
    const refused = databaseValidation(err);
    if (refused?.detail) throw perTask([refused.detail], refused.errors);
    throw err;
  }
  const [[verdict], written, [{ pm_position }]] = rows as [[Verdict], WrittenEvent[], [{ pm_position: string | null }]];
  const matched = await refuseUnless(caller, input, verdict);
  caller.touch();
  const changes = new Map(written.map((row) => [row.resource_id, rendering.renderChanges(row) ?? {}]));
  return {
    matched: matched.length,
    changed: matched.filter((t) => changes.has(t.id)).length,
    tasks: matched.map((t) => ({ id: t.id, reference: t.reference, changes: changes.get(t.id) ?? {} })),
    position: pm_position,
  };
}

/**
 * `set`'s links checked as PATCH checks them (the same functions): a project, milestone or cycle against each group of
 * tasks alike in team and project (a misfit is 422 keyed by each of its tasks), an assignee or delegate once.
 */
async function resolveLinks(tx: Executor, caller: Caller, set: TaskUpdateInput, matched: MatchedWithLinks[]): Promise<Values> {
  const { actor } = caller;
  const columns = storedValues(set, "update");
  const clearMilestone: string[] = [];
  const links = { projectId: set.projectId, milestoneId: set.milestoneId, cycleId: set.cycleId };
  if (Object.values(links).some((v) => v !== undefined)) {
    const groups = new Map<string, MatchedWithLinks[]>();
    for (const t of matched) {
      const key = `${t.teamId} ${t.projectId} ${t.milestoneId !== null}`;
      groups.set(key, [...(groups.get(key) ?? []), t]);
    }
    const errors: ValidationError[] = [];
    for (const group of groups.values()) {
      const [first] = group;
      try {
        const { milestoneId, ...out } = await resolveReferences(tx, actor, first.teamId, links, {
          ...first,
          cycleId: null,
          parentId: null,
          taskId: first.id,
        });
        Object.assign(columns, out);
        if (links.milestoneId !== undefined) columns.milestoneId = milestoneId;
        else if (milestoneId === null) clearMilestone.push(...group.map((t) => t.id));
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        errors.push(
          perTask(
            group.map((t) => t.reference),
            err.errors,
          ),
        );
      }
    }
    if (errors.length) throw new ValidationError(Object.assign({}, ...errors.map((e) => e.errors)));
  }
  if (set.assigneeId !== undefined)
    columns.assigneeId = set.assigneeId && (await workspaceMember(tx, actor.workspace, set.assigneeId, "Assignee"));
  if (set.delegateId !== undefined) columns.delegateId = set.delegateId && (await workspaceAgent(tx, actor.workspace, set.delegateId));
  return { columns, clearMilestone };
}

/** A dry run's answer: the write made and read in a savepoint, then undone. */
class DryRun {
  constructor(readonly answer: TaskBulkAnswer) {}
}

/** What the body's fields say together (REST and MCP alike): 422 naming the field. */
function checkShape(body: TaskBulkInput): void {
  if ((body.ids === undefined) === (body.filter === undefined)) throw invalid("ids", "Give exactly one of ids and filter");
  if (body.limit !== undefined && body.filter === undefined) throw invalid("limit", "Bounds what a filter matches: give it with filter");
  const edits = body.set !== undefined || body.addLabelIds !== undefined || body.removeLabelIds !== undefined;
  if (body.delete && edits) throw invalid("delete", "Deletes the tasks: give it without set, addLabelIds and removeLabelIds");
  if (!body.delete && !edits) throw invalid("set", "Give set, addLabelIds, removeLabelIds or delete");
}

/**
 * POST /tasks/bulk. Without links or a dry run: ONE statement with its events' read, one round trip. Otherwise one
 * transaction: the tasks read and locked (the verdict's refusals first), the links checked, then the same write.
 */
export async function bulkTasks(caller: Caller, input: TaskBulkInput): Promise<TaskBulkAnswer> {
  checkShape(input);
  // The list's filter, by the list's names (custom fields resolve first, as a list's do: one query).
  const filter = input.filter
    ? (
        await (
          await caller.listParams(taskRecord.list, filterSortQuery({ filter: input.filter }))
        ).resolve(caller.db, caller.actor.workspace)
      ).where
    : undefined;
  const set = (input.set ?? {}) as TaskUpdateInput;
  const linking = !input.delete && LINKS.some((name) => set[name] !== undefined);
  if (!linking && !input.dryRun) return write(caller, input, filter, { columns: storedValues(set, "update"), clearMilestone: [] });
  return caller.transaction(async (tx) => {
    let values: Values = { columns: storedValues(set, "update"), clearMilestone: [] };
    if (linking) {
      const [[verdict]] = (await caller.executeWrites([bulkStatement(caller, input, filter, null)])) as unknown as [[Verdict]];
      values = await resolveLinks(tx, caller, set, (await refuseUnless(caller, input, verdict)) as MatchedWithLinks[]);
    }
    if (!input.dryRun) return write(caller, input, filter, values);
    try {
      await caller.db.transaction(async () => {
        throw new DryRun(await write(caller, input, filter, values));
      });
    } catch (err) {
      if (!(err instanceof DryRun)) throw err;
      // Its position: the workspace's latest event, as a write that wrote nothing answers (its own events are undone).
      const [{ pm_position }] = (await tx.execute<{ pm_position: string | null }>(positionSelect(caller.actor.workspace))).rows;
      return { ...err.answer, position: pm_position };
    }
    throw new Error("A dry run's savepoint ended without its answer");
  });
}
