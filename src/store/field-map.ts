// One field map per record type (docs/architecture.md, "One shape per resource"): each field says once what it is in
// SQL, in the answer and in a request, and the record derives from that map the JSON PostgreSQL builds for the answer
// (in the statement that reads or writes), the answer's OpenAPI schema, what `fields` may select, the list's filters and
// sorts, the request bodies' schemas, the columns a write stores, and the export record with the schema an import checks.
import { z } from "@hono/zod-openapi";
import { type AnyColumn, and, Column, eq, getTableColumns, getTableName, is, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { sqlDialect as dialect } from "../db/dialect";
import { inTeams, type Reach } from "../db/scope";
import {
  type DynamicFields,
  type FieldSelection,
  type FieldShape,
  type ListField,
  type ListSpec,
  type NamedValues,
  selects,
  type ValueKind,
} from "./list";
import { ExportTimestamp, selectable } from "./schemas";

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
  /** What an id field's values name (records/names.ts): its filters take the record's id or human name. */
  names?: NamedValues;
  /**
   * Listed by GET /fields as a built-in field of the record type: its display name, and its type when the kind does not
   * say it (a link is a `user` or a `relation` to another record). A select's options are the enum's values.
   */
  builtIn?: { name: string; type?: "user" | "relation"; metadata?: Record<string, unknown> };
  /**
   * The value as the caller's reach allows it (an embedded list of records of other teams, e.g. a task's relations):
   * built in place of `value` by reads, which know the caller, and only when `fields` names it (so never in a write's
   * answer). Its schema says it is optional.
   */
  reached?: (reach: Reach) => SQL;
  /** Built only when `fields` names it, never in the whole answer (a list of other records, e.g. a task's links). */
  onlyNamed?: boolean;
  /**
   * The value from the record's stored row (an event's image) as of `at` (the event's time), for a field that is no one
   * column but an expression over several (a task's claim).
   */
  stored?: (image: Record<string, unknown>, at: Date) => unknown;
  /**
   * The value for a record its own statement just made, when `value` reads other rows that name it (its worklogs,
   * subtasks, blockers): none can yet, and a statement's scans do not see what its other parts write, so `value` would
   * read nothing. A constant instead: the statement plans and runs no subquery for it.
   */
  created?: SQL;
}

/** A built-in field as GET /fields lists it (before the record type and the fixed attributes are added). */
export interface BuiltInField {
  key: string;
  name: string;
  type: BuiltInType;
  metadata: Record<string, unknown>;
}
type BuiltInType = "text" | "select" | "date" | "number" | "boolean" | "user" | "relation";

const BUILT_IN_TYPE: Partial<Record<Kind, BuiltInType>> = {
  string: "text",
  enum: "select",
  date: "date",
  number: "number",
  boolean: "boolean",
};

type Options = Partial<
  Pick<
    Field,
    "lazy" | "hidden" | "list" | "input" | "exported" | "shape" | "builtIn" | "reached" | "onlyNamed" | "names" | "stored" | "created"
  >
> & {
  nullable?: boolean;
  /** Absent from some answers (a built-in field has no id): optional in the answer's schema. */
  optional?: boolean;
  /** OpenAPI description and example of the answer's field. */
  doc?: { description?: string; example?: unknown };
};

type Nullable<S extends z.ZodType, O> = O extends { nullable: true } ? z.ZodNullable<S> : S;
type Optional<S extends z.ZodType, O> = O extends { optional: true } ? z.ZodOptional<S> : S;
/** A field whose answer schema (nullable, optional) and visibility are known to the types, so a record's answer type is. */
export type TypedField<S extends z.ZodType, O> = Omit<Field, "schema" | "hidden"> & {
  schema: Optional<Nullable<S, O>, O>;
  hidden: O extends { hidden: true } ? true : false;
};

function field<S extends z.ZodType, O extends Options>(
  value: SQL | AnyColumn,
  kind: Kind,
  schema: S,
  o: O = {} as O,
  values?: readonly string[],
): TypedField<S, O> {
  const described = o.doc ? schema.openapi(o.doc) : schema;
  const nullable = o.nullable ? described.nullable() : described;
  return {
    ...o,
    value,
    kind,
    values,
    schema: o.optional ? nullable.optional() : nullable,
    hidden: o.hidden === true,
  } as unknown as TypedField<S, O>;
}

