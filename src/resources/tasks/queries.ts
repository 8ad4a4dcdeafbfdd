import type { WithSubquery } from "drizzle-orm";
import { and, eq, not, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { taskPriority, taskStatus, tasks, teams, users } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { badRequest, notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type FieldSelection, type FilterOp, type ListParams, type ListSpec, pageQuery, selects } from "../../http/list";
import { customFieldsOf } from "../fields/list-fields";
import { labelFilter, labelsJson } from "../labels/queries";
import { parseTaskRef, taskMatch, taskReference } from "../refs";
import { userSummaryJson } from "../users/serialize";
import type { TaskDto } from "./schema";

const assignee = alias(users, "assignee");

function taskColumns(fields: FieldSelection | null) {
  return {
    id: tasks.id,
    number: tasks.number,
    title: tasks.title,
    status: tasks.status,
    priority: tasks.priority,
    description: tasks.description,
    dueDate: tasks.dueDate,
    teamId: tasks.teamId,
    team: { id: teams.id, name: teams.name, prefix: teams.prefix },
    projectId: tasks.projectId,
    milestoneId: tasks.milestoneId,
    parentId: tasks.parentId,
    assigneeId: tasks.assigneeId,
    assignee: selects(fields, "assignee") ? userSummaryJson(assignee) : sql<null>`null`,
    labels: selects(fields, "labels") ? labelsJson("task", tasks.id) : sql<[]>`'[]'::json`,
    customFields: tasks.customFields,
    createdAt: tasks.createdAt,
    updatedAt: tasks.updatedAt,
  };
}

/**
 * The one SELECT that builds Task objects (team joined, assignee and labels embedded): a single round trip for
 * one task or a whole page. The caller adds the workspace condition. `ctes` lead the statement; the create uses
 * them to put the rows it inserts under the table names this SELECT reads (see insertTask).
 */
export function selectTasks(db: Executor, fields: FieldSelection | null = null, ctes: WithSubquery[] = []) {
  // A sub-object is built in SQL only when `fields` selects it; otherwise a cheap stand-in that projection drops.
  return (ctes.length ? db.with(...ctes) : db)
    .select(taskColumns(fields))
    .from(tasks)
    .innerJoin(teams, eq(teams.id, tasks.teamId))
    .leftJoin(assignee, eq(assignee.id, tasks.assigneeId));
}

type TaskRow = Awaited<ReturnType<typeof selectTasks>>[number];

export function serializeTask(row: TaskRow): TaskDto {
  return {
    id: row.id,
    reference: taskReference(row.team.prefix, row.number),
    title: row.title,
    status: row.status,
    priority: row.priority,
    description: row.description,
    dueDate: row.dueDate,
    teamId: row.teamId,
    team: row.team,
    projectId: row.projectId,
    milestoneId: row.milestoneId,
    parentId: row.parentId,
    assigneeId: row.assigneeId,
    assignee: row.assignee,
    labels: row.labels,
    customFields: row.customFields,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/**
 * The serialized task by id or reference (`ENG-12`, any case) within the workspace, in one query; NOT_FOUND
 * otherwise. Reusable by export, batch and search.
 */
export async function taskById(
  db: Executor,
  workspaceId: WorkspaceScope,
  idOrRef: string,
  fields: FieldSelection | null = null,
): Promise<TaskDto> {
  const [row] = await selectTasks(db, fields)
    .where(and(eq(tasks.workspaceId, workspaceId), taskMatch(idOrRef)))
    .limit(1);
  if (!row) throw notFound("Task");
  return serializeTask(row);
}

const unsupported = (name: string, op: FilterOp) =>
  badRequest(`Operator '${op}' does not apply to '${name}'`, { field: name, operator: op, allowed: ["eq", "neq", "in"] });

/** `reference` filters by `ENG-12` (any case); a value that is not a reference matches nothing. */
function referenceFilter(op: FilterOp, values: string[]): SQL {
  const match = (value: string) => {
    const ref = parseTaskRef(value);
    return ref ? and(eq(teams.prefix, ref.prefix), eq(tasks.number, ref.number))! : sql`false`;
  };
  if (op === "eq" || op === "in") return or(...values.map(match))!;
  if (op === "neq") return not(match(values[0]));
  throw unsupported("reference", op);
}

/** Trailing number of `PREFIX-n`: the cursor value of a `number` sort, read from the API item. */
const numberOf = (item: Record<string, unknown>) => Number(String(item.reference).slice(String(item.reference).lastIndexOf("-") + 1));

export const taskList: ListSpec = {
  resource: "tasks",
  id: tasks.id,
  fields: {
    id: { expr: tasks.id, kind: "id" },
    reference: { expr: tasks.number, kind: "id", sort: false, customFilter: referenceFilter },
    number: { expr: tasks.number, kind: "number", cursorValue: numberOf },
    title: { expr: tasks.title, kind: "string" },
    description: { expr: tasks.description, kind: "string", sort: false },
    status: { expr: tasks.status, kind: "enum", values: taskStatus.enumValues },
    // The Postgres enum is declared in rank order, so the column itself sorts and compares by rank.
    priority: { expr: tasks.priority, kind: "enum", values: taskPriority.enumValues },
    dueDate: { expr: tasks.dueDate, kind: "date", nullable: true },
    teamId: { expr: tasks.teamId, kind: "id" },
    projectId: { expr: tasks.projectId, kind: "id", nullable: true },
    milestoneId: { expr: tasks.milestoneId, kind: "id", nullable: true },
    parentId: { expr: tasks.parentId, kind: "id", nullable: true },
    assigneeId: { expr: tasks.assigneeId, kind: "id", nullable: true },
    labelId: { expr: tasks.id, kind: "id", nullable: true, sort: false, customFilter: labelFilter("task", tasks.id) },
    createdAt: { expr: tasks.createdAt, kind: "datetime" },
    updatedAt: { expr: tasks.updatedAt, kind: "datetime" },
  },
  shape: {
    id: true,
    reference: true,
    title: true,
    status: true,
    priority: true,
    description: true,
    dueDate: true,
    teamId: true,
    team: { id: true, name: true, prefix: true },
    projectId: true,
    milestoneId: true,
    parentId: true,
    assigneeId: true,
    assignee: { id: true, name: true, email: true, avatarUrl: true, humanId: true },
    labels: { id: true, name: true, color: true },
    customFields: true,
    createdAt: true,
    updatedAt: true,
  },
  dynamic: customFieldsOf("task", tasks.customFields),
};

/**
 * One page (limit + 1 rows) of the workspace's tasks, in one query whatever the page size; filters and sorts on
 * `customFields.<key>` first look up those keys' definitions (one more query).
 */
export async function listTasks(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const page = await params.resolve(db, workspaceId);
  const rows = await pageQuery(selectTasks(db, page.fields).$dynamic(), eq(tasks.workspaceId, workspaceId), page);
  return rows.map(serializeTask);
}
