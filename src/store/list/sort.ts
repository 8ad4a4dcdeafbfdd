import { type AnyColumn, asc, desc, type SQL, sql } from "drizzle-orm";
import { badRequest } from "../../core/errors";
import type { ListField, ListSpec } from "./types";

export type SortDirection = "asc" | "desc";

export interface SortKey {
  name: string;
  field: ListField;
  dir: SortDirection;
}

const SORT_KEY = /^sort\[([^[\]]*)\]$/;
const DEFAULT_SORT_FIELD = "createdAt";
/** Sort keys a query may give (each is an ORDER BY term and a value in every cursor). */
export const MAX_SORT_KEYS = 5;

export function sortableNames(fields: Record<string, ListField>): string[] {
  return Object.keys(fields).filter((name) => fields[name].sort !== false);
}

/** The requested sort keys in query order (without the id tiebreak); default `createdAt` ascending. */
export function parseSort(query: URLSearchParams, spec: ListSpec): SortKey[] {
  const keys: SortKey[] = [];
  for (const [param, value] of query) {
    if (param !== "sort" && !param.startsWith("sort[")) continue;
    const match = SORT_KEY.exec(param);
    if (!match) {
      throw badRequest(`Malformed sort parameter '${param}': expected sort[<field>]=asc|desc`, {
        allowed: sortableNames(spec.fields),
      });
    }
    const name = match[1];
    const field = Object.hasOwn(spec.fields, name) ? spec.fields[name] : undefined;
    if (!field || field.sort === false) {
      throw badRequest(`Unknown sort field '${name}'`, { field: name, allowed: sortableNames(spec.fields) });
    }
    if (value !== "asc" && value !== "desc") {
      throw badRequest(`Invalid sort direction '${value}' for '${name}': expected asc or desc`, {
        field: name,
        allowed: ["asc", "desc"],
      });
    }
    if (keys.some((key) => key.name === name)) {
      throw badRequest(`Sort field '${name}' is given more than once`, { field: name });
    }
    if (keys.length === MAX_SORT_KEYS) throw badRequest(`Too many sort keys (at most ${MAX_SORT_KEYS})`, { maxSortKeys: MAX_SORT_KEYS });
    keys.push({ name, field, dir: value });
  }
  if (keys.length > 0) return keys;
  const createdAt = spec.fields[DEFAULT_SORT_FIELD];
  if (!createdAt) throw new Error(`List spec '${spec.resource}' has no createdAt field`);
  return [{ name: DEFAULT_SORT_FIELD, field: createdAt, dir: "asc" }];
}

/** The id tiebreak follows the direction of the last sort key. */
export function tiebreakDirection(keys: SortKey[]): SortDirection {
  return keys[keys.length - 1].dir;
}

/** E.g. "createdAt:asc,id:asc"; a cursor is only valid for the signature it was issued under. */
export function sortSignature(keys: SortKey[]): string {
  return [...keys.map((k) => `${k.name}:${k.dir}`), `id:${tiebreakDirection(keys)}`].join(",");
}

/** Nulls of a nullable key sort last in both directions: `(expr is null)` first puts non-null rows ahead. */
export function orderByFor(keys: SortKey[], id: AnyColumn): SQL[] {
  const orderBy: SQL[] = [];
  for (const { field, dir } of keys) {
    if (field.nullable) orderBy.push(sql`(${field.expr} is null)`);
    orderBy.push(dir === "asc" ? asc(field.expr) : desc(field.expr));
  }
  orderBy.push(tiebreakDirection(keys) === "asc" ? asc(id) : desc(id));
  return orderBy;
}
