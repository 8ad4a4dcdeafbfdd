// The input of MCP list tools: GET's list parameters as arguments, turned back into its query string.
import { z } from "@hono/zod-openapi";
import { FilterTerms, filterSortQuery, JsonSort, type ListSpec } from "../store/list";
import { filterableNames } from "../store/list/filter";
import { sortableNames } from "../store/list/sort";
import { ListQuery } from "./route-schemas";

/** The zod schemas said by their type alone (see loosely). */
const LOOSE = new WeakSet<object>();

/**
 * `schema`, whose JSON Schema says its type and description only: for a part of an input whose detail the tool's own zod
 * check and its description already carry (a list filter's values), and that would otherwise be spelled in every list tool.
 */
export function loosely<T extends z.ZodType>(schema: T): T {
  LOOSE.add(schema);
  return schema;
}

/** Whether `schema` is said by its type alone (the MCP server's JSON Schemas, src/mcp/json-schema.ts). */
export const isLoose = (schema: object) => LOOSE.has(schema);

/**
 * The arguments of every list tool: GET's `limit`, `cursor` and `fields`, with `filter[op][field]` and
 * `sort[field]` as objects. They become a query string (listQuery), so the list machinery checks them exactly
 * as it checks GET's (unknown names 400, limit out of range 422).
 */
export const ListInput = z
  .object({
    ...ListQuery.shape,
    // A number here (agents send one), checked as a string by the same parseLimit as GET.
    limit: z.number().int().optional(),
    filter: z.record(z.string(), loosely(FilterTerms)).optional().describe("{<op>: {<field>: value}}"),
    // Its schema says it all ({<field>: "asc"|"desc"}); the order of precedence is in the server's instructions.
    sort: JsonSort.optional(),
  })
  .strict();
export type ListArgs = z.infer<typeof ListInput>;

/** The query string GET would have taken: an array value repeats the parameter (`in`), `null` is the word `null`. */
export function listQuery(args: ListArgs): URLSearchParams {
  const query = new URLSearchParams();
  if (args.limit !== undefined) query.set("limit", String(args.limit));
  if (args.cursor !== undefined) query.set("cursor", args.cursor);
  if (args.fields !== undefined) query.set("fields", args.fields);
  return filterSortQuery(args, query);
}

/** The filters and sorts of one list, named from its spec so the text cannot drift from what it accepts. */
export function describeList(spec: ListSpec): string {
  const filters = filterableNames(spec.fields);
  const sorts = sortableNames(spec.fields);
  // Most filters sort too: the exceptions are shorter to name.
  const unsorted = filters.filter((name) => !sorts.includes(name));
  const sortsText = sorts.every((name) => filters.includes(name))
    ? unsorted.length
      ? `the filters but ${unsorted.join(", ")}`
      : "the filters"
    : sorts.join(", ");
  // Which take a name as well as an id is the server instructions' rule ("Records go by id or by name"), not repeated here.
  return `Filters: ${filters.join(", ")}. Sorts: ${sortsText}.`;
}
