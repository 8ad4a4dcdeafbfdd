import { type SQL, sql } from "drizzle-orm";
import { badRequest } from "../../core/errors";
import type { TeamScope } from "../../db/scope";
import type { FilterOp, ListField, NamedValues } from "./types";
import { bindValue, parseValue, type Scalar } from "./values";

export const FILTER_OPS: readonly FilterOp[] = ["eq", "neq", "gt", "gte", "lt", "lte", "contains", "startsWith", "in"];
const COMPARISON: Partial<Record<FilterOp, string>> = { gt: ">", gte: ">=", lt: "<", lte: "<=" };
const TEXT_OPS: readonly FilterOp[] = ["contains", "startsWith"];
/** Operators with which the value `null` matches a null field. */
export const NULL_OPS: readonly FilterOp[] = ["eq", "neq", "in"];
/** A field with a custom filter (a task reference, label membership) answers only these. */
const CUSTOM_FILTER_OPS: readonly FilterOp[] = ["eq", "neq", "in"];
const FILTER_KEY = /^filter\[([^[\]]*)\]\[([^[\]]*)\]$/;
export const MAX_IN_VALUES = 250;
/** Bounds on a list's filters: a query may AND this many terms, each value this long (a title is at most 500). */
export const MAX_FILTERS = 20;
export const MAX_FILTER_VALUE_LENGTH = 2000;

interface FilterTerm {
  op: FilterOp;
  name: string;
  values: string[];
}

/** A filter term the field takes: its operator, its raw values and each parsed (null: the word `null` on a nullable field). */
export interface CheckedTerm extends FilterTerm {
  field: ListField;
  parsed: (Scalar | null)[];
}

/** Reads every `filter[op][field]` parameter into SQL conditions (to be ANDed). */
export function parseFilters(query: URLSearchParams, fields: Record<string, ListField>, teams: TeamScope = null): SQL[] {
  return parseFilterTerms(query, fields).map((term) => termToSql(term, teams));
}

/**
 * Reads and checks every `filter[op][field]` parameter (400 for an unknown field or operator, a value of the wrong
 * kind or form), for a reader that applies them itself (the event stream's and webhooks' filters: docs/events.md).
 */
export function parseFilterTerms(query: URLSearchParams, fields: Record<string, ListField>): CheckedTerm[] {
  return collectTerms(query, fields).map((term) => checkTerm(term, fields[term.name]));
}

/** A filter as JSON: `{<op>: {<field>: value | [values]}}`, e.g. `{"eq": {"teamId": "ENG"}, "in": {"status": ["TODO", "DONE"]}}`. */
export type JsonFilter = Record<string, Record<string, unknown>>;

function collectTerms(query: URLSearchParams, fields: Record<string, ListField>): FilterTerm[] {
  const terms: FilterTerm[] = [];
  const inTerms = new Map<string, FilterTerm>();
  for (const [key, value] of query) {
    if (key !== "filter" && !key.startsWith("filter[")) continue;
    const match = FILTER_KEY.exec(key);
    if (!match) {
      throw badRequest(`Malformed filter parameter '${key}': expected filter[<op>][<field>]`, { allowed: FILTER_OPS });
    }
    const [, op, name] = match;
    if (value.length > MAX_FILTER_VALUE_LENGTH) {
      throw badRequest(`Filter value for '${name}' is longer than ${MAX_FILTER_VALUE_LENGTH} characters`, {
        field: name,
        maxLength: MAX_FILTER_VALUE_LENGTH,
      });
    }
    if (!(FILTER_OPS as readonly string[]).includes(op)) {
      throw badRequest(`Unknown filter operator '${op}'`, { operator: op, allowed: FILTER_OPS });
    }
    const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (!field || field.filter === false) {
      const allowed = filterableNames(fields);
      // A body's list field (`labelIds`) is filtered by its one-value name (`labelId`, with `in` for any of several).
      const single = name.endsWith("s") ? name.slice(0, -1) : undefined;
      const use = single && allowed.includes(single) ? `: filter on '${single}' (one value; filter[in][${single}] for any of several)` : "";
      throw badRequest(`Unknown filter field '${name}'${use}`, { field: name, allowed });
    }
    if (op === "in") {
      const existing = inTerms.get(name);
      if (existing) {
        existing.values.push(value);
        continue;
      }
      const term: FilterTerm = { op, name, values: [value] };
      inTerms.set(name, term);
      terms.push(term);
    } else {
      terms.push({ op: op as FilterOp, name, values: [value] });
    }
    if (terms.length > MAX_FILTERS) throw badRequest(`Too many filters (at most ${MAX_FILTERS})`, { maxFilters: MAX_FILTERS });
  }
  return terms;
}

export function filterableNames(fields: Record<string, ListField>): string[] {
  return Object.keys(fields).filter((name) => fields[name].filter !== false);
}

