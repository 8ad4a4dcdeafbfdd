// The one name resolver (docs/api.md, "Ids and names"): wherever a request names a record (a path, a body field, a filter value, a batch
// item, an MCP argument), it may give the record's id or its human name: a task `ENG-12`, a project `ENG-P3`, a cycle `ENG-C3`, a team its
// prefix `ENG`, a label its name (any case), a user their email. Names are resolved in SQL, inside the statement that
// reads or writes (no extra round trip). A prefix names a team by the prefix it has, or by one it had (a team renamed
// from `ENG` to `OPS`: `ENG`, `ENG-12`, `ENG-P3` still name its records until another team takes `ENG`). A value of neither form is refused (400 in a query, 422 in a body) by whoever
// asks `formOf`; a name of the right form that names nothing is an unknown id.
import { z } from "@hono/zod-openapi";
import { and, eq, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias, type PgTable } from "drizzle-orm/pg-core";
import { cycles, labels, projects, tasks, teamFormerPrefixes, teams, users } from "../../drizzle/schema";
import type { IdPrefix } from "../ids";
import type { NamedValues } from "../store/list";
import { BodyId, MAX_ID_LENGTH } from "../store/schemas";

/** The kinds of record with a human name besides their id. */
export type HumanKind = "task" | "project" | "cycle" | "team" | "label" | "user";
/** A kind of record named by its id only, declared with its record: `idKind("a milestone id", "mile")`. */
export interface IdKind {
  words: string;
  prefix: IdPrefix;
}
export const idKind = (words: string, prefix: IdPrefix): IdKind => ({ words, prefix });
/** The kinds of record a request may name; those without a human name take their id only. */
export type NameKind = HumanKind | IdKind;

/** An id: `<prefix>_<letters or digits>` (TypeID's shape; of another kind's prefix it is an unknown id, never a name). */
const ID = /^[a-z]{1,10}_[0-9a-z]{1,64}$/;
/** `<PREFIX>-<tag><n>`: a record numbered per team, its tag in any case (a task none, a project `P`). */
const teamRef = (tag: string) => new RegExp(`^([A-Za-z][A-Za-z0-9]{1,9})-${tag}(\\d{1,9})$`, "i");
const TEAM_PREFIX = /^[A-Za-z][A-Za-z0-9]{1,9}$/;
/** Emails as signup takes them (one `@`, a dot in the domain, no spaces), compared in lower case as they are stored. */
const EMAIL = /^[^\s@]{1,200}@[^\s@]+\.[^\s@]+$/;
const LABEL_NAME_MAX = 100;

/**
 * The one case folding of names compared in any case (a label's, docs/api.md "Ids and names"): the name as given
 * (trimmed, NFC), mapped to upper case and back by Unicode's full case mappings, so `ΟΔΟΣ`, `οδος` and `οδοσ` fold alike,
 * and so do `İSTANBUL` and `i̇stanbul`. Computed here, never by PostgreSQL's lower(), which follows the database's locale
 * (under `C` it folds ASCII only): the unique index holds the key this computes, and every lookup compares with it.
 */
export const foldName = (name: string) => name.trim().normalize("NFC").toUpperCase().toLowerCase().normalize("NFC");

export interface Ref {
  prefix: string;
  number: number;
}

const parseRef = (form: RegExp, value: string): Ref | null => {
  const m = form.exec(value);
  return m ? { prefix: m[1].toUpperCase(), number: Number(m[2]) } : null;
};
const TASK_REF = teamRef("");
const PROJECT_REF = teamRef("P");
const CYCLE_REF = teamRef("C");
export const parseTaskRef = (value: string) => parseRef(TASK_REF, value);
export const parseProjectRef = (value: string) => parseRef(PROJECT_REF, value);
export const parseCycleRef = (value: string) => parseRef(CYCLE_REF, value);

