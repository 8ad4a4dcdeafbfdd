// One field map per record type (docs/architecture.md, "One shape per resource"): each field says once what it is in
// SQL, in the answer and in a request, and the record derives from that map the JSON PostgreSQL builds for the answer
// (in the statement that reads or writes), the answer's OpenAPI schema, what `fields` may select, the list's filters and
// sorts, the request bodies' schemas, the columns a write stores, and the export record with the schema an import checks.
import { z } from "@hono/zod-openapi";
import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { type DynamicFields, type FieldSelection, type FieldShape, type ListField, type ListSpec, selects, type ValueKind } from "./list";
import { selectable } from "./schemas";

type Kind = ValueKind | "json";

/** How a request sets a field: its schema, and on create whether it is required or what it defaults to. */
export interface FieldInput {
  schema: z.ZodType;
  /** On create: required, or left out (the column's default / null), or this default. Update bodies are partial. */
  create?: "required" | "optional" | { default: unknown };
  /**
   * `stored`: written as sent (the default); `resolved`: the operation checks or resolves it first (a link given by
   * reference, custom values merged and type-checked), so it is not among `storedColumns`.
   */
  write?: "stored" | "resolved";
  /** Not a column of the record (e.g. `labelIds`): only in request bodies (and exports, when `exported`). */
  column?: false;
}

export interface Field {
  /** The value in SQL, over the record's FROM. */
  value: SQL | AnyColumn;
  kind: Kind;
  /** The answer's schema of this field. */
  schema: z.ZodType;
  /** Names `fields=` may select inside an object or array of objects. */
  shape?: FieldShape;
  /** Built only when `fields` selects it (an embedded object costs a subquery); left out of the JSON otherwise. */
  lazy?: boolean;
  /** Not in the answer: only filtered, sorted, written or exported. */
  hidden?: boolean;
  /** Filters and sorts (default for scalar kinds: both, on `value`); false: neither. */
  list?: false | (Partial<Omit<ListField, "kind">> & { kind?: ValueKind });
  input?: FieldInput;
  /** In exports, with the schema an import checks (default: the input's schema). */
  exported?: true | z.ZodType;
  nullable?: boolean;
  values?: readonly string[];
}

type Options = Partial<Pick<Field, "lazy" | "hidden" | "list" | "input" | "exported" | "shape">> & {
  nullable?: boolean;
  /** OpenAPI description and example of the answer's field. */
  doc?: { description?: string; example?: unknown };
};

function field(value: SQL | AnyColumn, kind: Kind, schema: z.ZodType, o: Options = {}, values?: readonly string[]): Field {
  const described = o.doc ? schema.openapi(o.doc) : schema;
  return { ...o, value, kind, values, schema: o.nullable ? described.nullable() : described };
}

/** Field constructors by kind: `f.text(tasks.title, { input: … })`. */
export const f = {
  id: (value: SQL | AnyColumn, o?: Options) => field(value, "id", z.string(), o),
  text: (value: SQL | AnyColumn, o?: Options) => field(value, "string", z.string(), o),
  integer: (value: SQL | AnyColumn, o?: Options) => field(value, "number", z.number().int(), o),
  boolean: (value: SQL | AnyColumn, o?: Options) => field(value, "boolean", z.boolean(), o),
  /** `YYYY-MM-DD` */
  date: (value: SQL | AnyColumn, o?: Options) => field(value, "date", z.string(), { ...o, doc: { example: "2026-03-31", ...o?.doc } }),
  /** ISO 8601 UTC with milliseconds and `Z` */
  datetime: (value: SQL | AnyColumn, o?: Options) => field(value, "datetime", z.string(), o),
  enum: (value: SQL | AnyColumn, schema: z.ZodEnum, o?: Options) => field(value, "enum", schema, o, schema.options as string[]),
  /** A JSON value built in SQL (an embedded object or array, a jsonb column): neither filtered nor sorted. */
  json: (value: SQL | AnyColumn, schema: z.ZodType, o?: Options) => field(value, "json", schema, { list: false, ...o }),
};

const ISO_DATETIME = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** A field's value as the answer's JSON carries it: timestamps as ISO 8601 UTC with milliseconds, dates as `YYYY-MM-DD`. */
function jsonValue(field: Field): SQL {
  if (field.kind === "datetime") return sql`to_char(${field.value} at time zone 'UTC', ${sql.raw(ISO_DATETIME)})`;
  if (field.kind === "date") return sql`to_char(${field.value}, 'YYYY-MM-DD')`;
  return sql`${field.value}`;
}

/** `json_build_object('<name>', <value>, …)`; the names are code constants (json_build_object cannot type a text parameter). */
const jsonObject = (entries: Array<[string, SQL]>) =>
  sql`json_build_object(${sql.join(
    entries.map(([name, value]) => sql`${sql.raw(`'${name}'`)}, ${value}`),
    sql`, `,
  )})`;

