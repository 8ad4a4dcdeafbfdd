// Custom field values (docs/api.md, custom fields): the types a definition may have, the check of a value against its
// definition, the merge a write stores, and a record's values as list fields (`customFields.<key>`).
import { z } from "@hono/zod-openapi";
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { fieldDefinitions, fieldType, milestones, projects, tasks, users, workspaceMembers } from "../../drizzle/schema";
import { isIsoDate } from "../core/dates";
import { notFound, ValidationError } from "../core/errors";
import type { Executor, WorkspaceScope } from "../db/client";
import { f } from "../store/field-map";
import type { DynamicFields, ListField } from "../store/list";
import { ObjectKey } from "../store/schemas";
import { formOf, formsOf, named, namesAny } from "./names";

export const RECORD_TYPES = ["task", "project", "milestone"] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
export const FIELD_TYPES = fieldType.enumValues;
export type FieldType = (typeof FIELD_TYPES)[number];
/** The types whose values are chosen from `metadata.options`. */
export const OPTION_TYPES: readonly FieldType[] = ["select", "multiselect"];

/** A request's (or an export's) custom values: `{<field key>: value}`. */
export const CustomFieldValues = z
  .record(ObjectKey, z.unknown())
  .openapi({ description: "`{<field key>: value}`, type-checked against the field definitions; on update merged, `null` removes a key" });

/**
 * The `customFields` entry of a task's, project's or milestone's field map: answered as stored, written once
 * type-checked against the workspace's definitions (an update merges; null removes a key), exported and imported as is.
 */
export const customFieldsField = (column: AnyPgColumn) =>
  f.json(
    column,
    z.record(ObjectKey, z.unknown()).openapi({ description: "Values keyed by field-definition key (the workspace's custom fields)" }),
    { input: { schema: CustomFieldValues, write: "resolved" }, exported: CustomFieldValues },
  );

export type Definition = { key: string; type: string; metadata: Record<string, unknown> };

/** The options of a select or multiselect definition (`metadata.options`, strings). */
export function options(def: Pick<Definition, "metadata">): string[] {
  const raw = def.metadata.options;
  return Array.isArray(raw) ? raw.filter((o): o is string => typeof o === "string") : [];
}

/** Bounds of custom string values (docs/security.md: every request string has one). */
export const MAX_TEXT_VALUE = 10_000;
const MAX_URL_VALUE = 2048;
const MAX_USER_ID = 100;

/** Why `value` does not fit `def` (null: it fits; null always fits, it clears a value). */
export function valueProblem(def: Definition, value: unknown): string | null {
  if (value === null) return null; // null clears a value
  switch (def.type) {
    case "text":
      if (typeof value !== "string") return "Must be a string";
      return value.length <= MAX_TEXT_VALUE ? null : `Must be at most ${MAX_TEXT_VALUE.toLocaleString("en")} characters`;
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "Must be a number";
    case "boolean":
      return typeof value === "boolean" ? null : "Must be true or false";
    case "date":
      return isIsoDate(value) ? null : "Must be a date YYYY-MM-DD";
    case "url":
      if (typeof value === "string" && value.length > MAX_URL_VALUE) return `Must be at most ${MAX_URL_VALUE} characters`;
      try {
        return typeof value === "string" && /^https?:$/.test(new URL(value).protocol) ? null : "Must be an http(s) URL";
      } catch {
        return "Must be an http(s) URL";
      }
    case "select": {
      const allowed = options(def);
      return typeof value === "string" && allowed.includes(value) ? null : `Must be one of: ${allowed.join(", ")}`;
    }
    case "multiselect": {
      const allowed = options(def);
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) return "Must be an array of the field's options";
      if (new Set(value).size !== value.length) return "Must not repeat an option";
      return value.every((v) => allowed.includes(v)) ? null : `Each value must be one of: ${allowed.join(", ")}`;
    }
    case "user":
      return typeof value === "string" && value.length <= MAX_USER_ID && formOf("user", value) !== null
        ? null
        : `Must be ${formsOf("user")}`;
    default:
      return "Unsupported field type";
  }
}

/**
 * Type-checks `customFields` against the workspace's field definitions for this record type (one query,
 * plus one for `user` fields, which take an id or an email and store the id). Unknown keys and bad values are 422 at
 * `customFields.<key>`. The definitions are
 * share-locked, so a definition change (options, record types, delete) waits for this write and then sees its values.
 * Returns the values to store, merged over `current` (a null value removes the key).
 */
