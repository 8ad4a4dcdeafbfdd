// The one permission lookup of every team-scoped resource: the row (in the caller's workspace) and the caller's
// role in its team, in one query, optionally locked; NOT_FOUND when it is missing or foreign; 403 when the
// caller's role is below what the write needs (contract §4, decided by requireTeamRole).
import { Column, getTableName, is, type SQL, type SQLWrapper, sql, type WithSubquery } from "drizzle-orm";
import type { PgSelect, PgTable } from "drizzle-orm/pg-core";
import { teamMembers } from "../../drizzle/schema";
import type { Actor, Principal } from "../auth/principal";
import { mayActInTeamSql, requireTeamRole, type TeamRole } from "../auth/roles";
import { notFound } from "../core/errors";
import type { Executor, WorkspaceScope } from "../db/client";
import { workspaceLabels } from "./labels/attach";
import { type LabelOwner, labelLinks } from "./labels/queries";

/** "update" before a read-modify-write; "key share" keeps the row from being deleted while rows that reference it are inserted. */
export type RowLock = "update" | "no key update" | "key share";

export interface Access {
  /** The team role the caller needs (workspace ADMIN/OWNER always pass); omitted: the caller's role is only read. */
  min?: TeamRole;
  /** What the caller tries, for the 403 message ("change this project"). */
  what?: string;
  lock?: RowLock;
}

/**
 * The role of `user` (the caller) in the team `teamId` (a column of the row being read), as a scalar subquery;
 * null when not a member. Drizzle leaves columns unqualified in a one-table query, so both sides are named here:
 * the members table as "caller", the row's column with its table.
 */
export function callerTeamRole(user: string | SQL<string>, teamId: SQLWrapper) {
  const outer = is(teamId, Column) ? sql`${sql.identifier(getTableName(teamId.table))}.${sql.identifier(teamId.name)}` : teamId;
  const caller = (column: string) => sql`${sql.identifier("caller")}.${sql.identifier(column)}`;
  return sql<TeamRole | null>`(select ${caller("role")} from ${teamMembers} as ${sql.identifier("caller")} where ${caller("team_id")} = ${outer} and ${caller("user_id")} = ${user})`;
}

/**
 * Runs `query` (already scoped to the caller's workspace, its selection carrying `callerRole`, e.g. from
 * callerTeamRole) for one row, locking `table`'s row when `access.lock` is set; NOT_FOUND(`name`) without a row;
 * then checks `access.min`.
 */
export async function rowForCaller<Q extends PgSelect>(
  principal: Principal,
  query: Q,
  target: { name: string /** the table whose row `access.lock` locks */; table?: PgTable },
  access: Access = {},
): Promise<Q["_"]["result"][number]> {
  const one = query.limit(1);
  const { lock } = access;
  const { table } = target;
  if (lock && !table) throw new Error(`rowForCaller: a lock on ${target.name} needs its table`);
  const [row] = (await (lock && table ? one.for(lock, { of: table }) : one)) as Q["_"]["result"];
  if (!row) throw notFound(target.name);
  if (access.min) requireTeamRole(principal, (row as { callerRole: TeamRole | null }).callerRole, access.min, access.what);
  return row;
}

/**
 * The write rule (requireTeamRole's, contract §4) as a condition of the statement that writes: the actor may act at
 * `min` in `teamId`'s team. Its role and user may be values (a loaded principal, via principalActor) or SQL read
 * from the credential (a statement that authenticates itself).
 */
export const actorMay = (actor: Actor, teamId: SQLWrapper, min: TeamRole) =>
  mayActInTeamSql(actor.role, callerTeamRole(actor.user, teamId), min);

/**
 * CTEs that make `labelIds` the exact label set of the row a write statement returned (in the CTE named
 * `written`), in that same statement: `valid` holds the workspace's labels among them (the write's condition
 * compares its count), the links left out go, the new ones come, and a CTE named like the link table shows the
 * new set to the statement's final SELECT (a statement does not see its own writes in the tables).
 */
export function replaceLabels(db: Executor, owner: LabelOwner, workspaceId: WorkspaceScope, labelIds: string[], written: string) {
  const { table, owner: ownerColumn } = labelLinks(owner);
  const row = sql.identifier(written);
  const valid = db.$with("valid", { id: sql<string>`id` }).as(workspaceLabels(workspaceId, labelIds));
  const links: WithSubquery[] = [
    db.$with("detached", { id: sql<string>`id` }).as(sql`
      delete from ${table} where ${ownerColumn} in (select id from ${row}) and ${table.labelId} not in (select id from valid)
      returning ${table.labelId} as id`),
    db.$with("attached", { id: sql<string>`id` }).as(sql`
      insert into ${table} select ${row}.id, valid.id from ${row} cross join valid on conflict do nothing
      returning ${table.labelId} as id`),
    db.$with(getTableName(table), { id: sql<string>`label_id` }).as(sql`
      select ${row}.id as ${sql.identifier(ownerColumn.name)}, valid.id as label_id from ${row} cross join valid`),
  ];
  return { valid, links, allValid: sql`(select count(*) from valid) = ${labelIds.length}` };
}

/** NOT_FOUND unless every id is a label of the workspace: why replaceLabels's condition refused a write. */
export async function assertWorkspaceLabels(db: Executor, workspaceId: string, labelIds: string[]): Promise<void> {
  const unique = [...new Set(labelIds)];
  const [found] = await db.select({ n: sql<number>`count(*)::int` }).from(sql`(${workspaceLabels(workspaceId, unique)}) valid`);
  if (found.n !== unique.length) throw notFound("Label");
}