// Aliases for the sets a filter or a body resolves names into: the statement around them may read the same tables.
const nLabel = alias(labels, "named_label");
const nUser = alias(users, "named_user");
/** An alias in a FROM (interpolating the alias itself names it only). */
const fromAs = (table: PgTable, name: string) => sql`${table} as ${sql.identifier(name)}`;

/** The workspace a name is looked up in: an id, SQL that reads it, or null (the statement's own condition keeps others out). */
type Scope = SQLWrapper | string | null;
/** The workspace of the statement that matches one name (the caller's, as an id or SQL). */
export type Workspace = SQLWrapper | string;

/** A column of the `named_team` rows (teamNames). */
const namedTeam = (column: "workspace_id" | "prefix" | "team_id") => sql`${sql.identifier("named_team")}.${sql.identifier(column)}`;
/**
 * Every prefix that names a team, as rows `named_team (workspace_id, prefix, team_id)`: the teams' own, then their former
 * ones. A prefix is in team_former_prefixes only while no team has it (the database's triggers on teams keep it so:
 * migrations/functions/pm_team_prefix.sql), so no prefix names two teams, and one looked up by (workspace, prefix) is a
 * probe of each table's unique index.
 */
const teamNames = sql`(select ${teams.workspaceId} as workspace_id, ${teams.prefix} as prefix, ${teams.id} as team_id from ${teams}
  union all select ${teamFormerPrefixes.workspaceId}, ${teamFormerPrefixes.prefix}, ${teamFormerPrefixes.teamId} from ${teamFormerPrefixes}) as named_team`;
/**
 * The team `prefix` names in `workspace`, as a scalar subquery: the team holding it now, else the one that held it last.
 * The former prefixes are read only when no team holds it (the first branch's row ends the scan).
 */
const teamOfPrefix = (prefix: string, workspace: Workspace) =>
  sql`(select ${teams.id} from ${teams} where ${teams.workspaceId} = ${workspace} and ${teams.prefix} = ${prefix}
    union all select ${teamFormerPrefixes.teamId} from ${teamFormerPrefixes}
      where ${teamFormerPrefixes.workspaceId} = ${workspace} and ${teamFormerPrefixes.prefix} = ${prefix} limit 1)`;

interface HumanName {
  /** Whether `value` has the form of this kind's name. */
  test(value: string): boolean;
  /** The name's condition on the kind's own table, in a statement of `workspace`. */
  match(value: string, workspace: Workspace): SQL;
  /** The FROM of the named records (aliased tables), their id, and the workspace column (none: users, across workspaces). */
  from: SQL;
  id: SQLWrapper;
  workspace: SQLWrapper | null;
  /** The condition on `from` for the records `values` name. */
  where(values: string[]): SQL;
  /** A name as its record's `keyOf` reads (`eng-1` and `ENG-01` are `ENG-1`). */
  key(value: string): string;
  /** The record's name over `from`, as `key` writes it. */
  keyOf: SQL;
}

/**
 * The rows whose (prefix, number) is one of `refs`: a semi-join on the pairs as two array parameters, which PostgreSQL
 * plans once however many there are (an `or` of one condition per reference took it 15–30 ms to plan for 20).
 */
const refsIn = (prefix: SQLWrapper, number: SQLWrapper, refs: Ref[]) =>
  sql`(${prefix}, ${number}) in (select p, n from unnest(${sql.param(refs.map((r) => r.prefix))}::text[], ${sql.param(
    refs.map((r) => r.number),
  )}::int[]) as r(p, n))`;
const within = (column: SQLWrapper | null, workspace: Scope) =>
  workspace === null || column === null ? sql`` : sql` and ${column} = ${workspace}`;