export async function validateCustomFields(
  db: Executor,
  workspaceId: WorkspaceScope,
  recordType: RecordType,
  input: Record<string, unknown> | undefined,
  current: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  if (!input || Object.keys(input).length === 0) return current;
  const keys = Object.keys(input);
  const defs = await db
    .select({ key: fieldDefinitions.key, type: fieldDefinitions.type, metadata: fieldDefinitions.metadata })
    .from(fieldDefinitions)
    .where(
      and(
        eq(fieldDefinitions.workspaceId, workspaceId),
        inArray(fieldDefinitions.key, keys),
        sql`${recordType} = any(${fieldDefinitions.recordTypes})`,
      ),
    )
    .for("share");
  const byKey = new Map(defs.map((d) => [d.key, d]));
  const errors: Record<string, string[]> = {};
  const userValues: string[] = [];
  for (const key of keys) {
    const def = byKey.get(key);
    const message = def ? valueProblem(def, input[key]) : `Unknown custom field for a ${recordType}`;
    if (message) errors[`customFields.${key}`] = [message];
    else if (def?.type === "user" && input[key] !== null) userValues.push(input[key] as string);
  }
  // Each user value (an id or an email) and the member's id it names.
  const userIds = new Map<string, string>();
  if (userValues.length) {
    const found = await db
      .select({ id: users.id, email: users.email })
      .from(workspaceMembers)
      .innerJoin(users, eq(users.id, workspaceMembers.userId))
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), namesAny("user", workspaceMembers.userId, userValues)));
    for (const value of userValues) {
      const member = found.find((u) => u.id === value || u.email === value.toLowerCase());
      if (member) userIds.set(value, member.id);
    }
    for (const key of keys)
      if (byKey.get(key)?.type === "user" && input[key] !== null && !userIds.has(input[key] as string))
        errors[`customFields.${key}`] = ["Must be a member of the workspace"];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const merged = { ...current };
  for (const key of keys) {
    if (input[key] === null) delete merged[key];
    else merged[key] = byKey.get(key)?.type === "user" ? userIds.get(input[key] as string) : input[key];
  }
  return merged;
}

/** `values` as a Postgres text[] (for `&&`, `?|`). */
export const textArray = (values: string[]): SQL =>
  sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;

/** The table of each record type that carries custom values. */
export const RECORD_TABLES = { task: tasks, project: projects, milestone: milestones } as const;

/**
 * Removes the value under `key` from the workspace's records of `types`, in one statement, so a definition change
 * (delete, a record type dropped) leaves no orphaned values. Run it after locking the definition, so that values
 * written meanwhile are seen. Records keep their `updatedAt`: the schema changed, not the record.
 */
export async function removeValues(db: Executor, workspaceId: string, key: string, types: readonly RecordType[]) {
  if (types.length === 0) return;
  const updates = types.map((type) => {
    const t = RECORD_TABLES[type];
    return sql`${sql.identifier(`drop_${type}_values`)} as (update ${t} set custom_fields = ${t.customFields} - ${key}::text where ${t.workspaceId} = ${workspaceId} and ${t.customFields} ? ${key}::text)`;
  });
  await db.execute(sql`with ${sql.join(updates, sql`, `)} select 1`);
}

/** How many of the workspace's records of `types` hold any of `values` under `key` (a select value or a multiselect element). */
export async function recordsUsing(db: Executor, workspaceId: string, key: string, values: string[], types: readonly RecordType[]) {
  if (types.length === 0 || values.length === 0) return 0;
  const list = textArray(values);
  const counts = types.map((type) => {
    const t = RECORD_TABLES[type];
    return sql`(select count(*) from ${t} where ${t.workspaceId} = ${workspaceId} and ${t.customFields} -> ${key}::text ?| ${list})`;
  });
  const { rows } = await db.execute<{ n: number }>(sql`select (${sql.join(counts, sql` + `)})::int as n`);
  return Number(rows[0]?.n ?? 0);
}

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
      // An id or an email, resolved as every user filter is (eq, neq, in).
      return { ...base, expr: text, kind: "id", names: named("user") };
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
