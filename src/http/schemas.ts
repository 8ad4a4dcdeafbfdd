import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  DEFAULT_LIMIT,
  FILTER_OPS,
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
} from "./list";
import { filterableNames, filterOpsFor, NULL_OPS } from "./list/filter";
import { sortableNames } from "./list/sort";

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

/** The query of a single GET that takes `fields`. */
export const fieldsQueryFor = (shape: FieldShape) => z.object({ fields: fieldsParam(shape) });

type JsonType = "string" | "number" | "boolean" | "object" | "array" | "null";
type JsonSchema = { type?: JsonType | JsonType[]; [keyword: string]: unknown };

/** A filter value of `field` as the list machinery parses it (values.ts); `null` matches null where it may. */
function filterValue(field: ListField, op: FilterOp): JsonSchema {
  const byKind: Record<ListField["kind"], JsonSchema> = {
    string: { type: "string" },
    id: { type: "string", minLength: 1 },
    enum: { type: "string", enum: [...(field.values ?? [])] },
    number: { type: "number" },
    boolean: { type: "boolean" },
    date: { type: "string", format: "date" },
    datetime: { type: "string", format: "date-time" },
  };
  const value = byKind[field.kind];
  const scalar = field.nullable && NULL_OPS.includes(op) ? { anyOf: [value, { type: "null" }] } : value;
  return op === "in" ? { type: "array" as const, items: scalar } : scalar;
}

const objectOf = (properties: Record<string, JsonSchema>) => ({ type: "object" as const, properties, additionalProperties: false });

/**
 * A list's query documented from its ListSpec, the declaration the list machinery checks requests against:
 * `filter[<op>][<field>]` and `sort[<field>]` as deepObject parameters whose names and value types are that list's.
 * At runtime `filter` and `sort` stay unknowns the machinery reads from the raw query (its 400s are unchanged).
 */
export function listQueryFor(spec: ListSpec) {
  // `<prefix>.<key>` names (custom fields) exist per workspace: any such name, with a value of any scalar type.
  const dynamic = (value: JsonSchema) => (spec.dynamic ? { patternProperties: { [`^${spec.dynamic.prefix}\\.`]: value } } : {});
  const DYNAMIC_VALUE: JsonSchema = { type: ["string", "number", "boolean", "null"] };
  const filterable = filterableNames(spec.fields);
  const filter = objectOf(
    Object.fromEntries(
      FILTER_OPS.map((op) => [
        op,
        {
          ...objectOf(
            Object.fromEntries(
              filterable
                .filter((name) => filterOpsFor(spec.fields[name]).includes(op))
                .map((name) => [name, filterValue(spec.fields[name], op)]),
            ),
          ),
          ...dynamic(op === "in" ? { type: "array", items: DYNAMIC_VALUE } : DYNAMIC_VALUE),
        },
      ]),
    ),
  );
  const direction: JsonSchema = { type: "string", enum: ["asc", "desc"] };
  const sort = { ...objectOf(Object.fromEntries(sortableNames(spec.fields).map((name) => [name, direction]))), ...dynamic(direction) };
  const deepObject = { param: { style: "deepObject" as const, explode: true } };
  return ListQuery.extend({
    fields: fieldsParam(spec.shape),
    filter: z
      .unknown()
      .optional()
      .openapi({
        ...deepObject,
        ...filter,
        description:
          "`filter[<op>][<field>]=<value>`; several combine with AND. `in` repeats the parameter (`filter[in][status]=TODO&filter[in][status]=DONE`); " +
          "`contains` and `startsWith` are case-insensitive; `null` (eq, neq, in) matches null. Unknown names are 400, and so are " +
          `more than ${MAX_FILTERS} filters or a value longer than ${MAX_FILTER_VALUE_LENGTH} characters.` +
          (spec.dynamic ? ` \`${spec.dynamic.prefix}.<key>\` filters and sorts on a custom field, as its definition's type.` : ""),
      }),
    sort: z
      .unknown()
      .optional()
      .openapi({
        ...deepObject,
        ...sort,
        description: `\`sort[<field>]=asc|desc\`, at most ${MAX_SORT_KEYS} keys in order of precedence; default \`createdAt\` ascending, ties by id.`,
      }),
  });
}