const list = (values: unknown[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/** The numbered records' tables: their id, workspace, team and number (per team, from 1). */
interface NumberedTable {
  id: SQLWrapper;
  workspaceId: SQLWrapper;
  teamId: SQLWrapper;
  number: SQLWrapper;
}

/**
 * The name of a record numbered per team, `<PREFIX>-<tag><n>` (a task `ENG-12`, a project `ENG-P3`, a cycle `ENG-C3`): the team the prefix
 * names (now or formerly: teamNames) and the number. `table` is the kind's own table, `named` its alias in a name set.
 */
function teamNumbered(words: string, tag: string, table: PgTable & NumberedTable, named: NumberedTable, alias: string) {
  const form = teamRef(tag);
  const parse = (v: string) => parseRef(form, v)!;
  return {
    words,
    test: (v: string) => form.test(v),
    match: (v: string, workspace: Workspace) =>
      and(eq(table.teamId, teamOfPrefix(parse(v).prefix, workspace)), eq(table.number, parse(v).number))!,
    from: sql`${fromAs(table, alias)} join ${teamNames} on ${namedTeam("team_id")} = ${named.teamId}`,
    id: named.id,
    // The team's workspace (the record's): each branch of teamNames is then a probe of its (workspace, prefix) index.
    workspace: namedTeam("workspace_id"),
    where: (values: string[]) => refsIn(namedTeam("prefix"), named.number, values.map(parse)),
    // The prefix as named (a former one finds its record by it too).
    key: (v: string) => `${parse(v).prefix}-${tag}${parse(v).number}`,
    keyOf: sql`${namedTeam("prefix")} || ${`-${tag}`} || ${named.number}`,
  } satisfies HumanName & { words: string };
}

const NAMES: Record<HumanKind, HumanName & { words: string }> = {
  task: teamNumbered("reference (`ENG-12`)", "", tasks, alias(tasks, "named_task"), "named_task"),
  project: teamNumbered("reference (`ENG-P3`)", "P", projects, alias(projects, "named_project"), "named_project"),
  cycle: teamNumbered("reference (`ENG-C3`)", "C", cycles, alias(cycles, "named_cycle"), "named_cycle"),
  team: {
    words: "prefix (`ENG`, any case)",
    test: (v) => TEAM_PREFIX.test(v),
    match: (v, workspace) => eq(teams.id, teamOfPrefix(v.toUpperCase(), workspace)),
    from: teamNames,
    id: namedTeam("team_id"),
    workspace: namedTeam("workspace_id"),
    where: (values) => sql`${namedTeam("prefix")} in (${list(values.map((v) => v.toUpperCase()))})`,
    key: (v) => v.toUpperCase(),
    keyOf: namedTeam("prefix"),
  },
  label: {
    words: "name (any case)",
    test: (v) => v.trim().length > 0 && v.length <= LABEL_NAME_MAX,
    match: (v) => eq(labels.nameKey, foldName(v)),
    from: fromAs(labels, "named_label"),
    id: nLabel.id,
    workspace: nLabel.workspaceId,
    where: (values) => sql`${nLabel.nameKey} in (${list(values.map(foldName))})`,
    key: foldName,
    keyOf: sql`${nLabel.nameKey}`,
  },
  user: {
    words: "email",
    test: (v) => EMAIL.test(v),
    match: (v) => eq(users.email, v.toLowerCase()),
    // Emails are unique across workspaces: the workspace is the statement's condition on membership.
    from: fromAs(users, "named_user"),
    id: nUser.id,
    workspace: null,
    where: (values) => sql`${nUser.email} in (${list(values.map((v) => v.toLowerCase()))})`,
    key: (v) => v.toLowerCase(),
    keyOf: sql`${nUser.email}`,
  },
};

/** `select <id> from …` of the records `values` (names of `name`'s kind) name, within `workspace` when given. */
const nameSet = (name: HumanName, values: string[], workspace: Scope, columns: SQL = sql`${name.id}`) =>
  sql`select ${columns} from ${name.from} where ${name.where(values)}${within(name.workspace, workspace)}`;

/** The ids of the kinds with a human name, in words and by their prefix (src/ids.ts). */
const HUMAN_IDS: Record<HumanKind, IdKind> = {
  task: idKind("a task id", "task"),
  project: idKind("a project id", "proj"),
  cycle: idKind("a cycle id", "cyc"),
  team: idKind("a team id", "team"),
  label: idKind("a label id", "label"),
  user: idKind("a user id", "user"),
};
const idOf = (kind: NameKind): IdKind => (typeof kind === "string" ? HUMAN_IDS[kind] : kind);
const humanName = (kind: NameKind): (HumanName & { words: string }) | undefined => (typeof kind === "string" ? NAMES[kind] : undefined);
const idWords = (kind: NameKind) => `${idOf(kind).words} (\`${idOf(kind).prefix}_…\`)`;

/** What a value naming a `kind` may be, in words (error messages, the OpenAPI document). */
export function formsOf(kind: NameKind): string {
  const name = humanName(kind);
  return name ? `${idWords(kind)} or its ${name.words}` : idWords(kind);
}

/** Which form `value` has for `kind`: an id, a name (a value of both, e.g. a label named `a_b`, is tried as both), or none. */
export function formOf(kind: NameKind, value: string): "id" | "name" | "both" | null {
  const isId = ID.test(value);
  const isName = humanName(kind)?.test(value) === true;
  return isId && isName ? "both" : isId ? "id" : isName ? "name" : null;
}

/**
 * The condition on the kind's own table for the record `value` names in `workspace`, the statement's (paths: anything
 * not a name is tried as an id).
 */
export function nameMatch(kind: NameKind, idColumn: SQLWrapper, value: string, workspace: Workspace): SQL {
  const form = formOf(kind, value);
  const name = humanName(kind);
  if (!name || form === "id" || form === null) return eq(idColumn, value);
  return form === "both" ? or(eq(idColumn, value), name.match(value, workspace))! : name.match(value, workspace);
}

/**
 * True for a row whose `column` holds a record one of `values` names (ids compared as they are; names through the
 * kind's set, within `workspace` when given: the statement's own workspace condition keeps other workspaces out
 * otherwise). The values must have a form of the kind (`formOf`).
 */
export function namesAny(kind: NameKind, column: SQLWrapper, values: string[], workspace: Scope = null): SQL {
  const ids = values.filter((v) => formOf(kind, v) !== "name");
  const names = values.filter((v) => formOf(kind, v) === "name" || formOf(kind, v) === "both");
  const terms: SQL[] = [];
  if (ids.length === 1) terms.push(sql`${column} = ${ids[0]}`);
  else if (ids.length > 1) terms.push(sql`${column} in (${list(ids)})`);
  if (names.length) terms.push(sql`${column} in (${nameSet(humanName(kind)!, names, workspace)})`);
  return terms.length === 1 ? terms[0] : sql`(${or(...terms)})`;
}

/**
 * How a path names a record of `kind` (defineRecord's `match`, `keyedIds` and `pathKeys`): the condition on its own
 * table for one value; and for many at once (a batch's reads of one type, one `id = any(…)`), the records they name as
 * rows `(id, key)` in one lookup, each value finding its row by the keys `pathKeys` gives it.
 */
export const pathNames = (kind: NameKind, idColumn: SQLWrapper) => ({
  match: (value: string, workspace: Workspace) => nameMatch(kind, idColumn, value, workspace),
  keyedIds: (values: string[], workspace: SQLWrapper | string) => keyedIds(kind, values, workspace),
  pathKeys: (value: string) => pathKeys(kind, value),
});

/** As `nameMatch` reads a path's value: anything not a name is tried as an id. */
const triedAsId = (kind: NameKind, value: string) => formOf(kind, value) !== "name";
const triedAsName = (kind: NameKind, value: string) => formOf(kind, value) === "name" || formOf(kind, value) === "both";

function keyedIds(kind: NameKind, values: string[], workspace: Scope): SQL {
  const ids = values.filter((v) => triedAsId(kind, v));
  const names = values.filter((v) => triedAsName(kind, v));
  const name = humanName(kind);
  const parts: SQL[] = [];
  // One array parameter, not one each: a bulk write's thousand ids cost a thousand of them to build and to send.
  if (ids.length) parts.push(sql`select v as id, v as key from unnest(${sql.param(ids)}::text[]) as v`);
  if (names.length && name) parts.push(nameSet(name, names, workspace, sql`${name.id} as id, ${name.keyOf} as key`));
  return parts.length ? sql.join(parts, sql` union all `) : sql`select null::text as id, null::text as key where false`;
}

/** The keys a path's value finds its record by among `keyedIds`' rows: its name's first (as namedId prefers it), then as an id. */
function pathKeys(kind: NameKind, value: string): string[] {
  const name = humanName(kind);
  return [...(name && triedAsName(kind, value) ? [name.key(value)] : []), ...(triedAsId(kind, value) ? [value] : [])];
}

/** The one id `value` names, as a scalar subquery (null when it names nothing), for a statement that stores it. */
export function namedId(kind: NameKind, value: string, workspace: Scope): SQL<string | null> {
  const name = humanName(kind);
  const form = formOf(kind, value);
  if (!name || form === "id" || form === null) return sql<string>`${value}`;
  const set = nameSet(name, [value], workspace);
  return form === "both" ? sql`coalesce((${set} limit 1), ${value})` : sql`(${set} limit 1)`;
}

/**
 * The ids a body's list of `values` names (ids or names of `kind`s, each of a form `formOf` takes), as one text[] in
 * the statement that stores them: duplicates once, in their first order, and null in place of a name naming nothing
 * in `workspace`. An id is passed as it is: the caller's statement checks the ids are records it may name (e.g. that
 * every id is a team of the workspace: `count(…) = cardinality(…)`, which a null fails).
 */
export function namedIds(kind: NameKind, values: string[], workspace: Scope): SQL<(string | null)[]> {
  if (values.length === 0) return sql`array[]::text[]`;
  const each = sql.join(
    values.map((v) => sql`${namedId(kind, v, workspace)}::text`),
    sql`, `,
  );
  return sql`array(select u.id from unnest(array[${each}]) with ordinality as u(id, n) group by u.id order by min(u.n))`;
}

/**
 * A body field naming a `kind`: 422 at the field for a value of neither form; the OpenAPI description says the forms.
 * `also` adds what the field must be beyond that (e.g. "of the task's team").
 */
export function NameOf(kind: NameKind, also?: string) {
  const description = `${formsOf(kind)[0].toUpperCase()}${formsOf(kind).slice(1)}${also ? `; ${also}` : ""}`;
  // describe: MCP's JSON Schemas (z.toJSONSchema) read it; openapi: the OpenAPI document.
  // A value over the length bound is refused for its length alone.
  return BodyId.refine((v) => v.length > MAX_ID_LENGTH || formOf(kind, v) !== null, `Must be ${formsOf(kind)}`)
    .openapi({ description })
    .describe(description);
}

/** A list of values naming `kind`s, each checked as NameOf checks one. */
export const NamesOf = (kind: NameKind, max: number) => z.array(NameOf(kind)).max(max);

/** A task by id or reference in `workspace`; the query adds the workspace condition. */
export const taskMatch = (idOrRef: string, workspace: Workspace) => nameMatch("task", tasks.id, idOrRef, workspace);
/** A project by id or reference in `workspace`; the query adds the workspace condition. */
export const projectMatch = (idOrRef: string, workspace: Workspace) => nameMatch("project", projects.id, idOrRef, workspace);

/** A list field's values naming `kind`s (`list: { names: named("team") }`): the filter checks and resolves them. */
export const named = (kind: NameKind): NamedValues => ({
  forms: formsOf(kind),
  example: `${idOf(kind).prefix}_01jz8x4q0be0sv3c5kq9v1y2ab`,
  valid: (value) => formOf(kind, value) !== null,
  isId: (value) => formOf(kind, value) !== "name",
  any: (column, values) => namesAny(kind, column, values),
});
