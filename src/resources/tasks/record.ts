// The Task record: its one field map (docs/architecture.md, "One shape per resource"). The answer's JSON and schema, the
// `fields` shape, the list's filters and sorts, the request bodies, the columns a write stores, and the export record
// with what an import checks all come from `taskRecord`; a new field is one entry here (and its column).
import { z } from "@hono/zod-openapi";
import { and, eq, not, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { taskPriority, tasks, teams, users, workspaceMembers } from "../../../drizzle/schema";
import { badRequest, invalid, notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { customFieldsField, customFieldsOf } from "../../records/custom-fields";
import { type NameKind, NameOf, named, namesAny, parseTaskRef, pathNames } from "../../records/names";
import {
  StateCategory,
  StatusKey,
  SubtaskCounts,
  statusCursorBound,
  statusCursorValue,
  statusFilter,
  statusPosition,
  TaskStatus,
  TaskStatusInput,
} from "../../records/task-status";
import { defineRecord, exportedTimestamps, f } from "../../store/field-map";
import type { FilterOp } from "../../store/list";
import { BodyId, IsoDate, LongText, orNull } from "../../store/schemas";
import { TaskSessionSummary, taskSessionJson } from "../agent-sessions/record";
import { LabelIds, LabelSummary, labelFilter, labelIdsJson, labelsJson } from "../labels/record";
import { linkRecord, linksJson, TaskLink } from "../links/record";
import { MILESTONE_ID } from "../milestones/record";
import {
  isBlockedSql,
  openBlockerCount,
  relatedToFilter,
  relationsJson,
  subtaskCountsJson,
  TaskRelation,
  taskRelationShape,
} from "../relations/record";
import { TeamSummary, teamSummaryJson } from "../teams/record";
import { UserSummarySchema, userSummaryJson, userSummaryShape } from "../users/record";
import { EstimateSeconds, TimeTracking, TimeTrackingInput, timeTrackingJson, timeTrackingShape } from "../worklogs/record";
import { claimJson, storedClaim, TaskClaim } from "./claims-record";

export { TaskStatus };
/** Declared in rank order (NONE lowest), so sorting and gt/lt filters on the column follow the rank. */
export const TaskPriority = z.enum(taskPriority.enumValues).openapi("TaskPriority");

const unsupported = (name: string, op: FilterOp) =>
  badRequest(`Operator '${op}' does not apply to '${name}'`, { field: name, operator: op, allowed: ["eq", "neq", "in"] });

/** `reference` filters by `ENG-12` (any case); a value that is not a reference is 400, never an empty list. */
function referenceFilter(op: FilterOp, values: string[]): SQL {
  const match = (value: string) => {
    if (!parseTaskRef(value)) {
      throw badRequest(`Invalid value '${value}' for filter field 'reference': expected a reference such as ENG-12`, {
        field: "reference",
        expected: "a reference (`ENG-12`)",
      });
    }
    return value;
  };
  // Across workspaces, as every named filter: the list's own workspace condition keeps the others out.
  const referenced = (refs: string[]) => namesAny("task", tasks.id, refs.map(match));
  if (op === "eq" || op === "in") return referenced(values);
  if (op === "neq") return not(referenced([values[0]]));
  throw unsupported("reference", op);
}

/** Trailing number of `PREFIX-n`: the cursor value of a `number` sort, read from the answer. */
const numberOf = (item: Record<string, unknown>) => Number(String(item.reference).slice(String(item.reference).lastIndexOf("-") + 1));

const assignee = alias(users, "assignee");
/** A task's estimate in points. */
const Points = z.number().int().min(0).max(1_000_000);
const resolved = (kind: NameKind, also: string) => ({ schema: NameOf(kind, also).nullable(), write: "resolved" as const });

export const taskRecord = defineRecord({
  name: "Task",
  resource: "tasks",
  id: tasks.id,
  workspace: tasks.workspaceId,
  team: tasks.teamId,
  ...pathNames("task", tasks.id),
  from: sql`${tasks} join ${teams} on ${teams.id} = ${tasks.teamId} left join ${users} as ${sql.identifier("assignee")} on ${assignee.id} = ${tasks.assigneeId}`,
  fields: {
    id: f.id(tasks.id, { names: named("task"), exported: BodyId, doc: { example: "task_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    reference: f.text(sql`${teams.prefix} || '-' || ${tasks.number}`, {
      list: { kind: "id", sort: false, customFilter: referenceFilter, example: "ENG-12" },
      exported: z.string().max(32),
      doc: { example: "ENG-12", description: "`<team prefix>-<number>`, never reused" },
    }),
    number: f.integer(tasks.number, { hidden: true, list: { cursorValue: numberOf } }),
    title: f.text(tasks.title, {
      builtIn: { name: "Title" },
      input: { schema: z.string().trim().min(1).max(500), create: "required" },
      exported: true,
    }),
    // A key of the team's workflow states (docs/api.md, "Workflow states"): written by key or name, filtered by either, sorted by the
    // state's position in its team; the trigger pm_task_state checks it and keeps the category and times below.
    status: f.text(tasks.status, {
      builtIn: { name: "Status" },
      input: { schema: TaskStatusInput },
      // An export holds keys; an import creates a key its team lacks (migrations/functions/pm_task_state.sql).
      exported: StatusKey,
      list: {
        expr: statusPosition(tasks),
        ops: ["eq", "neq", "in"],
        customFilter: statusFilter(tasks.status),
        cursorValue: statusCursorValue,
        cursorBound: statusCursorBound,
        example: "IN_PROGRESS",
      },
      doc: { description: "The key of one of the team's workflow states (GET /teams/{id}/states)", example: "IN_PROGRESS" },
    }),
    statusCategory: f.enum(tasks.statusCategory, StateCategory, {
      doc: { description: "The category of the task's state: what its status means (`filter[in][statusCategory]=started`)" },
    }),
    startedAt: f.datetime(tasks.startedAt, {
      nullable: true,
      doc: { description: "When the task entered a `started` state; null while it is in no started state" },
    }),
    completedAt: f.datetime(tasks.completedAt, {
      nullable: true,
      doc: { description: "When the task entered a `completed` state; null while it is in no completed state" },
    }),
    canceledAt: f.datetime(tasks.canceledAt, {
      nullable: true,
      doc: { description: "When the task entered a `canceled` state; null while it is in no canceled state" },
    }),
    priority: f.enum(tasks.priority, TaskPriority, {
      builtIn: { name: "Priority" },
      input: { schema: TaskPriority, create: { default: "NONE" } },
      exported: true,
    }),
    description: f.text(tasks.description, {
      builtIn: { name: "Description" },
      list: { sort: false },
      input: { schema: LongText, create: { default: "" } },
      exported: true,
      doc: { description: "Markdown; empty string when not set" },
    }),
    dueDate: f.date(tasks.dueDate, {
      builtIn: { name: "Due date" },
      nullable: true,
      input: { schema: IsoDate.nullable() },
      exported: true,
      doc: { description: "YYYY-MM-DD" },
    }),
    estimate: f.integer(tasks.estimate, {
      builtIn: { name: "Estimate" },
      nullable: true,
      input: { schema: Points.nullable() },
      // Added after the document's first version: absent from older exports, which import with none.
      exported: Points.nullable().default(null),
      doc: { description: "Points; null when not estimated" },
    }),
    // Time tracking: the stored estimate and what remains (set through `timeTracking` in bodies, exported as they are).
    estimateSeconds: f.integer(tasks.estimateSeconds, {
      hidden: true,
      nullable: true,
      list: false,
      input: { schema: EstimateSeconds.nullable() },
      exported: EstimateSeconds.nullable().default(null),
    }),
    remainingSeconds: f.integer(tasks.remainingSeconds, {
      hidden: true,
      nullable: true,
      list: false,
      input: { schema: EstimateSeconds.nullable() },
      exported: EstimateSeconds.nullable().default(null),
    }),
    timeTracking: f.json(timeTrackingJson(tasks), TimeTracking, { shape: timeTrackingShape, created: timeTrackingJson(tasks, true) }),
    teamId: f.id(tasks.teamId, { names: named("team"), exported: BodyId }),
    team: f.json(teamSummaryJson(teams), TeamSummary, { shape: { id: true, name: true, prefix: true } }),
    projectId: f.id(tasks.projectId, {
      names: named("project"),
      builtIn: { name: "Project", type: "relation", metadata: { target: "project" } },
      nullable: true,
      input: resolved("project", "of the task's team"),
      exported: BodyId.nullable(),
    }),
    milestoneId: f.id(tasks.milestoneId, {
      names: named(MILESTONE_ID),
      builtIn: { name: "Milestone", type: "relation", metadata: { target: "milestone" } },
      nullable: true,
      input: resolved(MILESTONE_ID, "of the task's project"),
      exported: BodyId.nullable(),
    }),
    cycleId: f.id(tasks.cycleId, {
      names: named("cycle"),
      builtIn: { name: "Cycle", type: "relation", metadata: { target: "cycle" } },
      nullable: true,
      input: resolved("cycle", "of the task's team, not ended"),
      exported: BodyId.nullable().default(null),
    }),
    parentId: f.id(tasks.parentId, {
      names: named("task"),
      builtIn: { name: "Parent task", type: "relation", metadata: { target: "task" } },
      nullable: true,
      input: resolved("task", "of the same team; no cycles"),
      exported: BodyId.nullable(),
      doc: { description: "Parent task of a subtask" },
    }),
    assigneeId: f.id(tasks.assigneeId, {
      names: named("user"),
      builtIn: { name: "Assignee", type: "user" },
      nullable: true,
      input: resolved("user", "a member of the workspace"),
      exported: BodyId.nullable(),
    }),
    delegateId: f.id(tasks.delegateId, {
      names: named("user"),
      nullable: true,
      input: resolved("user", "an agent of the workspace, who works on the task for its assignee; setting it opens an agent session"),
      // Added after the document's first version (delegation): absent from older exports, which import with none.
      exported: BodyId.nullable().default(null),
    }),
    session: f.json(taskSessionJson(tasks.id, tasks.delegateId), orNull(TaskSessionSummary), { shape: { id: true, state: true } }),
    assignee: f.json(userSummaryJson(assignee), orNull(UserSummarySchema), { lazy: true, shape: userSummaryShape }),
    labels: f.json(labelsJson("task", tasks.id), z.array(LabelSummary), {
      builtIn: { name: "Labels", type: "relation", metadata: { target: "label", multiple: true } },
      lazy: true,
      shape: { id: true, name: true, color: true },
    }),
    labelIds: f.json(labelIdsJson("task", tasks.id), LabelIds, {
      hidden: true,
      input: {
        schema: LabelIds.openapi({ description: "Labels of the workspace, by id or name (any case); replaces the whole set on update" }),
        write: "resolved",
        column: false,
      },
      exported: true,
    }),
    // Not in the answer: `filter[eq][labelId]=…` matches tasks carrying the label (`in`: any of them).
    labelId: f.id(tasks.id, {
      names: named("label"),
      hidden: true,
      nullable: true,
      list: { sort: false, customFilter: labelFilter("task", tasks.id) },
    }),
    customFields: customFieldsField(tasks.customFields),
    blockedByCount: f.integer(openBlockerCount(tasks.id), {
      list: false,
      created: sql`0`,
      doc: { description: "Tasks that block this one and are in a state neither `completed` nor `canceled` (of any team)" },
    }),
    subtaskCounts: f.json(subtaskCountsJson(tasks.id), SubtaskCounts, {
      shape: { total: true, done: true },
      created: sql`json_build_object('total', 0, 'done', 0)`,
    }),
    claim: f.json(claimJson, orNull(TaskClaim), {
      shape: { holderId: true, expiresAt: true },
      stored: storedClaim,
      doc: { description: "Who holds the task (POST /tasks/{id}/claim) until when; null when no live claim does" },
    }),
    // Only in `fields=relations{…}`: those whose other task the caller may read (GET /tasks/{id}/relations' items).
    relations: f.json(sql`null`, z.array(TaskRelation), {
      optional: true,
      shape: taskRelationShape,
      reached: relationsJson(tasks.id),
      doc: { description: "Only when `fields` names it, e.g. `relations{type,task{reference,status}}`" },
    }),
    // Only in `fields=links{…}`: GET /tasks/{id}/links' items, in the statement that reads the task.
    links: f.json(linksJson(tasks.id), z.array(TaskLink), {
      optional: true,
      onlyNamed: true,
      shape: linkRecord.shape,
      doc: { description: "Only when `fields` names it, e.g. `links{url,title}`" },
    }),
    // Not in the answer: `filter[eq][isBlocked]=true|false`, `filter[eq][relatedTo]=<task id or reference>`.
    isBlocked: f.boolean(isBlockedSql(tasks.id), { hidden: true, list: { sort: false } }),
    relatedTo: f.id(tasks.id, { hidden: true, names: named("task"), list: { sort: false, customFilter: relatedToFilter } }),
    ...exportedTimestamps(tasks),
  },
  dynamic: customFieldsOf("task", tasks.customFields),
});

export const Task = taskRecord.schema;
export type TaskDto = z.infer<typeof Task>;
export const TaskSelection = taskRecord.selection;

/** The stored time-tracking columns are set through `timeTracking` (an object), not as fields of their own. */
const { estimateSeconds: _e, remainingSeconds: _r, ...createShape } = taskRecord.createShape();
const { estimateSeconds: _ue, remainingSeconds: _ur, ...updateShape } = taskRecord.inputShape() as Record<string, z.ZodType>;

export const TaskCreate = z
  .object({
    teamId: NameOf("team", "required (400 BAD_REQUEST when missing)"),
    ...createShape,
    timeTracking: TimeTrackingInput.optional(),
  })
  .strict()
  .openapi("TaskCreate");
/** Moving a task to another team is not supported, so `teamId` is an unknown field here (422). */
export const TaskUpdate = z
  .object({ ...updateShape, timeTracking: TimeTrackingInput })
  .partial()
  .strict()
  .openapi("TaskUpdate");

/** What a create or update body names that the operation resolves; every other field is stored as sent. */
export interface TaskResolvedFields {
  projectId?: string | null;
  milestoneId?: string | null;
  cycleId?: string | null;
  parentId?: string | null;
  assigneeId?: string | null;
  delegateId?: string | null;
  labelIds?: string[];
  customFields?: Record<string, unknown>;
}
export type TaskCreateInput = TaskResolvedFields & { teamId: string } & Record<string, unknown>;
export type TaskUpdateInput = TaskResolvedFields & Record<string, unknown>;

/** An exported task as an import reads it: the records and ids it maps by name; every other field is written as exported. */
export type ExportedTask = {
  id: string;
  reference: string;
  teamId: string;
  projectId: string | null;
  milestoneId: string | null;
  cycleId: string | null;
  parentId: string | null;
  assigneeId: string | null;
  delegateId: string | null;
  labelIds: string[];
  customFields: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
} & Record<string, unknown>;

/** Why a delegate that names a person is refused (POST/PATCH /tasks, an import). */
export const NOT_AN_AGENT = "Must be an agent of the workspace (a person is an assignee)";

/**
 * The agent a body's `delegateId` names (id or email), a member of the caller's workspace: 404 when it names nobody there
 * (as an unknown assignee), 422 at the field when it names a person.
 */
export async function workspaceAgent(db: Executor, workspaceId: WorkspaceScope, idOrEmail: string): Promise<string> {
  const [row] = await db
    .select({ userId: workspaceMembers.userId, type: users.type })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), namesAny("user", workspaceMembers.userId, [idOrEmail])))
    .limit(1);
  if (!row) throw notFound("Delegate");
  if (row.type !== "AGENT") throw invalid("delegateId", NOT_AN_AGENT);
  return row.userId;
}
