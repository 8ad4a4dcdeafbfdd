import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { fieldDefinitions } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { DynamicFields, ListField } from "../../http/list";
import type { RecordType } from "./schema";
import { type Definition, options } from "./values";

/**
 * A record's custom value as a list field: filtered and sorted as its definition's type (numbers as numbers, dates
 * as dates), a missing value as null (last in both directions). Equality is containment in the whole jsonb column,
 * which its GIN index serves; a multiselect field is "equal" to each option it holds, and does not sort.
 */
function customListField(column: AnyPgColumn, def: Definition): ListField {
  const key = sql`${def.key}::text`;
  const text = sql`(${column} ->> ${key})`;
  const contains = (value: unknown): SQL => sql`${column} @> ${JSON.stringify({ [def.key]: value })}::jsonb`;
  const base = {
    nullable: true,
    equals: contains,
    cursorValue: (item: Record<string, unknown>) => (item.customFields as Record<string, unknown>)[def.key] ?? null,
  };
  switch (def.type) {
    case "number":
      return { ...base, expr: sql`${text}::numeric`, kind: "number" };
    case "boolean":
      return { ...base, expr: sql`(${column} -> ${key})::boolean`, kind: "boolean" };
    case "date":
      return { ...base, expr: sql`${text}::date`, kind: "date" };
    case "select":
      return { ...base, expr: text, kind: "enum", values: options(def) };
    case "multiselect":
      return { ...base, expr: text, kind: "enum", values: options(def), sort: false, equals: (option) => contains([option]) };
    case "user":
      return { ...base, expr: text, kind: "id" };
    default:
      return { ...base, expr: text, kind: "string" };
  }
}

/**
 * `customFields.<key>` in the filters and sorts of a list of `recordType` records whose values live in `column`:
 * the keys are the workspace's definitions for that record type, looked up once per request that names one.
 */
export function customFieldsOf(recordType: RecordType, column: AnyPgColumn): DynamicFields {
  return {
    prefix: "customFields",
    async resolve(db, workspace, keys) {
      const d = fieldDefinitions;
      // One row even without a definition: a null workspace is a bad credential (NOT_FOUND, which gatedList turns into 401).
      const { rows } = await db.execute<{ workspace: string | null; defs: Definition[] }>(sql`
        select ${workspace} as workspace, coalesce((
          select json_agg(json_build_object('key', ${d.key}, 'type', ${d.type}, 'metadata', ${d.metadata}))
          from ${d}
          where ${d.workspaceId} = ${workspace} and ${recordType} = any(${d.recordTypes}) and ${d.key} in (${sql.join(
            keys.map((k) => sql`${k}`),
            sql`, `,
          )})
        ), '[]'::json) as defs`);
      const [found] = rows;
      if (!found?.workspace) throw notFound("Workspace");
      return Object.fromEntries(found.defs.map((def) => [def.key, customListField(column, def)]));
    },
  };
}
