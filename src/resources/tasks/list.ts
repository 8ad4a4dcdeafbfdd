import { and, eq, not, or, sql, type SQL } from "drizzle-orm";
import { taskLabels, taskPriority, taskStatus, tasks, teams } from "../../../drizzle/schema";
import type { Db, WorkspaceScope } from "../../db/client";
import { badRequest } from "../../core/errors";
import type { FilterOp, ListParams, ListSpec } from "../../http/list";
import { parseTaskRef } from "../refs";
import { selectTasks, serializeTask } from "./read";

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

/** `labelId`: tasks carrying the label (`in`: any of them); `null` stands for "no label at all". */
function labelFilter(op: FilterOp, values: string[]): SQL {
  const having = (ids: string[]) =>
    sql`exists (select 1 from ${taskLabels} where ${taskLabels.taskId} = ${tasks.id}${
      ids.length ? sql` and ${taskLabels.labelId} in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})` : sql``
    })`;
  const ids = values.filter((v) => v !== "null");
  if (op === "neq") return ids.length ? not(having(ids)) : having([]);
  if (op !== "eq" && op !== "in") throw unsupported("labelId", op);
  const terms = ids.length ? [having(ids)] : [];
  if (ids.length < values.length) terms.push(not(having([])));
  return or(...terms)!;
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
    labelId: { expr: tasks.id, kind: "id", nullable: true, sort: false, customFilter: labelFilter },
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
};

/** One page (limit + 1 rows) of the workspace's tasks, in one query whatever the page size. */
export async function listTasks(db: Db, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await selectTasks(db, params.fields)
    .where(and(eq(tasks.workspaceId, workspaceId), params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  return rows.map(serializeTask);
}