export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: "id", in: "path" }, description: "Identifier (or, for tasks and projects, reference)" }),
});

export const Pagination = z.object({ limit: z.number().int(), nextCursor: z.string().nullable() }).openapi("Pagination");

/**
 * An object as a route that takes `fields` answers it: every key without `fields`, only the selected ones with it,
 * so here each key is optional (the response types then admit projectFields' narrowed objects without a cast).
 */
export type Selectable<T extends z.ZodObject> = z.ZodObject<{ [K in keyof T["shape"]]: z.ZodOptional<T["shape"][K]> }>;

type Shape = Record<string, z.core.$ZodType>;
const narrowShape = (shape: Shape) => z.object(Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, narrowable(v)]))).partial();

/** `team{prefix}` narrows embedded objects too: objects inside (also in arrays, or nullable) become partial as well. */
function narrowable(schema: z.core.$ZodType): z.core.$ZodType {
  if (schema instanceof z.ZodObject) return narrowShape(schema.shape);
  if (schema instanceof z.ZodArray) return z.array(narrowable(schema.element));
  if (schema instanceof z.ZodNullable) return z.nullable(narrowable(schema.unwrap()));
  if (schema instanceof z.ZodUnion) return z.union(schema.options.map(narrowable));
  return schema;
}

/**
 * The `fields`-narrowed form of `schema`, a named component of the document; define it once beside the schema
 * (`<X>Selection`). Its type is the top-level partial the handlers produce; the document also admits narrowed
 * embedded objects.
 */
export function selectable<T extends z.ZodObject>(schema: T, name: string): Selectable<T> {
  return narrowShape(schema.shape).openapi(name) as unknown as Selectable<T>;
}

/**
 * `schema` or null. For a named schema `.nullable()` renders as `allOf: [$ref, {type: [object, null]}]`, which
 * rejects null; a union renders as `anyOf: [$ref, {type: null}]`.
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

/** A list's body: `{<key>: [items narrowed by fields], pagination}`; `items` is the resource's Selection. */
export const paginated = <K extends string, T extends z.ZodObject>(key: K, items: T) =>
  z.object({ [key]: z.array(items), pagination: Pagination } as { [P in K]: z.ZodArray<T> } & { pagination: typeof Pagination });

/** `YYYY-MM-DD` that is a real calendar date (defined once, in core/dates). */
export { IsoDate } from "../core/dates";

export const HexColor = z
  .string()
  .max(7, "Must be a colour #RRGGBB")
  .regex(/^#[0-9A-Fa-f]{6}$/, "Must be a colour #RRGGBB");

/** Length bounds of request strings that have no natural one (issue 9, hostile input). */
export const MAX_ID_LENGTH = 100;
export const MAX_TEXT_LENGTH = 100_000;
/** An id (or reference) a request body names: 1..100 characters. */
export const BodyId = z.string().min(1).max(MAX_ID_LENGTH, `Must be at most ${MAX_ID_LENGTH} characters`);
/** A key of a free-form object in a request body (custom fields, presentation); zod drops a `__proto__` key. */
export const ObjectKey = z.string().max(MAX_ID_LENGTH, `Must be at most ${MAX_ID_LENGTH} characters`);
/** Markdown a request body carries (descriptions): at most 100,000 characters. */
export const LongText = z.string().max(MAX_TEXT_LENGTH, `Must be at most ${MAX_TEXT_LENGTH.toLocaleString("en")} characters`);

/** 201 with Location (contract §1) for a POST that creates a resource. */
export function created<K extends string, T>(c: Context, key: K, location: string, value: T) {
  c.header("Location", location);
  return c.json({ [key]: value } as { [P in K]: T }, 201);
}
