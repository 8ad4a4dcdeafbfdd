import { and, eq, inArray, sql } from "drizzle-orm";
import { fieldDefinitions, workspaceMembers } from "../../../drizzle/schema";
import { isIsoDate } from "../../core/dates";
import { ValidationError } from "../../core/errors";
import type { Executor } from "../../db/client";

export type RecordType = "task" | "project" | "milestone";

type Definition = { key: string; type: string; recordTypes: string[]; metadata: Record<string, unknown> };

function options(def: Definition): string[] | null {
  const raw = (def.metadata as { options?: unknown }).options;
  if (!Array.isArray(raw)) return null;
  return raw
    .map((o) => (typeof o === "string" ? o : ((o as { value?: string; name?: string })?.value ?? (o as { name?: string })?.name)))
    .filter((o): o is string => typeof o === "string");
}

function check(def: Definition, value: unknown): string | null {
  if (value === null) return null; // null clears a value
  switch (def.type) {
    case "text":
      return typeof value === "string" ? null : "Must be a string";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "Must be a number";
    case "boolean":
      return typeof value === "boolean" ? null : "Must be true or false";
    case "date":
      return isIsoDate(value) ? null : "Must be a date YYYY-MM-DD";
    case "url":
      try {
        return typeof value === "string" && /^https?:$/.test(new URL(value).protocol) ? null : "Must be an http(s) URL";
      } catch {
        return "Must be an http(s) URL";
      }
    case "select": {
      const allowed = options(def);
      if (typeof value !== "string") return "Must be one of the field's options";
      return !allowed || allowed.includes(value) ? null : `Must be one of: ${allowed.join(", ")}`;
    }
    case "multiselect": {
      const allowed = options(def);
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) return "Must be an array of the field's options";
      return !allowed || value.every((v) => allowed.includes(v)) ? null : `Each value must be one of: ${allowed.join(", ")}`;
    }
    case "user":
      return typeof value === "string" ? null : "Must be a user id";
    default:
      return "Unsupported field type";
  }
}

/**
 * Type-checks `customFields` against the workspace's field definitions for this record type (one query,
 * plus one for `user` fields). Unknown keys and bad values are 422 at `customFields.<key>`.
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
    .select({
      key: fieldDefinitions.key,
      type: fieldDefinitions.type,
      recordTypes: fieldDefinitions.recordTypes,
      metadata: fieldDefinitions.metadata,
    })
    .from(fieldDefinitions)
    .where(
      and(
        eq(fieldDefinitions.workspaceId, workspaceId),
        inArray(fieldDefinitions.key, keys),
        sql`${recordType} = any(${fieldDefinitions.recordTypes})`,
      ),
    );
  const byKey = new Map(defs.map((d) => [d.key, d]));
  const errors: Record<string, string[]> = {};
  const userIds: string[] = [];
  for (const key of keys) {
    const def = byKey.get(key);
    const message = def ? check(def, input[key]) : `Unknown custom field for a ${recordType}`;
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
