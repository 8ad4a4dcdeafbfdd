import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { fieldDefinitions, milestones, projects, tasks, workspaceMembers } from "../../../drizzle/schema";
import { isIsoDate } from "../../core/dates";
import { ValidationError } from "../../core/errors";
import type { Executor } from "../../db/client";
import type { RecordType } from "./schema";

export type Definition = { key: string; type: string; metadata: Record<string, unknown> };

/** The options of a select or multiselect definition (`metadata.options`, strings). */
export function options(def: Pick<Definition, "metadata">): string[] {
  const raw = def.metadata.options;
  return Array.isArray(raw) ? raw.filter((o): o is string => typeof o === "string") : [];
}

/** Bounds of custom string values (issue 9: every request string has one). */
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
      return typeof value === "string" && value.length <= MAX_USER_ID ? null : "Must be a user id";
    default:
      return "Unsupported field type";
  }
}

/**
 * Type-checks `customFields` against the workspace's field definitions for this record type (one query,
 * plus one for `user` fields). Unknown keys and bad values are 422 at `customFields.<key>`. The definitions are
 * share-locked, so a definition change (options, record types, delete) waits for this write and then sees its values.
 * Returns the values to store, merged over `current` (a null value removes the key).
 */
export async function validateCustomFields(
  db: Executor,
  workspaceId: string,
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
  const userIds: string[] = [];
  for (const key of keys) {
    const def = byKey.get(key);
    const message = def ? valueProblem(def, input[key]) : `Unknown custom field for a ${recordType}`;
    if (message) errors[`customFields.${key}`] = [message];
    else if (def?.type === "user" && input[key] !== null) userIds.push(input[key] as string);
  }
  if (userIds.length) {
    const found = await db
      .select({ userId: workspaceMembers.userId })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, workspaceId), inArray(workspaceMembers.userId, userIds)));
    const ok = new Set(found.map((f) => f.userId));
    for (const key of keys)
      if (byKey.get(key)?.type === "user" && input[key] !== null && !ok.has(input[key] as string))
        errors[`customFields.${key}`] = ["Must be a member of the workspace"];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const merged = { ...current };
  for (const key of keys) {
    if (input[key] === null) delete merged[key];
    else merged[key] = input[key];
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