export interface RecordDefinition<F extends Record<string, Field>> {
  /** The OpenAPI component of the answer (e.g. "Task"); its `fields`-narrowed form is `<name>Selection`. */
  name: string;
  /** The list name bound into cursors, e.g. "tasks". */
  resource: string;
  /** What the values are read from: the record's table and the joins its fields name. */
  from: SQL;
  /** The id column (the keyset's tiebreak). */
  id: AnyColumn;
  fields: F;
  /** Per-workspace names `<prefix>.<key>` (custom fields) in filters and sorts. */
  dynamic?: DynamicFields;
}

type Shown<F extends Record<string, Field>> = { [K in keyof F as F[K]["hidden"] extends true ? never : K]: F[K] };
type Dto<F extends Record<string, Field>> = { [K in keyof Shown<F>]: z.infer<Shown<F>[K]["schema"]> };
type Inputs<F extends Record<string, Field>> = { [K in keyof F as F[K]["input"] extends FieldInput ? K : never]: F[K] };

/** A record type, from its field map: see the top of this file. */
export function defineRecord<const F extends Record<string, Field>>(def: RecordDefinition<F>) {
  const entries = Object.entries(def.fields) as Array<[string, Field]>;
  const shown = entries.filter(([, field]) => !field.hidden);
  const shape: FieldShape = Object.fromEntries(shown.map(([name, field]) => [name, field.shape ?? true]));
  const schema = z
    .object(Object.fromEntries(shown.map(([name, field]) => [name, field.schema])))
    .openapi(def.name) as unknown as z.ZodObject<{
    [K in keyof Shown<F>]: Shown<F>[K]["schema"];
  }>;
  const listFields: Record<string, ListField> = Object.fromEntries(
    entries.flatMap(([name, field]) => {
      if (field.list === false || (field.kind === "json" && !field.list)) return [];
      const kind = (field.list?.kind ?? field.kind) as ValueKind;
      return [[name, { expr: field.value, kind, nullable: field.nullable, values: field.values, ...field.list }]];
    }),
  );
  const inputs = entries.filter(([, field]) => field.input) as Array<[string, Field & { input: FieldInput }]>;
  const exported = entries.filter(([, field]) => field.exported);

  return {
    name: def.name,
    from: def.from,
    /** The answer's schema (a named component). */
    schema,
    /** The answer narrowed by `fields` (every key optional). */
    selection: selectable(schema, `${def.name}Selection`),
    shape,
    /** The list spec every list of these records pages with. */
    list: { resource: def.resource, id: def.id, fields: listFields, shape, dynamic: def.dynamic } satisfies ListSpec,
    /**
     * The answer as one JSON value built by PostgreSQL over `from`: the fields `selection` names (null: all), lazy ones
     * only when named. Nested narrowing (`team{prefix}`) is projectFields' work on the result.
     */
    json(selection: FieldSelection | null = null): SQL<Dto<F>> {
      // Scalars always: a list's cursor reads its sort keys from the answer; projectFields narrows afterwards.
      const picked = shown.filter(([name, field]) => !field.lazy || selects(selection, name));
      return jsonObject(picked.map(([name, field]) => [name, jsonValue(field)])) as SQL<Dto<F>>;
    },
    /** The record as an export carries it (its own ids and links, no embedded objects). */
    exportJson(): SQL {
      return jsonObject(exported.map(([name, field]) => [name, jsonValue(field)]));
    },
    /** The schemas an import checks an exported record's fields with. */
    exportShape(): Record<string, z.ZodType> {
      return Object.fromEntries(
        exported.map(([name, field]) => [
          name,
          field.exported === true ? (field.input?.schema ?? field.schema) : (field.exported as z.ZodType),
        ]),
      );
    },
    /** The schema of each field a request body may set. */
    inputShape(): { [K in keyof Inputs<F>]: z.ZodType } {
      return Object.fromEntries(inputs.map(([name, field]) => [name, field.input.schema])) as { [K in keyof Inputs<F>]: z.ZodType };
    },
    /** The create body's fields: required ones, defaults, the rest optional. */
    createShape(): Record<string, z.ZodType> {
      return Object.fromEntries(
        inputs.map(([name, { input }]) => {
          const { create = "optional" } = input;
          if (create === "required") return [name, input.schema];
          if (create === "optional") return [name, input.schema.optional()];
          return [name, input.schema.default(create.default as never)];
        }),
      );
    },
    /** The fields a write stores as sent (by their property names, as Drizzle's insert and update take them). */
    storedFields(): string[] {
      return inputs.filter(([, { input }]) => (input.write ?? "stored") === "stored" && input.column !== false).map(([name]) => name);
    },
    /** Every field an import writes or overwrites (stored and resolved columns). */
    importedFields(): string[] {
      return inputs.filter(([, { input }]) => input.column !== false).map(([name]) => name);
    },
  };
}

export type RecordType = ReturnType<typeof defineRecord>;
