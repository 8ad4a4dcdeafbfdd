// The Label record (its one field map, docs/architecture.md "One shape per resource"), and labels as other records
// carry them: embedded summaries, the label ids of an export, the `labelId` filter, and the statements that make a
// request's `labelIds` a record's label set.
import { z } from "@hono/zod-openapi";
import { getTableName, not, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { labels, projectLabels, taskLabels } from "../../../drizzle/schema";
import { badRequest } from "../../core/errors";
import type { WorkspaceScope } from "../../db/client";
import { foldName, NamesOf, named, namesAny, pathNames } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import type { FilterOp } from "../../store/list";
import { BodyId, HexColor } from "../../store/schemas";

/** Any member creates a label; its name is unique in the workspace, in any case (409). */
export const labelRecord = defineRecord({
  name: "Label",
  resource: "labels",
  id: labels.id,
  workspace: labels.workspaceId,
  team: null,
  ...pathNames("label", labels.id),
  from: sql`${labels}`,
  fields: {
    id: f.id(labels.id, { names: named("label"), exported: BodyId }),
    name: f.text(labels.name, { input: { schema: z.string().trim().min(1).max(100), create: "required" }, exported: true }),
    color: f.text(labels.color, { input: { schema: HexColor, create: "required" }, exported: true }),
    createdAt: f.datetime(labels.createdAt),
    updatedAt: f.datetime(labels.updatedAt),
  },
});

export const Label = labelRecord.schema;
export type LabelDto = z.infer<typeof Label>;
export const LabelSelection = labelRecord.selection;

export const LabelCreate = z.object(labelRecord.createShape()).strict().openapi("LabelCreate");
export const LabelUpdate = z.object(labelRecord.inputShape()).partial().strict().openapi("LabelUpdate");
export type LabelCreateInput = { name: string; color: string } & Record<string, unknown>;
export type LabelUpdateInput = { name?: string; color?: string } & Record<string, unknown>;

export const LabelSummary = z.object({ id: z.string(), name: z.string(), color: z.string() }).openapi("LabelSummary");
type LabelSummaryDto = z.infer<typeof LabelSummary>;
/** A request's (or an export's) labels: ids or names of labels of the workspace. */
export const LabelIds = NamesOf("label", 100);

/**
 * `id, name, color` of the workspace's labels among `labelIds` (ids or names, any case), as a subquery (a CTE body): a
 * statement that attaches labels compares its row count with the values it was given, so a foreign or unknown one
 * attaches nothing.
 */
export function workspaceLabels(workspace: WorkspaceScope, labelIds: string[]): SQL {
  const named = labelIds.length ? namesAny("label", labels.id, labelIds, workspace) : sql`false`;
  return sql`select ${labels.id} as id, ${labels.name} as name, ${labels.color} as color from ${labels} where ${labels.workspaceId} = ${workspace} and ${named}`;
}

export type LabelOwner = "task" | "project";
const LABEL_TABLES = {
  task: { table: taskLabels, owner: taskLabels.taskId },
  project: { table: projectLabels, owner: projectLabels.projectId },
} as const;
/** The table that attaches labels to a task or a project, and its owner column. */
export const labelTableOf = (owner: LabelOwner) => LABEL_TABLES[owner];

/** Labels of a task or project as a JSON array built in SQL (one query for a whole page, no query per row). */
export function labelsJson(owner: LabelOwner, ownerId: AnyPgColumn): SQL<LabelSummaryDto[]> {
  const { table, owner: ownerColumn } = labelTableOf(owner);
  return sql<
    LabelSummaryDto[]
  >`coalesce((select json_agg(json_build_object('id', ${labels.id}, 'name', ${labels.name}, 'color', ${labels.color}) order by ${labels.name}, ${labels.id}) from ${table} join ${labels} on ${labels.id} = ${table.labelId} where ${ownerColumn} = ${ownerId}), '[]'::json)`;
}

/**
 * The `labelId` filter of the task and project lists: rows carrying the label, by id or name (`in`: any of them; `neq`:
 * not carrying it); the value `null` stands for "no label at all".
 */
export function labelFilter(owner: LabelOwner, ownerId: AnyPgColumn) {
  const { table, owner: ownerColumn } = labelTableOf(owner);
  const carrying = (ids: string[]) =>
    sql`exists (select 1 from ${table} where ${ownerColumn} = ${ownerId}${ids.length ? sql` and ${namesAny("label", table.labelId, ids)}` : sql``})`;
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

/** The ids of a task's or project's labels as a JSON array (an export's `labelIds`), in id order. */
export function labelIdsJson(owner: LabelOwner, ownerId: AnyPgColumn): SQL<string[]> {
  const { table, owner: ownerColumn } = labelTableOf(owner);
  return sql<
    string[]
  >`coalesce((select json_agg(${table.labelId} order by ${table.labelId}) from ${table} where ${ownerColumn} = ${ownerId}), '[]'::json)`;
}

/** Whether every one of `labelIds` names a label of the workspace (by id or name: the same label may be named twice). */
export const allWorkspaceLabels = (workspace: WorkspaceScope, labelIds: string[]) =>
  labelIds.length === 0
    ? sql`true`
    : sql`not exists (select 1 from unnest(${sql.param(labelIds)}::text[], ${sql.param(labelIds.map(foldName))}::text[]) as given(value, key) where not exists (
        select 1 from ${labels} where ${labels.workspaceId} = ${workspace} and (${labels.id} = given.value or ${labels.nameKey} = given.key)))`;

/**
 * CTEs (`name as (…)`) that make `labelIds` the exact label set of the row the CTE `written` holds, in the statement
 * that writes it: the labels left out go, the new ones come, and a CTE named like the join table shows the new set to
 * the statement's answer (a statement does not see its own writes in the tables).
 */
export function labelSetCtes(owner: LabelOwner, workspace: WorkspaceScope, labelIds: string[], written: string): SQL[] {
  const { table, owner: ownerColumn } = labelTableOf(owner);
  const row = sql.identifier(written);
  const valid = sql.identifier(`${owner}_valid_labels`);
  return [
    sql`${valid} as (${workspaceLabels(workspace, [...new Set(labelIds)])})`,
    sql`${sql.identifier(`${owner}_labels_detached`)} as (
      delete from ${table} where ${ownerColumn} in (select id from ${row}) and ${table.labelId} not in (select id from ${valid}))`,
    sql`${sql.identifier(`${owner}_labels_attached`)} as (
      insert into ${table} select ${row}.id, ${valid}.id from ${row} cross join ${valid} on conflict do nothing)`,
    sql`${sql.identifier(getTableName(table))} as (
      select ${row}.id as ${sql.identifier(ownerColumn.name)}, ${valid}.id as label_id from ${row} cross join ${valid})`,
  ];
}

/** An exported label as an import reads it. */
export type ExportedLabel = { id: string; name: string; color: string };

/**
 * A bulk write's label edit (docs/api.md, "Bulk writes"): `add` attached to and `remove` detached from every row the CTE `written`
 * holds, leaving their other labels as they are (CTEs of the statement that writes them).
 */
export function labelEditCtes(owner: LabelOwner, workspace: WorkspaceScope, add: string[], remove: string[], written: string): SQL[] {
  const { table, owner: ownerColumn } = labelTableOf(owner);
  const row = sql.identifier(written);
  return [
    ...(add.length
      ? [
          sql`${sql.identifier(`${owner}_labels_added`)} as (insert into ${table} select ${row}.id, added.id from ${row}
            cross join (${workspaceLabels(workspace, add)}) as added on conflict do nothing)`,
        ]
      : []),
    ...(remove.length
      ? [
          sql`${sql.identifier(`${owner}_labels_removed`)} as (delete from ${table} where ${ownerColumn} in (select id from ${row})
            and ${table.labelId} in (select id from (${workspaceLabels(workspace, remove)}) as removed))`,
        ]
      : []),
  ];
}

/** Whether labelEditCtes would change the labels of the record `ownerId` (a column of its row): it lacks one of `add` or has one of `remove`. */
export function labelEditChanges(owner: LabelOwner, workspace: WorkspaceScope, ownerId: AnyPgColumn, add: string[], remove: string[]): SQL {
  const { table, owner: ownerColumn } = labelTableOf(owner);
  const has = (label: SQL) => sql`exists (select 1 from ${table} where ${ownerColumn} = ${ownerId} and ${table.labelId} = ${label})`;
  const lacksOne = add.length
    ? sql`exists (select 1 from (${workspaceLabels(workspace, add)}) as a where not ${has(sql`a.id`)})`
    : sql`false`;
  const hasOne = remove.length
    ? sql`exists (select 1 from (${workspaceLabels(workspace, remove)}) as r where ${has(sql`r.id`)})`
    : sql`false`;
  return sql`(${lacksOne} or ${hasOne})`;
}
