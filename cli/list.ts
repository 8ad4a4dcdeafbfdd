// The options every list command shares and the list query they make: `filter[op][field]`, `sort[field]`, `limit`,
// `cursor` and `fields`, keyed by the API's parameter names (openapi-fetch sends them as they are).
import type { ArgsDef } from "citty";
import { repeated } from "./argv";
import { UsageError } from "./errors";
import { type Column, fieldColumns, printJson, printNextCursor, printTable } from "./output";

export const listArgs = {
  filter: {
    type: "string",
    valueHint: "op:field=value",
    description:
      "Repeatable; op is eq (the default), neq, gt, gte, lt, lte, contains, startsWith or in (comma-separated values); the value null matches a field without one",
  },
  sort: { type: "string", valueHint: "field:asc|desc", description: "Repeatable, in order of precedence" },
  limit: {
    type: "string",
    alias: "L",
    valueHint: "n",
    description: "At most this many (the API's default 50; over 250, a page of 250 at a time); with --all, per page",
  },
  all: { type: "boolean", description: "Every page, not only the first" },
  cursor: { type: "string", description: "Where the previous page said to continue (`more: --cursor …`)" },
  fields: { type: "string", description: "Only these fields, e.g. reference,title,team{prefix}" },
} as const satisfies ArgsDef;

/**
 * A list query as the command line gives it: names and values are the API's to check (400 names what is allowed),
 * so `filter[…]` and `sort[…]` are any names; a string record is what a typed list query takes beside its own names.
 */
export interface ListQuery {
  limit?: number;
  cursor?: string;
  fields?: string;
  [param: string]: string | string[] | number | undefined;
}

interface ListOptions {
  limit?: string;
  cursor?: string;
  fields?: string;
  all?: boolean;
  json?: boolean;
}

/** The query of `--filter`, `--sort`, `--limit`, `--cursor` and `--fields` (`defs` are the command's, to read repeats). */
export function listQuery(args: ListOptions, rawArgs: string[], defs: ArgsDef): ListQuery {
  const query: ListQuery = { cursor: args.cursor, fields: args.fields };
  if (args.limit !== undefined) {
    if (!/^\d+$/.test(args.limit)) throw new UsageError(`--limit must be a whole number (got '${args.limit}')`);
    query.limit = Number(args.limit);
  }
  for (const term of repeated(rawArgs, defs, "filter")) {
    const match = /^(?:(\w+):)?([^=]+)=(.*)$/s.exec(term);
    if (!match) throw new UsageError(`--filter takes op:field=value (got '${term}')`);
    const [, op = "eq", field, value] = match;
    addFilter(query, op, field, op === "in" ? value.split(",") : value);
  }
  for (const key of repeated(rawArgs, defs, "sort")) {
    const [field, direction = "asc"] = key.split(":");
    if (direction !== "asc" && direction !== "desc") throw new UsageError(`--sort takes field:asc or field:desc (got '${key}')`);
    query[`sort[${field}]`] = direction;
  }
  return query;
}

/** A list query's filters and sorts as JSON (`{<op>: {<field>: value}}`, `{<field>: "asc"|"desc"}`), as POST /tasks/claim takes them. */
export function filterSortJson(query: ListQuery) {
  const filter: Record<string, Record<string, string | string[]>> = {};
  const sort: Record<string, "asc" | "desc"> = {};
  for (const [param, value] of Object.entries(query)) {
    const term = /^filter\[([^[\]]*)\]\[([^[\]]*)\]$/.exec(param);
    if (term) filter[term[1]] = { ...filter[term[1]], [term[2]]: value as string | string[] };
    const key = /^sort\[([^[\]]*)\]$/.exec(param);
    if (key) sort[key[1]] = value as "asc" | "desc";
  }
  return { filter, sort };
}

/** Adds `filter[op][field]=value` (a list repeats the parameter, as `in` takes it). */
export function addFilter(query: ListQuery, op: string, field: string, value: string | string[]): void {
  query[`filter[${op}][${field}]`] = value;
}

/** A page of a list: its records under `K`, and where the next page starts. */
export type Page<K extends string, T> = { [key in K]: T[] } & { pagination: { nextCursor: string | null } };

/** The most items one page holds (the API's bound on `limit`). */
const MAX_PAGE = 250;

/**
 * `first` and the pages after it (`next` reads the page at a cursor, of at most `size` items), as one answer of the
 * same shape: all records in its array (the one array beside `pagination`), `nextCursor` that of the last page read.
 * Stops at the last page, or once `wanted` records are in.
 */
export async function everyPage<K extends string, T>(
  first: Page<K, T>,
  next: (cursor: string, size: number) => Promise<Page<K, T>>,
  wanted = Number.POSITIVE_INFINITY,
): Promise<Page<K, T>> {
  const key = Object.keys(first).find((name) => name !== "pagination" && Array.isArray(first[name as K])) as K | undefined;
  if (key === undefined) throw new UsageError("--paginate reads a list: this answer has no list of records");
  const rows = [...first[key]];
  let page = first;
  while (page.pagination?.nextCursor && rows.length < wanted) {
    page = await next(page.pagination.nextCursor, Math.min(MAX_PAGE, wanted - rows.length));
    rows.push(...page[key]);
  }
  return { ...page, [key]: rows };
}

/**
 * Reads a list (with `--all` page after page, from `--cursor` or the first; a `--limit` over a page's 250, page after
 * page until that many) and prints it: JSON as the API answers (all pages as one answer of the same shape), else a
 * table of `columns`, or of `--fields`' names.
 */
export async function printList<K extends string, T>(
  args: ListOptions,
  read: (query: ListQuery) => Promise<Page<K, T>>,
  query: ListQuery,
  key: K,
  columns: Column<T>[],
): Promise<void> {
  const { limit } = query;
  const pageLimit = limit === undefined ? undefined : Math.min(limit, MAX_PAGE);
  const wanted = args.all ? Number.POSITIVE_INFINITY : limit !== undefined && limit > MAX_PAGE ? limit : 0;
  let page = await read({ ...query, limit: pageLimit });
  if (wanted > page[key].length) {
    page = await everyPage(page, (cursor, size) => read({ ...query, cursor, limit: args.all ? pageLimit : size }), wanted);
  }
  if (args.json) return printJson(page);
  printTable<T>(page[key], args.fields ? (fieldColumns(args.fields) as Column<T>[]) : columns);
  printNextCursor(page.pagination.nextCursor);
}
