import { and, eq, type SQL, sql } from "drizzle-orm";
import { fieldDefinitions } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { badRequest, notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type FilterOp, type ListParams, type ListSpec, pageQuery } from "../../http/list";
import { FIELD_TYPES, RECORD_TYPES, type RecordType, textArray } from "../../records/custom-fields";
import type { FieldDto } from "./schema";

type FieldRow = typeof fieldDefinitions.$inferSelect;
export const serializeField = (f: FieldRow): FieldDto => ({
  id: f.id,
  key: f.key,
  name: f.name,
  description: f.description,
  type: f.type,
  presentation: (f.presentation as Record<string, unknown> | null) ?? null,
  metadata: f.metadata,
  recordTypes: f.recordTypes as RecordType[],
  isBuiltIn: false,
  createdAt: iso(f.createdAt),
  updatedAt: iso(f.updatedAt),
});

/** The filters below answer equality only: eq, neq and in. */
function equalityOnly(name: string, op: FilterOp) {
  if (op !== "eq" && op !== "neq" && op !== "in") {
    throw badRequest(`Operator '${op}' does not apply to '${name}'`, { field: name, operator: op, allowed: ["eq", "neq", "in"] });
  }
}

/** `recordType`: definitions that apply to the record type (`in`: to any of them; `neq`: not to it). */
function recordTypeFilter(op: FilterOp, values: string[]): SQL {
  equalityOnly("recordType", op);
  const applies = sql`${fieldDefinitions.recordTypes} && ${textArray(values)}`;
  return op === "neq" ? sql`not (${applies})` : applies;
}

/** `isBuiltIn`: the stored definitions are all custom, so the filter keeps all of them or none. */
function isBuiltInFilter(op: FilterOp, values: string[]): SQL {
  equalityOnly("isBuiltIn", op);
  const wantsCustom = op === "neq" ? values.includes("true") : values.includes("false");
  return wantsCustom ? sql`true` : sql`false`;
}

export const fieldList: ListSpec = {
  resource: "fields",
  id: fieldDefinitions.id,
  fields: {
    id: { expr: fieldDefinitions.id, kind: "id" },
    key: { expr: fieldDefinitions.key, kind: "string" },
    name: { expr: fieldDefinitions.name, kind: "string" },
    type: { expr: fieldDefinitions.type, kind: "enum", values: FIELD_TYPES },
    recordType: { expr: fieldDefinitions.recordTypes, kind: "enum", values: RECORD_TYPES, sort: false, customFilter: recordTypeFilter },
    isBuiltIn: { expr: sql`false`, kind: "boolean", sort: false, customFilter: isBuiltInFilter },
    createdAt: { expr: fieldDefinitions.createdAt, kind: "datetime" },
    updatedAt: { expr: fieldDefinitions.updatedAt, kind: "datetime" },
  },
  shape: {
    id: true,
    key: true,
    name: true,
    description: true,
    type: true,
    presentation: true,
    metadata: true,
    recordTypes: true,
    isBuiltIn: true,
    createdAt: true,
    updatedAt: true,
  },
};

export const mine = (workspaceId: WorkspaceScope, id: string) =>
  and(eq(fieldDefinitions.workspaceId, workspaceId), eq(fieldDefinitions.id, id));

/** One page (limit + 1 rows) of the workspace's custom field definitions. */
export async function listFields(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await pageQuery(db.select().from(fieldDefinitions).$dynamic(), eq(fieldDefinitions.workspaceId, workspaceId), params);
  return rows.map(serializeField);
}

export async function getField(db: Executor, workspaceId: WorkspaceScope, id: string) {
  const [row] = await db.select().from(fieldDefinitions).where(mine(workspaceId, id));
  if (!row) throw notFound("Field");
  return serializeField(row);
}
