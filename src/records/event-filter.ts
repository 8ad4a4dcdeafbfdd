// GET /events' `filter[...]` and a webhook's `filter` (docs/events.md, "Filters"): the list filter syntax with the
// record's field names and `changed`, read and checked by the lists' own parser. The database applies it
// (pm_event_filter, beside pm_webhook_takes), so the stream, a webhook's deliveries and its test answer alike.
import { type SQL, sql } from "drizzle-orm";
import { events } from "../../drizzle/schema";
import { badRequest } from "../core/errors";
import { TaskPriority } from "../resources/tasks/record";
import type { FilterOp, ListField } from "../store/list";
import { type CheckedTerm, type JsonFilter, parseFilterTerms } from "../store/list/filter";
import { filterSortQuery } from "../store/list/json";
import { type NameKind, named, namedId } from "./names";
import { StateCategory } from "./task-status";

const OPS: readonly FilterOp[] = ["eq", "neq", "in"];
/** The record's value as stored (its row's column), for the document: the database reads it so (pm_event_filter). */
const stored = (column: string) => sql`coalesce(${events.newImage}, ${events.oldImage}) ->> ${column}`;

/** Fields whose values name records, by kind: filter values may be ids or names (a team's prefix, a label's name, an email). */
const NAMED: Record<string, NameKind> = { teamId: "team", projectId: "project", labelIds: "label", assigneeId: "user", delegateId: "user" };
const namedField = (kind: NameKind, expr: ListField["expr"], nullable = false): ListField => ({
  expr,
  kind: "id",
  names: named(kind),
  nullable,
  ops: OPS,
});

/**
 * The fields a filter names. `changeable`: what `changed` takes, the fields an update's `changes` may name (the app's event rendering has them from its field maps: records/events.ts).
 */
export const eventFilterFields = (changeable: readonly string[]): Record<string, ListField> => ({
  teamId: namedField("team", events.teamId),
  projectId: namedField("project", stored("project_id"), true),
  labelIds: namedField("label", events.labelsAfter),
  assigneeId: namedField("user", stored("assignee_id"), true),
  delegateId: namedField("user", stored("delegate_id"), true),
  // A task's status by its state's key or name (any case), a project's or a milestone's by its value.
  status: { expr: stored("status"), kind: "string", ops: OPS, example: "IN_PROGRESS" },
  statusCategory: { expr: stored("status_category"), kind: "enum", values: StateCategory.options, ops: OPS },
  priority: { expr: stored("priority"), kind: "enum", values: TaskPriority.options, ops: OPS },
  changed: { expr: sql`null`, kind: "enum", values: changeable, ops: OPS },
});

/**
 * A filter's terms over `fields` (eventFilterFields), checked as a list's are (400 naming the field, the operator or the
 * value it does not take).
 */
export function eventFilterTerms(source: URLSearchParams | JsonFilter, fields: Record<string, ListField>): CheckedTerm[] {
  const terms = parseFilterTerms(source instanceof URLSearchParams ? source : filterSortQuery({ filter: source }), fields);
  const seen = new Set<string>();
  for (const { op, name } of terms) {
    // JSON keeps one value per operator and field: a second term would be lost, so it is refused (`in` takes several).
    if (seen.has(`${op} ${name}`))
      throw badRequest(`filter[${op}][${name}] is given twice; use filter[in][${name}] for any of several`, { field: name, operator: op });
    seen.add(`${op} ${name}`);
  }
  return terms;
}

/** A value as the database compares it: a name resolved to its record's id in the statement (one naming nothing stays as given, and matches nothing, as in a list). */
function resolved(term: CheckedTerm, raw: string | null, workspace: SQL | string): SQL {
  if (raw === null) return sql`'null'::jsonb`;
  // A status is stored upper case: a task's as its state's key, which a name (any case) also finds.
  if (term.name === "status")
    return sql`to_jsonb(coalesce((select s.key from public.workflow_states as s where s.workspace_id = ${workspace}
      and (s.key = upper(${raw}) or s.name_key = lower(${raw})) order by s.key = upper(${raw}) desc limit 1), upper(${raw})))`;
  const kind = NAMED[term.name];
  return kind ? sql`to_jsonb(coalesce(${namedId(kind, raw, workspace)}, ${raw})::text)` : sql`to_jsonb(${raw}::text)`;
}

/** The filter as the database applies it (jsonb), names resolved within `workspace`; null when it has no terms. */
export function eventFilterJson(terms: CheckedTerm[], workspace: SQL | string): SQL {
  if (terms.length === 0) return sql`null::jsonb`;
  const ops = [...new Set(terms.map((term) => term.op))];
  const value = (term: CheckedTerm) => {
    const values = term.parsed.map((parsed, i) => resolved(term, parsed === null ? null : term.values[i], workspace));
    return term.op === "in" ? sql`jsonb_build_array(${sql.join(values, sql`, `)})` : values[0];
  };
  const byOp = ops.map((op) => {
    const fields = terms.filter((term) => term.op === op).map((term) => sql`${term.name}::text, ${value(term)}`);
    return sql`${op}::text, jsonb_build_object(${sql.join(fields, sql`, `)})`;
  });
  return sql`jsonb_build_object(${sql.join(byOp, sql`, `)})`;
}

/**
 * Where a stored filter must name what exists (a webhook's): per term, true in SQL when each of its names names a record of
 * the workspace, with the 400 a list gives for a value it cannot take.
 */
export function namesExist(terms: CheckedTerm[], workspace: SQL | string): Array<{ holds: SQL; refusal: () => Error }> {
  return terms.flatMap((term) => {
    const kind = NAMED[term.name];
    const names = term.values.filter((raw, i) => term.parsed[i] !== null && kind && term.field.names && !term.field.names.isId(raw));
    if (!kind || names.length === 0) return [];
    const holds = sql.join(
      names.map((raw) => sql`${namedId(kind, raw, workspace)} is not null`),
      sql` and `,
    );
    return [
      {
        holds: sql`(${holds})`,
        refusal: () =>
          badRequest(`Invalid value for filter field '${term.name}': no ${kind} named ${names.map((n) => `'${n}'`).join(", ")} here`, {
            field: term.name,
            expected: term.field.names?.forms,
          }),
      },
    ];
  });
}