/** A field with no options (`{}`, spelled so the linter knows it is meant). */
type NoOptions = Record<never, never>;

/** Field constructors by kind: `f.text(tasks.title, { input: … })`. */
export const f = {
  id: <const O extends Options = NoOptions>(value: SQL | AnyColumn, o?: O) => field(value, "id", z.string(), o),
  text: <const O extends Options = NoOptions>(value: SQL | AnyColumn, o?: O) => field(value, "string", z.string(), o),
  integer: <const O extends Options = NoOptions>(value: SQL | AnyColumn, o?: O) => field(value, "number", z.number().int(), o),
  /** Any finite number (a state's position, between two others). */
  number: <const O extends Options = NoOptions>(value: SQL | AnyColumn, o?: O) => field(value, "number", z.number(), o),
  boolean: <const O extends Options = NoOptions>(value: SQL | AnyColumn, o?: O) => field(value, "boolean", z.boolean(), o),
  /** `YYYY-MM-DD` */
  date: <const O extends Options = NoOptions>(value: SQL | AnyColumn, o?: O) =>
    field(value, "date", z.string().openapi({ example: "2026-03-31" }), o),
  /** ISO 8601 UTC with milliseconds and `Z` */
  datetime: <const O extends Options = NoOptions>(value: SQL | AnyColumn, o?: O) => field(value, "datetime", z.string(), o),
  enum: <E extends z.ZodEnum, const O extends Options = NoOptions>(value: SQL | AnyColumn, schema: E, o?: O) =>
    field(value, "enum", schema, o, schema.options as string[]),
  /** A JSON value built in SQL (an embedded object or array, a jsonb column): neither filtered nor sorted unless `list` says. */
  json: <S extends z.ZodType, const O extends Options = NoOptions>(value: SQL | AnyColumn, schema: S, o?: O) =>
    field(value, "json", schema, { list: false, ...o } as O),
};

/** `createdAt` and `updatedAt` of a record that goes out in exports (the import checks them as ISO timestamps). */
export const exportedTimestamps = (table: { createdAt: AnyColumn; updatedAt: AnyColumn }) => ({
  createdAt: f.datetime(table.createdAt, { exported: ExportTimestamp }),
  updatedAt: f.datetime(table.updatedAt, { exported: ExportTimestamp }),
});

/** A timestamp as the answers carry it: ISO 8601 in UTC with milliseconds (`2026-01-02T03:04:05.678Z`). */
export const isoTimestamp = (value: SQLWrapper): SQL => sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A column named with its table (where Drizzle would leave it bare in a query whose FROM joins others); other SQL as is. */
export const qualified = (value: SQLWrapper) =>
  is(value, Column) ? sql`${sql.identifier(getTableName(value.table))}.${sql.identifier(value.name)}` : value;

/** A field's value as the answer's JSON carries it: timestamps as ISO 8601 UTC with milliseconds, dates as `YYYY-MM-DD`. */
function jsonValue(field: Field, reach?: Reach, created = false): SQL {
  if (created && field.created) return field.created;
  if (field.reached) {
    if (!reach) throw new Error("A field that depends on the caller's reach was selected without it");
    return field.reached(reach);
  }
  if (field.kind === "datetime") return isoTimestamp(field.value);
  if (field.kind === "date") return sql`to_char(${field.value}, 'YYYY-MM-DD')`;
  return sql`${field.value}`;
}

/** `json_build_object('<name>', <value>, …)`; the names are code constants (json_build_object cannot type a text parameter). */
const jsonObject = (entries: Array<[string, SQL]>) =>
  sql`json_build_object(${sql.join(
    entries.map(([name, value]) => sql`${sql.raw(`'${name}'`)}, ${value}`),
    sql`, `,
  )})`;

/**
 * `value` as its rendered text when it holds no parameter (a record's JSON made of its fields' SQL): drizzle walks every
 * chunk of a statement each time it renders it, and for a read that answers a task this walk was about a tenth of the
 * Worker's CPU (docs/performance.md, "What a request costs"). The text is the same every time, so it is made once.
 */
