import type { AnyColumn, SQL } from "drizzle-orm";

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
  /** Default true. */
  sort?: boolean;
  /** Custom filter SQL (e.g. array membership). When present, used instead of the generic operator logic; receive op and parsed raw string values. */
  customFilter?: (op: FilterOp, values: string[]) => SQL;
  /** Value stored in the cursor for this key, read from the API item; default: item[name]. E.g. priority sorts by a CASE rank. */
  cursorValue?: (item: Record<string, unknown>) => unknown;
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
}
