import { and, eq, not, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { labels, projectLabels, taskLabels } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { badRequest, notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type FilterOp, type ListParams, type ListSpec, pageQuery } from "../../http/list";

type LabelRow = typeof labels.$inferSelect;
export const serializeLabel = (l: LabelRow) => ({
  id: l.id,
  name: l.name,
  color: l.color,
  createdAt: iso(l.createdAt),
  updatedAt: iso(l.updatedAt),
});

export const labelList: ListSpec = {
  resource: "labels",
  id: labels.id,
  fields: {
    id: { expr: labels.id, kind: "id" },
    name: { expr: labels.name, kind: "string" },
    color: { expr: labels.color, kind: "string" },
    createdAt: { expr: labels.createdAt, kind: "datetime" },
    updatedAt: { expr: labels.updatedAt, kind: "datetime" },
  },
  shape: { id: true, name: true, color: true, createdAt: true, updatedAt: true },
};

export const mine = (workspaceId: WorkspaceScope, id: string) => and(eq(labels.workspaceId, workspaceId), eq(labels.id, id));

export async function listLabels(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await pageQuery(db.select().from(labels).$dynamic(), eq(labels.workspaceId, workspaceId), params);
  return rows.map(serializeLabel);
}

export async function getLabel(db: Executor, workspaceId: WorkspaceScope, id: string) {
  const [row] = await db.select().from(labels).where(mine(workspaceId, id));
  if (!row) throw notFound("Label");
  return serializeLabel(row);
}

type LabelSummary = { id: string; name: string; color: string };
export type LabelOwner = "task" | "project";
const LINKS = {
  task: { table: taskLabels, owner: taskLabels.taskId },
  project: { table: projectLabels, owner: projectLabels.projectId },
} as const;
/** The table that attaches labels to a task or a project, and its owner column. */
export const labelLinks = (owner: LabelOwner) => LINKS[owner];

/** Labels of a task or project as a JSON array built in SQL (one query for a whole page, no query per row). */
export function labelsJson(owner: LabelOwner, ownerId: AnyPgColumn): SQL<LabelSummary[]> {
  const { table, owner: ownerColumn } = labelLinks(owner);
  return sql<
    LabelSummary[]
  >`coalesce((select json_agg(json_build_object('id', ${labels.id}, 'name', ${labels.name}, 'color', ${labels.color}) order by ${labels.name}, ${labels.id}) from ${table} join ${labels} on ${labels.id} = ${table.labelId} where ${ownerColumn} = ${ownerId}), '[]'::json)`;
}

/**
 * The `labelId` filter of the task and project lists: rows carrying the label (`in`: any of them; `neq`: not
 * carrying it); the value `null` stands for "no label at all".
 */
export function labelFilter(owner: LabelOwner, ownerId: AnyPgColumn) {
  const { table, owner: ownerColumn } = labelLinks(owner);
  const carrying = (ids: string[]) =>
    sql`exists (select 1 from ${table} where ${ownerColumn} = ${ownerId}${
      ids.length
        ? sql` and ${table.labelId} in (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : sql``
    })`;
  return (op: FilterOp, values: string[]): SQL => {
    const ids = values.filter((v) => v !== "null");
    if (op === "neq") return ids.length ? not(carrying(ids)) : carrying([]);
    if (op !== "eq" && op !== "in") {
      throw badRequest(`Operator '${op}' does not apply to 'labelId'`, { field: "labelId", operator: op, allowed: ["eq", "neq", "in"] });
    }
    const terms = ids.length ? [carrying(ids)] : [];
    if (ids.length < values.length) terms.push(not(carrying([])));
    return or(...terms) ?? sql`false`;
  };
}
