import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  DEFAULT_LIMIT,
  type FieldShape,
  type FilterOp,
  type ListField,
  type ListSpec,
  MAX_CURSOR_LENGTH,
  MAX_FIELDS_DEPTH,
  MAX_FIELDS_LENGTH,
  MAX_FIELDS_NAMES,
  MAX_FILTER_VALUE_LENGTH,
  MAX_FILTERS,
  MAX_LIMIT,
  MAX_SORT_KEYS,
} from "../store/list";
import { filterableNames, filterOpsFor, MAX_IN_VALUES, NULL_OPS } from "../store/list/filter";
import { sortableNames } from "../store/list/sort";

const FIELDS_GRAMMAR =
  "Comma-separated names; `name{…}` selects inside an object or array, e.g. `id,title,team{prefix},labels{name}`. Unknown names are 400, " +
  `and so are more than ${MAX_FIELDS_NAMES} names or ${MAX_FIELDS_DEPTH} levels.`;

/** Query of every list (the runtime schema; `listQueryFor` documents a list's filter and sort names on top of it). */
export const ListQuery = z.looseObject({
  // Parsed by the list machinery (parseLimit: 422 `{errors:{limit}}`), so the runtime schema stays a string.
  limit: z
    .string()
    .optional()
    .openapi({ type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Page size, 1..${MAX_LIMIT}` }),
  cursor: z
    .string()
    .optional()
    .openapi({ maxLength: MAX_CURSOR_LENGTH, description: "Opaque `pagination.nextCursor` of the previous page (same filters and sort)" }),
  fields: z.string().optional().openapi({ maxLength: MAX_FIELDS_LENGTH, description: FIELDS_GRAMMAR }),
});

/** `fields` without its names, for callers that have no FieldShape at hand. */
export const FieldsQuery = z.object({
  fields: z.string().optional().openapi({ maxLength: MAX_FIELDS_LENGTH, description: FIELDS_GRAMMAR }),
});

/** `fields` with the names `shape` (the route's FieldShape, what parseFields checks) allows at the top level. */
const fieldsParam = (shape: FieldShape) =>
  z
    .string()
    .optional()
    .openapi({ maxLength: MAX_FIELDS_LENGTH, description: `${FIELDS_GRAMMAR} Names: ${Object.keys(shape).join(", ")}.` });

/** The query of a single GET that takes `fields`: FieldsQuery's check, its names documented later. */
export const fieldsQueryFor = (shape: FieldShape) =>
  documentedLater(FieldsQuery.extend({}), () => z.object({ fields: fieldsParam(shape) }));

type JsonType = "string" | "number" | "boolean" | "object" | "array" | "null";
type JsonSchema = { type?: JsonType | JsonType[]; [keyword: string]: unknown };

/**
 * A filter value of `field` as the list machinery parses it (values.ts), which refuses any value longer than
 * MAX_FILTER_VALUE_LENGTH first. Query strings carry text, so "no value" is the word `null` (generated clients
 * drop a JSON null instead of sending it).
 */
function filterValue(field: ListField, op: FilterOp): JsonSchema {
  const text = (schema: JsonSchema): JsonSchema => ({ type: "string", ...schema, maxLength: MAX_FILTER_VALUE_LENGTH });
  const example = field.example ?? field.names?.example;
  const byKind: Record<ListField["kind"], JsonSchema> = {
    string: text({}),
    id: text({ minLength: 1, ...(example && { example }) }),
    enum: { type: "string", enum: [...(field.values ?? [])] },
    number: { type: "number" },
    boolean: { type: "boolean" },
    date: text({ format: "date" }),
    datetime: text({ format: "date-time" }),
  };
  const value = byKind[field.kind];
  return field.nullable && NULL_OPS.includes(op) ? { anyOf: [value, { type: "string", const: "null" }] } : value;
}

/**
 * A query parameter the route documents but does not check: the list machinery reads it from the raw query. One schema
 * per distinct documentation, shared by every list that documents a parameter alike (most filters recur across lists).
 */
const documentedSchemas = new Map<string, z.ZodType>();
function documented(schema: JsonSchema): z.ZodType {
  const key = JSON.stringify(schema);
  const known = documentedSchemas.get(key);
  if (known) return known;
  const built = z.unknown().optional().openapi(schema);
  documentedSchemas.set(key, built);
  return built;
}

/** What documentedLater was given: by the query schema a route checks, the builder of the one the document shows. */
const laterDocumentation = new WeakMap<z.ZodType, () => z.ZodObject>();

/**
 * `query`, the schema a route checks, shown in the OpenAPI document as `documentation` builds it: `query` with the
 * parameters the route reads from the raw query instead (in the document's order). Built when a document is first
 * generated, not as the Worker loads: they were the largest part of what loading it allocated (docs/performance.md,
 * "Cold start").
 */
export function documentedLater<T extends z.ZodObject>(query: T, documentation: () => z.ZodObject): T {
  laterDocumentation.set(query, documentation);
  return query;
}

/**
 * Gives `registry`'s routes the query documentation documentedLater deferred: before a document is generated from it
 * (app.ts). A route already given its documentation is left as it is.
 */
export function documentQueries(registry: OpenAPIHono["openAPIRegistry"]) {
  for (const definition of registry.definitions) {
    if (definition.type !== "route" || !definition.route.request?.query) continue;
    const documentation = laterDocumentation.get(definition.route.request.query);
    // A copy: the route's own config is what its validators and the batch check requests with.
    if (documentation) definition.route = { ...definition.route, request: { ...definition.route.request, query: documentation() } };
  }
}

/**
 * A list's query documented from its ListSpec, the declaration the list machinery checks requests against: one
 * plain parameter per accepted `filter[<op>][<field>]` (`in` as an exploded array) and `sort[<field>]`, which
 * OpenAPI's form style and so every generated client serialise as they are (a deepObject two levels deep is
 * outside what OpenAPI defines). The list machinery reads them from the raw query (its 400s), so the route checks
 * ListQuery alone and they are documented later, with `fields`' names. `extra`: the route's own parameters, after them.
 */
export function listQueryFor<T extends z.ZodRawShape = Record<never, never>>(spec: ListSpec, extra?: T) {
  return documentedLater(ListQuery.extend({ ...extra } as T), () => {
    const params = filterQueryFor(spec.fields);
    for (const name of sortableNames(spec.fields)) params[`sort[${name}]`] = documented({ type: "string", enum: ["asc", "desc"] });
    return ListQuery.extend({ fields: fieldsParam(spec.shape), ...params, ...extra });
  });
}

/** The `filter[<op>][<field>]` parameters `fields` take, documented (a list's, the event stream's). */
export function filterQueryFor(fields: Record<string, ListField>): Record<string, z.ZodType> {
  const params: Record<string, z.ZodType> = {};
  for (const name of filterableNames(fields)) {
    const field = fields[name];
    // What an id filter takes (docs/api.md, "Ids and names"): the id or the record's name.
    const described = field.names && { description: `${field.names.forms[0].toUpperCase()}${field.names.forms.slice(1)}` };
    for (const op of filterOpsFor(field)) {
      const value = filterValue(field, op);
      params[`filter[${op}][${name}]`] = documented({
        ...(op === "in" ? { type: "array", items: value, maxItems: MAX_IN_VALUES, param: { style: "form", explode: true } } : value),
        ...described,
      });
    }
  }
  return params;
}

/**
 * How a list's filter and sort parameters work, for the operation's description (after `about`, the route's own
 * text). Fields under `spec.dynamic` exist per workspace, so no parameter can name them: how a typed client sends
 * them anyway is said here.
 */
export function listDescription(spec: ListSpec, about: string): string {
  const text = [
    about,
    "Filters: one `filter[<op>][<field>]` parameter per field and operator the list accepts; several combine with AND. `in` repeats " +
      "its parameter once per value (an array); `contains` and `startsWith` are case-insensitive; the value `null` (eq, neq, in) " +
      "matches a field that has none. `sort[<field>]=asc|desc`: at most " +
      `${MAX_SORT_KEYS} keys, in the order of the parameters; default \`createdAt\` ascending, ties by id. An unknown name is 400 ` +
      `(\`details\` lists the allowed ones), and so are more than ${MAX_FILTERS} filters or a value longer than ` +
      `${MAX_FILTER_VALUE_LENGTH} characters.`,
  ];
  if (spec.dynamic) {
    const name = `${spec.dynamic.prefix}.<key>`;
    text.push(
      `Custom fields are \`filter[<op>][${name}]\` and \`sort[${name}]\`, compared as the field definition's type (a key not ` +
        `defined for ${spec.resource} is 400). Their keys differ per workspace, so no parameter above names them: send them as ` +
        "further query parameters of the same form. A generated TypeScript client (openapi-fetch, hey-api) sends every key of its " +
        "query: spread a `Record<string, string | string[]>` of them into the typed parameters, e.g. " +
        '`{...custom, "filter[eq][priority]": "HIGH"}`.',
    );
  }
  return text.join(" ");
}

export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" }, description: "Identifier (or, for tasks and projects, reference)" }),
});

export const Pagination = z.object({ limit: z.number().int(), nextCursor: z.string().nullable() }).openapi("Pagination");

/** A list's body: `{<key>: [items narrowed by fields], pagination}`; `items` is the resource's Selection. */
export const paginated = <K extends string, T extends z.ZodObject>(key: K, items: T) =>
  z.object({ [key]: z.array(items), pagination: Pagination } as { [P in K]: z.ZodArray<T> } & { pagination: typeof Pagination });

/** 201 with Location (docs/api.md) for a POST that creates a resource. */
export function created<K extends string, T>(c: Context, key: K, location: string, value: T) {
  c.header("Location", location);
  return c.json({ [key]: value } as { [P in K]: T }, 201);
}

/** The value schemas (store/schemas.ts), for the routes' bodies and answers. */
export {
  BodyId,
  ExportTimestamp,
  HexColor,
  IsoDate,
  LongText,
  MAX_ID_LENGTH,
  MAX_TEXT_LENGTH,
  ObjectKey,
  orNull,
  type Selectable,
  selectable,
} from "../store/schemas";
