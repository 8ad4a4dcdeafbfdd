import { and, type SQL } from "drizzle-orm";
import { badRequest, ValidationError } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import type { TeamScope } from "../../db/scope";
import { type CursorKey, decodeCursor, encodeCursor } from "./cursor";
import { parseFields } from "./field-selection";
import { MAX_FILTERS, parseFilters } from "./filter";
import { keysetCondition } from "./keyset";
import { MAX_SORT_KEYS, orderByFor, parseSort, type SortKey, sortSignature } from "./sort";
import type { DynamicFields, FieldSelection, ListField, ListSpec } from "./types";

/** What a list's parameters are bound to: its cursors' key, and the teams the caller reaches (custom filters read them). */
export type ListKey = CursorKey & { teams?: TeamScope };

export interface ListParams {
  limit: number;
  /** AND of all filters and the cursor's keyset condition (undefined if none). */
  where: SQL | undefined;
  /** Full ORDER BY list incl. null ordering and id tiebreak. */
  orderBy: SQL[];
  fields: FieldSelection | null;
  /** Take the first `limit` of the (limit+1) fetched items and compute nextCursor from the last returned item (null when there were not more than `limit`). Items are the serialized API objects (before projection). */
  page<T extends Record<string, unknown>>(items: T[]): Promise<{ items: T[]; nextCursor: string | null }>;
  /**
   * These params with the names under the spec's `dynamic` prefix resolved for the caller (one query): a list whose
   * spec declares dynamic fields pages with what this returns. Without such names it is the params themselves.
   */
  resolve(db: Executor, scope: WorkspaceScope): Promise<ListParams>;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 250;
const LIMIT_MESSAGE = `limit must be an integer between 1 and ${MAX_LIMIT}`;

export function parseLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_LIMIT;
  if (!/^\d+$/.test(raw.trim())) throw new ValidationError({ limit: [LIMIT_MESSAGE] });
  const limit = Number(raw.trim());
  if (limit < 1 || limit > MAX_LIMIT) throw new ValidationError({ limit: [LIMIT_MESSAGE] });
  return limit;
}

/**
 * `query` = the request's URLSearchParams; `scope` = the caller's workspace id (binds cursors to the workspace);
 * `secret` = HMAC key string. The caller runs its SELECT through pageQuery. When the query names fields under the
 * spec's `dynamic` prefix, those exist only per caller: limit and fields are checked now, the rest by `resolve`.
 */
export async function parseListParams(query: URLSearchParams, spec: ListSpec, opts: ListKey): Promise<ListParams> {
  const named = spec.dynamic ? dynamicKeys(query, spec.dynamic) : [];
  if (!spec.dynamic || named.length === 0) return completeParams(query, spec, opts);
  const { dynamic } = spec;
  // Resolved once per request; the route's params object then answers as the resolved ones (listBody pages with it).
  let resolved: ListParams | undefined;
  const done = () => {
    if (!resolved) throw new Error(`List '${spec.resource}' names ${dynamic.prefix} fields: page with params.resolve(…)`);
    return resolved;
  };
  return {
    limit: parseLimit(query.get("limit")),
    fields: parseFields(query.get("fields"), spec.shape),
    get where() {
      return done().where;
    },
    get orderBy() {
      return done().orderBy;
    },
    page: (items) => done().page(items),
    async resolve(db, scope) {
      if (resolved) return resolved;
      const found = await dynamic.resolve(db, scope, named);
      const fields: Record<string, ListField> = { ...spec.fields };
      for (const [key, field] of Object.entries(found)) fields[`${dynamic.prefix}.${key}`] = field;
      resolved = await completeParams(query, { ...spec, fields }, opts);
      return resolved;
    },
  };
}

// `filter[<op>][<name>]` or `sort[<name>]`: the name is the last bracket.
const NAMED = /^(?:filter\[[^[\]]*\]|sort)\[([^[\]]*)\]$/;

/** The keys under the dynamic prefix that the filters and sorts name, each once. */
function dynamicKeys(query: URLSearchParams, dynamic: DynamicFields): string[] {
  const keys = new Set<string>();
  for (const param of query.keys()) {
    const name = NAMED.exec(param)?.[1];
    if (name?.startsWith(`${dynamic.prefix}.`)) keys.add(name.slice(dynamic.prefix.length + 1));
  }
  // Resolving looks the keys up in the database: more than a valid query can name are refused before that.
  if (keys.size > MAX_FILTERS + MAX_SORT_KEYS) throw badRequest(`Too many filters (at most ${MAX_FILTERS})`, { maxFilters: MAX_FILTERS });
  return [...keys];
}

async function completeParams(query: URLSearchParams, spec: ListSpec, opts: ListKey): Promise<ListParams> {
  const limit = parseLimit(query.get("limit"));
  const fields = parseFields(query.get("fields"), spec.shape);
  const keys = parseSort(query, spec);
  const signature = sortSignature(keys);
  const conditions = parseFilters(query, spec.fields, opts.teams ?? null);

  const rawCursor = query.get("cursor");
  if (rawCursor) {
    const cursor = await decodeCursor(rawCursor, opts);
    if (cursor.r !== spec.resource) throw badRequest("Invalid cursor: it belongs to another list");
    if (cursor.s !== signature) {
      throw badRequest("Invalid cursor: it was issued for another sort order", { sort: signature });
    }
    if (!valuesFit(keys, cursor.v)) throw badRequest("Invalid cursor");
    conditions.push(keysetCondition(keys, cursor.v, spec.id, cursor.i));
  }

  const params: ListParams = {
    limit,
    where: and(...conditions),
    orderBy: orderByFor(keys, spec.id),
    fields,
    async page<T extends Record<string, unknown>>(items: T[]) {
      if (items.length <= limit) return { items, nextCursor: null };
      const pageItems = items.slice(0, limit);
      const last = pageItems[pageItems.length - 1];
      if (typeof last.id !== "string") throw new Error(`${spec.resource} list item has no string id`);
      const v = keys.map((key) => cursorValue(key, last));
      const nextCursor = await encodeCursor({ r: spec.resource, s: signature, v, i: last.id }, opts);
      return { items: pageItems, nextCursor };
    },
    resolve: async () => params,
  };
  return params;
}

function valuesFit(keys: SortKey[], values: unknown[]): boolean {
  return values.length === keys.length && keys.every((key, i) => values[i] !== null || key.field.nullable === true);
}

/** Missing or mistyped values are spec bugs; failing loudly beats a cursor that silently ends the walk. */
function cursorValue(key: SortKey, item: Record<string, unknown>): unknown {
  const raw = key.field.cursorValue ? key.field.cursorValue(item) : item[key.name];
  if (raw === null && key.field.nullable) return null;
  if (raw instanceof Date) return key.field.kind === "date" ? raw.toISOString().slice(0, 10) : raw.toISOString();
  if (typeof raw === "string" || typeof raw === "boolean" || (typeof raw === "number" && Number.isFinite(raw))) {
    return raw;
  }
  throw new Error(`List field '${key.name}' has no usable cursor value (${raw === null ? "null but not nullable" : typeof raw})`);
}