/** The operators `field` answers: what termToSql lets through (the OpenAPI document lists them). */
export function filterOpsFor(field: ListField): readonly FilterOp[] {
  if (field.ops) return field.ops;
  if (field.customFilter) return CUSTOM_FILTER_OPS;
  return field.kind === "string" ? FILTER_OPS : FILTER_OPS.filter((op) => !TEXT_OPS.includes(op));
}

function checkTerm(term: FilterTerm, field: ListField): CheckedTerm {
  const { op, name, values } = term;
  if (TEXT_OPS.includes(op) && field.kind !== "string") {
    throw badRequest(`Operator '${op}' only applies to text fields; '${name}' is a ${field.kind} field`, {
      field: name,
      operator: op,
      allowed: FILTER_OPS.filter((o) => !TEXT_OPS.includes(o)),
    });
  }
  if (values.length > MAX_IN_VALUES) {
    throw badRequest(`Too many values for filter field '${name}' (at most ${MAX_IN_VALUES})`, { field: name });
  }
  const isNull = (raw: string) => field.nullable === true && NULL_OPS.includes(op) && raw === "null";
  const parsed = values.map((raw) => (isNull(raw) ? null : parseValue(name, field, raw)));
  if (field.names)
    checkNames(
      name,
      field.names,
      op,
      values.filter((raw) => !isNull(raw)),
    );
  const allowed = filterOpsFor(field);
  if (!allowed.includes(op)) throw badRequest(`Operator '${op}' does not apply to '${name}'`, { field: name, operator: op, allowed });
  return { ...term, field, parsed };
}

function termToSql({ op, values, field, parsed }: CheckedTerm, teams: TeamScope): SQL {
  if (field.customFilter) return field.customFilter(op, values, teams);

  if (field.names && NULL_OPS.includes(op)) return namedTerm(field, field.names, op, parsed);
  const { expr, kind } = field;
  const value = parsed[0];
  switch (op) {
    case "eq":
      return value === null ? sql`${expr} is null` : equality(field, value);
    case "neq":
      if (value === null) return sql`${expr} is not null`;
      // The field's own test is false on a row without a value, so its negation keeps that row, as below.
      if (field.equals) return sql`not (${field.equals(value)})`;
      // A null row is "not equal" to a value too; plain <> would drop it.
      return field.nullable ? sql`${expr} is distinct from ${bindValue(kind, value)}` : sql`${expr} <> ${bindValue(kind, value)}`;
    case "contains":
      return sql`${expr} ilike ${`%${escapeLike(String(value))}%`}`;
    case "startsWith":
      return sql`${expr} ilike ${`${escapeLike(String(value))}%`}`;
    case "in":
      return inSql(field, parsed);
    default:
      return sql`${expr} ${sql.raw(COMPARISON[op]!)} ${bindValue(kind, value)}`;
  }
}

/** A value of a field that names records must have one of the forms; a comparison (`gt`, …) compares ids only. */
function checkNames(name: string, names: NamedValues, op: FilterOp, values: string[]) {
  for (const raw of values) {
    if (!names.valid(raw)) {
      throw badRequest(`Invalid value '${raw}' for filter field '${name}': expected ${names.forms}`, {
        field: name,
        expected: names.forms,
      });
    }
    if (!NULL_OPS.includes(op) && !names.isId(raw)) {
      throw badRequest(`Operator '${op}' compares ids only; '${raw}' is not an id`, { field: name, operator: op });
    }
  }
}

/** eq, neq and in on a field whose values name records: each value resolved by the name resolver, in the statement. */
function namedTerm({ expr, nullable }: ListField, names: NamedValues, op: FilterOp, parsed: (Scalar | null)[]): SQL {
  const present = [...new Set(parsed.filter((v) => v !== null).map(String))];
  if (op === "neq") {
    if (present.length === 0) return sql`${expr} is not null`;
    // A row without a value is "not equal" too.
    return nullable ? sql`(${expr} is null or not (${names.any(expr, present)}))` : sql`not (${names.any(expr, present)})`;
  }
  const isNull = sql`${expr} is null`;
  if (present.length === 0) return isNull;
  return parsed.includes(null) ? sql`(${names.any(expr, present)} or ${isNull})` : names.any(expr, present);
}

const equality = (field: ListField, value: Scalar): SQL =>
  field.equals ? field.equals(value) : sql`${field.expr} = ${bindValue(field.kind, value)}`;

function inSql(field: ListField, parsed: (Scalar | null)[]): SQL {
  const { expr, kind } = field;
  const present = [...new Set(parsed.filter((v) => v !== null))];
  const hasNull = parsed.includes(null);
  if (present.length === 0) return sql`${expr} is null`;
  const list = field.equals
    ? sql`(${sql.join(
        present.map((v) => equality(field, v)),
        sql` or `,
      )})`
    : sql`${expr} in (${sql.join(
        present.map((v) => bindValue(kind, v)),
        sql`, `,
      )})`;
  return hasNull ? sql`(${list} or ${expr} is null)` : list;
}

/** Escapes LIKE wildcards with backslash, Postgres's default LIKE escape character. */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