function rendered(value: SQL): SQL {
  const { sql: text, params } = dialect.sqlToQuery(value);
  return params.length === 0 ? sql.raw(text) : value;
}

/** The most JSON shapes a record keeps rendered: one per `fields` selection asked for, so a bound, not a leak. */
const RENDERED_SHAPES = 64;

export interface RecordDefinition<F extends Record<string, Field>> {
  /** The OpenAPI component of the answer (e.g. "Task"); its `fields`-narrowed form is `<name>Selection`. */
  name: string;
  /** The list name bound into cursors, e.g. "tasks". */
  resource: string;
  /** What the values are read from: the record's table and the joins its fields name. */
  from: SQL;
  /** The id column (the keyset's tiebreak). */
  id: AnyColumn;
  /** The column that scopes a record to its workspace (a user as such has none: its membership does). */
  workspace?: AnyColumn;
  /**
   * The team a record belongs to (a column or an expression over `from`), or null for a workspace-wide record: a
   * credential bound to other teams does not see it (docs/api.md, "Least privilege").
   */
  team: SQLWrapper | null;
  /** How a path names one record (default: its id; tasks and projects also by reference). */
  match?: (idOrRef: string, workspace: SQLWrapper | string) => SQL;
  /** With `match` (records/names.ts, pathNames): the records many such values name, as rows `(id, key)`, in one lookup. */
  keyedIds?: (values: string[], workspace: SQLWrapper | string) => SQL;
  /** The keys a value finds its row of `keyedIds` by. */
  pathKeys?: (idOrRef: string) => string[];
  /** The noun of its NOT_FOUND (default: `name`). */
  noun?: string;
  fields: F;
  /** Per-workspace names `<prefix>.<key>` (custom fields) in filters and sorts. */
  dynamic?: DynamicFields;
}

