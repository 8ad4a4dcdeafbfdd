import type { AnyColumn, SQL, SQLWrapper } from "drizzle-orm";
import type { Executor, WorkspaceScope } from "../../db/client";
import type { TeamScope } from "../../db/scope";

export type ValueKind = "string" | "enum" | "number" | "boolean" | "date" | "datetime" | "id";

export interface ListField {
  /** SQL expression the field filters/sorts on. */
  expr: AnyColumn | SQL;
  kind: ValueKind;
  /** Allowed values for kind "enum". */
  values?: readonly string[];
  nullable?: boolean;
  /** Default true. */
  filter?: boolean;
  /** The operators it takes, when fewer than its kind's (a field with a custom filter: eq, neq, in). */
  ops?: readonly FilterOp[];
  /** Default true. */
  sort?: boolean;
  /**
   * Custom filter SQL (e.g. array membership). When present, used instead of the generic operator logic; receives op, the
   * raw string values and the teams the caller reaches (a filter that reads other records must not reach past them).
   */
  customFilter?: (op: FilterOp, values: string[], teams: TeamScope) => SQL;
  /** Equality for eq, neq and in, when `expr = value` cannot use an index (e.g. containment in a jsonb column, which GIN serves). */
  equals?: (value: string | number | boolean) => SQL;
  /** A valid value, for the document (default: an id of `names`). */
  example?: string;
  /** The field's values name records (records/names.ts): each filter value must have one of their forms (400 otherwise). */
  names?: NamedValues;
  /** Value stored in the cursor for this key, read from the API item; default: item[name]. E.g. priority sorts by a CASE rank. */
  cursorValue?: (item: Record<string, unknown>) => unknown;
  /** The cursor's value as the bound a next page compares `expr` with, when `cursorValue` is not that value itself (a task's state's position). */
  cursorBound?: (value: unknown) => SQL;
}

/** Values that name records (docs/api.md, "Ids and names"), from the one name resolver (records/names.ts). */
export interface NamedValues {
  /** The forms a value takes, in words: "a team id (`team_…`) or its prefix (`ENG`, any case)". */
  forms: string;
  /** A valid value (an id), for the document. */
  example: string;
  valid(value: string): boolean;
  /** Whether a value is an id (compared as it is), not only a name. */
  isId(value: string): boolean;
  /** True for a row whose `column` holds a record one of `values` names. */
  any(column: SQLWrapper, values: string[]): SQL;
}

export type FilterOp = "eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "contains" | "startsWith" | "in";

/** Allowed `fields` tree (true = leaf or whole object). */
export interface FieldShape {
  [key: string]: true | FieldShape;
}

export type FieldSelection = { [key: string]: true | FieldSelection };

export interface ListSpec {
  /** E.g. "tasks"; bound into cursors so a cursor of another list is rejected. */
  resource: string;
  /** The id column; the API item carries it as item.id (string). */
  id: AnyColumn;
  /** Filterable/sortable fields by API name; must include createdAt. */
  fields: Record<string, ListField>;
  /** Everything `fields=` may select. */
  shape: FieldShape;
  /** Fields `<prefix>.<key>` that exist per caller, e.g. custom fields. */
  dynamic?: DynamicFields;
}

/**
 * Fields named `<prefix>.<key>` whose keys and types are known per caller only (e.g. the keys of a jsonb column of
 * custom values, typed by the workspace's definitions). `resolve` returns the fields of those of `keys` that exist
 * (one query; a key left out is an unknown field, 400); it throws NOT_FOUND when `scope` is no workspace (a bad
 * credential), so a gated list answers 401.
 */
export interface DynamicFields {
  prefix: string;
  resolve(db: Executor, scope: WorkspaceScope, keys: string[]): Promise<Record<string, ListField>>;
}
