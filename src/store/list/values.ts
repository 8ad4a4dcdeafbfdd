import { type SQL, sql } from "drizzle-orm";
import { isIsoDate } from "../../core/dates";
import { badRequest } from "../../core/errors";
import type { ListField, ValueKind } from "./types";

export type Scalar = string | number | boolean;

const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))$/;
const INT32_MAX = 2 ** 31 - 1;

export function isIsoDateTime(raw: string): boolean {
  const m = DATETIME.exec(raw);
  if (!m) return false;
  const [, y, mo, d, h, mi, s = "0", oh = "0", om = "0"] = m;
  return isIsoDate(`${y}-${mo}-${d}`) && +h < 24 && +mi < 60 && +s < 60 && +oh < 24 && +om < 60;
}

function expected(field: ListField): string {
  switch (field.kind) {
    case "number":
      return "a number";
    case "boolean":
      return "true or false";
    case "date":
      return "a date in YYYY-MM-DD format";
    case "datetime":
      return "an ISO 8601 date-time such as 2024-01-31T12:00:00.000Z";
    case "enum":
      return `one of ${(field.values ?? []).join(", ")}`;
    case "id":
      return "an id";
    case "string":
      return "text";
  }
}

/** Parses a filter value for `field`, or throws 400 naming the field and the expected type. */
export function parseValue(name: string, field: ListField, raw: string): Scalar {
  const fail = () =>
    badRequest(`Invalid value '${raw}' for filter field '${name}': expected ${expected(field)}`, {
      field: name,
      expected: field.kind === "enum" ? [...(field.values ?? [])] : field.kind,
    });
  switch (field.kind) {
    case "string":
      return raw;
    case "id":
      if (raw === "") throw fail();
      return raw;
    case "enum":
      if (!field.values?.includes(raw)) throw fail();
      return raw;
    case "number": {
      const n = Number(raw);
      if (!NUMBER.test(raw) || !Number.isFinite(n)) throw fail();
      return n;
    }
    case "boolean":
      if (raw !== "true" && raw !== "false") throw fail();
      return raw === "true";
    case "date":
      if (!isIsoDate(raw)) throw fail();
      return raw;
    case "datetime":
      if (!isIsoDateTime(raw)) throw fail();
      return raw;
  }
}

/**
 * Binds a value for comparison with an expression of `kind`. Dates are cast so they compare as dates; other
 * values stay untyped so Postgres infers the column's own type (text, enum, integer) and can use its index.
 */
export function bindValue(kind: ValueKind, value: unknown): SQL {
  switch (kind) {
    case "date":
      return sql`${value}::date`;
    case "datetime":
      return sql`${value}::timestamptz`;
    case "number":
      // An untyped non-integer (or out-of-int4) parameter against an integer column is a Postgres error.
      return typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= INT32_MAX ? sql`${value}` : sql`${value}::numeric`;
    default:
      return sql`${value}`;
  }
}