type Shown<F extends Record<string, Field>> = { [K in keyof F as F[K]["hidden"] extends true ? never : K]: F[K] };
type AnswerShape<F extends Record<string, Field>> = { [K in keyof Shown<F>]: Shown<F>[K]["schema"] };
type Dto<F extends Record<string, Field>> = z.infer<z.ZodObject<AnswerShape<F>>>;
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
      const listed: ListField = {
        expr: field.value,
        kind,
        nullable: field.nullable,
        values: field.values,
        names: field.names,
        ...field.list,
      };
      // Names (docs/api.md, "Ids and names"): no filter answers an empty list for a value it did not understand, so every id filter says what it names.
      if (kind === "id" && listed.filter !== false && !listed.names && !listed.customFilter) {
        throw new Error(`${def.name}.${name} is a filterable id: say what it names (names: named(<kind>), records/names.ts)`);
      }
      return [[name, listed]];
    }),
  );
  const inputs = entries.filter(([, field]) => field.input) as Array<[string, Field & { input: FieldInput }]>;
  const exported = entries.filter(([, field]) => field.exported);
  const shapes = new Map<string, SQL>();
  const scoped = () => {
    if (!def.workspace) throw new Error(`${def.name} has no workspace column: it is read through another record`);
    return def.workspace;
  };

  return {
    name: def.name,
    noun: def.noun ?? def.name,
    from: def.from,
    /** The field map itself (an event renders a stored row of the record with it). */
    fields: def.fields,
    /** The team a record belongs to (null: workspace-wide). */
    team: def.team,
    /** The records the caller reaches: its workspace's (an id, or the credential's as SQL), within its teams. */
    inReach: (reach: Reach) => and(eq(scoped(), reach.workspace), def.team === null ? undefined : inTeams(reach.teams, def.team))!,
    /** The one record `idOrRef` names within the caller's reach. */
    named(reach: Reach, idOrRef: string) {
      return and(this.inReach(reach), def.match ? def.match(idOrRef, reach.workspace) : eq(def.id, idOrRef))!;
    },
    /** The records `values` (ids or references) name in `workspace`, as rows `(id, key)` of one SELECT. */
    keyedIds(values: string[], workspace: SQLWrapper | string): SQL {
      return def.keyedIds
        ? def.keyedIds(values, workspace)
        : sql`select v as id, v as key from unnest(array[${sql.join(
            values.map((v) => sql`${v}`),
            sql`, `,
          )}]::text[]) as v`;
    },
    /** The keys `idOrRef` finds its row of `keyedIds` by, in order. */
    pathKeys(idOrRef: string): string[] {
      return def.pathKeys ? def.pathKeys(idOrRef) : [idOrRef];
    },
    /** The answer's schema (a named component). */
    schema,
    /** The answer narrowed by `fields` (every key optional). */
    selection: selectable(schema, `${def.name}Selection`),
    shape,
    /** The list spec every list of these records pages with. */
    list: { resource: def.resource, id: def.id, fields: listFields, shape, dynamic: def.dynamic } satisfies ListSpec,
    /**
     * The answer as one JSON value built by PostgreSQL over `from`: the fields `selection` names (null: all), lazy ones
     * only when named. Nested narrowing (`team{prefix}`) is projectFields' work on the result. `reach` (the caller's)
     * builds the fields that depend on it. `created`: the answer of a statement that made the record (Field.created).
     */
    json(selection: FieldSelection | null = null, reach?: Reach, { created = false } = {}): SQL<Dto<F>> {
      // Scalars always: a list's cursor reads its sort keys from the answer; projectFields narrows afterwards.
      const picked = shown.filter(([name, field]) =>
        field.reached || field.onlyNamed ? selection !== null && Object.hasOwn(selection, name) : !field.lazy || selects(selection, name),
      );
      const build = () => jsonObject(picked.map(([name, field]) => [name, jsonValue(field, reach, created)]));
      // A field that depends on the caller's reach differs per request; the others are the map's own constant SQL.
      if (picked.some(([, field]) => field.reached)) return build() as SQL<Dto<F>>;
      const key = `${created ? "created:" : ""}${picked.map(([name]) => name).join()}`;
      let json = shapes.get(key);
      if (!json) {
        if (shapes.size >= RENDERED_SHAPES) shapes.clear();
        json = rendered(build());
        shapes.set(key, json);
      }
      return json as SQL<Dto<F>>;
    },
    /** The record as an export carries it (its own ids and links, no embedded objects). */
    exportJson(): SQL {
      return jsonObject(exported.map(([name, field]) => [name, jsonValue(field)]));
    },
    /**
     * The export record's schema (a named component), which an import checks: strict, each field by its exported schema.
     * `T` says what the import reads of it by name (its ids and links); the other fields are written as exported.
     */
    exportSchema<T extends Record<string, unknown>>(component: string): z.ZodType<T> {
      return z.object(this.exportShape()).strict().openapi(component) as unknown as z.ZodType<T>;
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
    /** The record type's built-in fields, as GET /fields lists them, in the order of the map. */
    builtIns(): BuiltInField[] {
      return entries.flatMap(([key, field]) => {
        if (!field.builtIn) return [];
        const type = field.builtIn.type ?? BUILT_IN_TYPE[field.kind];
        if (!type) throw new Error(`${def.name}.${key}: a built-in of kind ${field.kind} needs its type`);
        const metadata = field.builtIn.metadata ?? (field.kind === "enum" ? { options: [...(field.values ?? [])] } : {});
        return [{ key, name: field.builtIn.name, type, metadata }];
      });
    },
    /** Every field an import writes or overwrites (stored and resolved columns). */
    importedFields(): string[] {
      return inputs.filter(([, { input }]) => input.column !== false).map(([name]) => name);
    },
  };
}

export type RecordType = ReturnType<typeof defineRecord>;

/**
 * `values` (by property name of `table`'s columns) as the column list and the values of a raw `INSERT … SELECT`, each
 * value encoded and cast as its column takes it (a statement that inserts from a CTE cannot use Drizzle's builder).
 */
export function insertColumns(table: PgTable, values: Record<string, unknown>): { names: SQL; values: SQL } {
  const columns = Object.keys(values).map((name) => [getTableColumns(table)[name] as PgColumn, values[name]] as const);
  return {
    names: sql.join(
      columns.map(([column]) => sql.identifier(column.name)),
      sql`, `,
    ),
    values: sql.join(
      columns.map(([column, value]) => sql`${sql.param(value, column)}::${sql.raw(column.getSQLType())}`),
      sql`, `,
    ),
  };
}
