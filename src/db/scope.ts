// What a statement reads of the caller's reach: its workspace and, for a credential bound to teams, those teams.
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type Readable, readsOf, SCOPES } from "../core/scopes";
import type { WorkspaceScope } from "./client";

/** Every scope, as the `text[]` a stored null (every scope) reads as. */
export const EVERY_SCOPE = sql.raw(`array[${SCOPES.map((s) => `'${s}'`).join(", ")}]::text[]`);

/** Each scope with a resource it reads, as a VALUES list (constants). */
const SCOPE_READS = sql.raw(
  `(values ${SCOPES.flatMap((scope) => readsOf([scope]).map((resource) => `('${scope}', '${resource}')`)).join(", ")}) as scope_reads(scope, resource)`,
);

/** The resources a `text[]` of scopes reads (docs/api.md, least privilege), sorted, as a JSON array: `reads` of GET /me and GET /api-keys. */
export const readsJson = (scopes: SQL): SQL<Readable[]> =>
  sql<
    Readable[]
  >`(select coalesce(json_agg(distinct resource order by resource), '[]'::json) from ${SCOPE_READS} where scope = any((${scopes})::text[]))`;

/** The teams a credential may reach: null (every team), a list, or SQL that reads it (null meaning every team). */
export type TeamScope = string[] | null | SQL<string[] | null>;

/** The caller's reach as a statement sees it. */
export interface Reach {
  workspace: WorkspaceScope;
  teams: TeamScope;
}

/** The teams as a `text[]` value of a statement (null: every team). */
export const teamsValue = (teams: TeamScope): SQL<string[] | null> =>
  teams === null || Array.isArray(teams) ? sql<string[] | null>`${sql.param(teams)}::text[]` : teams;

/** True for a record of team `team` (a column or expression) the reach includes; no condition at all for every team. */
export function inTeams(teams: TeamScope, team: SQLWrapper): SQL {
  if (teams === null) return sql`true`;
  if (Array.isArray(teams)) return sql`${team} = any(${sql.param(teams)}::text[])`;
  // Cast, so that `any` reads the subquery's one array rather than comparing with each row of a set.
  return sql`(${teams} is null or ${team} = any((${teams})::text[]))`;
}
