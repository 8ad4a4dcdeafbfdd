// A list's filter and sort given as JSON (an MCP tool's arguments, POST /tasks/claim's body): `{<op>: {<field>: value}}`
// and `{<field>: "asc"|"desc"}`, turned into the query string GET takes, so the one list machinery checks and builds
// them exactly as it does GET's (unknown names and operators 400).
import { z } from "@hono/zod-openapi";

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** One operator's terms: a value per field (an array for `in`; `null` matches a null field). */
export const FilterTerms = z.record(z.string(), z.union([Scalar, z.array(Scalar)]));
export const JsonFilter = z.record(z.string(), FilterTerms).describe("{<op>: {<field>: value}}");
export const JsonSort = z.record(z.string(), z.enum(["asc", "desc"]));

export interface FilterSort {
  filter?: z.infer<typeof JsonFilter>;
  sort?: z.infer<typeof JsonSort>;
}

/** `filter[op][field]` and `sort[field]` added to `query`: an array value repeats the parameter (`in`), `null` is the word `null`. */
export function filterSortQuery({ filter, sort }: FilterSort, query = new URLSearchParams()): URLSearchParams {
  for (const [op, byField] of Object.entries(filter ?? {})) {
    for (const [field, value] of Object.entries(byField)) {
      for (const v of [value].flat()) query.append(`filter[${op}][${field}]`, v === null ? "null" : String(v));
    }
  }
  for (const [field, direction] of Object.entries(sort ?? {})) query.append(`sort[${field}]`, direction);
  return query;
}
