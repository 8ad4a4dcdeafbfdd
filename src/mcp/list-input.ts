import { z } from "@hono/zod-openapi";
import { DEFAULT_LIMIT, FILTER_OPS, type ListSpec, MAX_LIMIT } from "../http/list";
import { filterableNames } from "../http/list/filter";
import { sortableNames } from "../http/list/sort";
import { ListQuery } from "../http/schemas";

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * The arguments of every list tool: GET's `limit`, `cursor` and `fields`, with `filter[op][field]` and
 * `sort[field]` as objects. They become a query string (listQuery), so the list machinery checks them exactly
 * as it checks GET's (unknown names 400, limit out of range 422).
 */
export const ListInput = z
  .object({
    ...ListQuery.shape,
    // A number here (agents send one), checked as a string by the same parseLimit as GET.
    limit: z.number().int().optional().describe(`Page size, 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT})`),
    filter: z
      .record(z.string(), z.record(z.string(), z.union([Scalar, z.array(Scalar)])))
      .optional()
      .describe(`{<op>: {<field>: value}}; ops ${FILTER_OPS.join(", ")}; \`in\` takes an array`),
    sort: z
      .record(z.string(), z.enum(["asc", "desc"]))
      .optional()
      .describe('{<field>: "asc"|"desc"}, in order of precedence'),
  })
  .strict();
export type ListArgs = z.infer<typeof ListInput>;

/** The query string GET would have taken: an array value repeats the parameter (`in`), `null` is the word `null`. */
export function listQuery(args: ListArgs): URLSearchParams {
  const query = new URLSearchParams();
  if (args.limit !== undefined) query.set("limit", String(args.limit));
  if (args.cursor !== undefined) query.set("cursor", args.cursor);
  if (args.fields !== undefined) query.set("fields", args.fields);
  for (const [op, byField] of Object.entries(args.filter ?? {})) {
    for (const [field, value] of Object.entries(byField)) {
      for (const v of [value].flat()) query.append(`filter[${op}][${field}]`, v === null ? "null" : String(v));
    }
  }
  for (const [field, direction] of Object.entries(args.sort ?? {})) query.append(`sort[${field}]`, direction);
  return query;
}

/** Which id filters take names (contract §13), e.g. "teamId: a team id (`team_…`) or its prefix (`ENG`, any case)". */
function namedFilters(spec: ListSpec): string {
  const named = filterableNames(spec.fields).filter((name) => spec.fields[name].names?.forms.includes(" or "));
  return named.length ? `Id filters take a name too: ${named.map((name) => `${name}: ${spec.fields[name].names?.forms}`).join("; ")}.` : "";
}

/** How to page, filter and sort one list, named from its spec so the text cannot drift from what it accepts. */
export function describeList(spec: ListSpec): string {
  return [
    "Pass pagination.nextCursor back as cursor for the next page.",
    'fields selects keys, e.g. "id,name" or "team{prefix}".',
    `Filter fields (null matches null; filters combine with AND): ${filterableNames(spec.fields).join(", ")}.`,
    ...[namedFilters(spec)].filter(Boolean),
    `Sort fields (default createdAt ascending): ${sortableNames(spec.fields).join(", ")}.`,
  ].join(" ");
}
