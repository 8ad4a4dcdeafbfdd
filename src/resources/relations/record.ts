// The TaskRelation record (docs/api.md "Task relations"): a relation as one of its tasks sees it (its type
// read from that side, the other task's summary), over task_relation_views; and the stored edge (source, type, target),
// which events render and exports carry.
import { z } from "@hono/zod-openapi";
import { or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { taskRelations, taskRelationType, taskRelationViews, tasks, teams } from "../../../drizzle/schema";
import { badRequest } from "../../core/errors";
import type { Executor } from "../../db/client";
import { inTeams, type Reach, type TeamScope } from "../../db/scope";
import { idKind, named, taskMatch } from "../../records/names";
import { isClosed, TaskSummary, taskSummaryJson, taskSummaryShape } from "../../records/task-status";
import { defineRecord, f } from "../../store/field-map";
import type { FilterOp } from "../../store/list";
import { BodyId, ExportTimestamp } from "../../store/schemas";

/** How a request names a relation: by its id (`rel_…`) only. */
export const RELATION_ID = idKind("a relation id", "rel");

/** What a request asks for, from the task in its path: `blocked_by` is stored as `blocks` from the other side. */
export const RelationType = z.enum(["blocks", "blocked_by", "duplicate_of", "related"]).openapi("TaskRelationType");
export type RelationTypeName = z.infer<typeof RelationType>;
/** What an answer says, from the task it is read under: a duplicate's original sees `duplicated_by`. */
export const RelationSide = z.enum(["blocks", "blocked_by", "duplicate_of", "duplicated_by", "related"]).openapi("TaskRelationSide");
const StoredType = z.enum(taskRelationType.enumValues).openapi("TaskRelationStoredType");

const v = taskRelationViews;
const other = alias(tasks, "other_task");
const otherTeam = alias(teams, "other_team");

/** A relation as seen from `v.task_id`, the other task and its team joined. */
export const relationFrom = sql`${v} join ${tasks} as ${sql.identifier("other_task")} on ${other.id} = ${v.otherTaskId}
  join ${teams} as ${sql.identifier("other_team")} on ${otherTeam.id} = ${other.teamId}`;

export const relationRecord = defineRecord({
  name: "TaskRelation",
  resource: "task-relations",
  id: v.id,
  workspace: v.workspaceId,
  // The other task's team: a caller sees a relation only when it may read the task at its other end.
  team: v.otherTeamId,
  from: relationFrom,
  fields: {
    id: f.id(v.id, { names: named(RELATION_ID), doc: { example: "rel_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    type: f.enum(v.type, RelationSide, { list: { sort: false }, doc: { description: "Read from the task the relation is listed under" } }),
    task: f.json(taskSummaryJson(other, otherTeam), TaskSummary, { shape: taskSummaryShape, doc: { description: "The other task" } }),
    createdAt: f.datetime(v.createdAt),
    createdBy: f.id(v.creatorId, { nullable: true, list: false, doc: { description: "The user who made it (null once removed)" } }),
  },
});
export const TaskRelation = relationRecord.schema;
export type TaskRelationDto = z.infer<typeof TaskRelation>;
export const TaskRelationSelection = relationRecord.selection;

export const TaskRelationCreate = z
  .object({
    type: RelationType,
    taskId: BodyId.openapi({ description: "The other task: id or reference (`ENG-12`), any team of the workspace" }),
  })
  .strict()
  .openapi("TaskRelationCreate");
export type TaskRelationCreateInput = z.infer<typeof TaskRelationCreate>;

/** The stored edge: what its events carry as `data` and an export as a relation. */
export const storedRelationRecord = defineRecord({
  name: "StoredTaskRelation",
  resource: "stored-task-relations",
  id: taskRelations.id,
  workspace: taskRelations.workspaceId,
  team: taskRelations.sourceTeamId,
  from: sql`${taskRelations}`,
  fields: {
    id: f.id(taskRelations.id, { names: named(RELATION_ID), exported: BodyId }),
    type: f.enum(taskRelations.type, StoredType, { exported: true }),
    sourceTaskId: f.id(taskRelations.sourceTaskId, { names: named("task"), exported: BodyId }),
    targetTaskId: f.id(taskRelations.targetTaskId, { names: named("task"), exported: BodyId }),
    createdAt: f.datetime(taskRelations.createdAt, { exported: ExportTimestamp }),
    createdBy: f.id(taskRelations.creatorId, { nullable: true, names: named("user"), exported: BodyId.nullable() }),
  },
});

/** An exported relation as an import reads it. */
export type ExportedRelation = {
  id: string;
  type: z.infer<typeof StoredType>;
  sourceTaskId: string;
  targetTaskId: string;
  createdAt: string;
  createdBy: string | null;
};

/** The stored edge a request names from `taskId`'s side: `blocked_by` is `blocks` from the other task; `related` once a pair. */
export function storedEdge(type: RelationTypeName, taskId: string, otherId: string) {
  if (type === "blocked_by") return { type: "blocks" as const, source: otherId, target: taskId };
  if (type === "related") return { type, source: taskId < otherId ? taskId : otherId, target: taskId < otherId ? otherId : taskId };
  return { type, source: taskId, target: otherId };
}

// What a task answer says of its relations and subtasks, in the statement that reads or writes it. They read the tasks
// table as `public.tasks`: a write's answer is read where a CTE named `tasks` (the written row) shadows the table.
const storedTasks = sql`public.tasks`;

/**
 * A chain of `blocks` edges from `from` to `to` (their references, `…` for a task the caller may not read), known to
 * exist: the tasks `from` blocks, each with a task it is blocked by on the way, then the way back from `to` along those.
 * A SELECT of `ref` in order, so a statement can read it as an array.
 */
export function blockingPath(reach: Reach, from: SQLWrapper, to: SQLWrapper): SQL {
  return sql`
    with recursive reached(id, prev) as (
      select ${from}::text, null::text
      union
      select r.target_task_id, r.source_task_id from ${taskRelations} r join reached on r.source_task_id = reached.id
      where r.type = 'blocks'
    ), back(id, n) as (
      select ${to}::text, 0
      union all
      select p.prev, back.n + 1 from back
        cross join lateral (select reached.prev from reached where reached.id = back.id and reached.prev is not null limit 1) p
      where back.id <> ${from}
    )
    select case when ${inTeams(reach.teams, sql`t.team_id`)} then tm.prefix || '-' || t.number else '…' end as ref
    from back join ${storedTasks} t on t.id = back.id join ${teams} tm on tm.id = t.team_id
    order by back.n desc`;
}

/** The refusal's words for the edge `source blocks target` whose chain back is `path` (from target to source). */
export const cycleText = (path: string[]) => `Would close a cycle: ${[path.at(-1), ...path].join(" blocks ")}`;

/** Why the edge `source blocks target` is refused, its chain back existing: `ENG-3 blocks ENG-1 blocks ENG-2 blocks ENG-3`. */
export async function cycleMessage(tx: Executor, reach: Reach, source: string, target: string): Promise<string> {
  // The new edge first: source blocks target blocks … blocks source.
  const { rows } = await tx.execute<{ ref: string }>(blockingPath(reach, sql`${target}`, sql`${source}`));
  return cycleText(rows.map((row) => row.ref));
}

/**
 * True in SQL when a chain of `blocks` edges leads from `from` to `to` (so an edge `to blocks from` would close a
 * cycle): the tasks `from` blocks, directly or not, each once.
 */
export const blocksReach = (from: SQLWrapper, to: SQLWrapper): SQL => sql`exists (
    with recursive reached(id) as (
      select ${from}::text
      union
      select r.target_task_id from reached join ${taskRelations} r on r.source_task_id = reached.id and r.type = 'blocks'
      where reached.id <> ${to}
    )
    select 1 from reached where id = ${to})`;

/** Blockers of the task `taskId` in a state neither `completed` nor `canceled` (task_relations_target_idx finds its edges). */
const openBlockers = (taskId: SQLWrapper) => sql`from ${taskRelations} r join ${storedTasks} b on b.id = r.source_task_id
  where r.target_task_id = ${taskId} and r.type = 'blocks' and not ${isClosed(sql`b.status_category`)}`;
export const openBlockerCount = (taskId: SQLWrapper) => sql<number>`(select count(*)::int ${openBlockers(taskId)})`;
export const isBlockedSql = (taskId: SQLWrapper) => sql<boolean>`exists (select 1 ${openBlockers(taskId)})`;

/** `{total, done}` of the task's direct subtasks (tasks_parent_idx): done counts those in a `completed` state. */
export const subtaskCountsJson = (taskId: SQLWrapper) =>
  sql`(select json_build_object('total', count(*)::int, 'done', (count(*) filter (where s.status_category = 'completed'))::int)
    from ${storedTasks} s where s.parent_id = ${taskId})`;

export const taskRelationShape = relationRecord.shape;

/** `fields=relations{…}`: the task's relations as GET /tasks/{id}/relations shows them, those the caller may read, oldest first. */
export const relationsJson = (taskId: SQLWrapper) => (reach: Reach) =>
  sql`(select coalesce(json_agg(${relationRecord.json()} order by ${v.createdAt}, ${v.id}), '[]'::json) from ${relationFrom}
    where ${v.taskId} = ${taskId} and ${inTeams(reach.teams, v.otherTeamId)})`;

/**
 * `filter[eq|in][relatedTo]=<task id or reference>`: tasks with a relation of any type, either direction, to one of them
 * (`neq`: to none of them).
 */
export function relatedToFilter(op: FilterOp, values: string[], reached: TeamScope): SQL {
  if (op !== "eq" && op !== "in" && op !== "neq") {
    throw badRequest(`Operator '${op}' does not apply to 'relatedTo'`, { field: "relatedTo", operator: op, allowed: ["eq", "neq", "in"] });
  }
  // The inner `tasks` and `teams` are the named tasks' (taskMatch's columns); the outer `tasks.id` the listed task. Only
  // relations to tasks the caller reaches count: a key bound to teams never learns of a task outside them this way.
  return sql`${op === "neq" ? sql`not ` : sql``}exists (select 1 from ${v} rv where rv.task_id = ${tasks.id}
    and ${inTeams(reached, sql`rv.other_team_id`)} and rv.other_task_id in (
    select ${tasks.id} from ${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}
    where ${tasks.workspaceId} = rv.workspace_id and ${or(...values.map((v) => taskMatch(v, sql`rv.workspace_id`)))}))`;
}
