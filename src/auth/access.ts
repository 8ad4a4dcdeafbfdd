// The one permission lookup of every team-scoped resource: the row (in the caller's workspace) and the caller's
// role in its team, in one query, optionally locked; NOT_FOUND when it is missing or foreign; 403 when the
// caller's role is below what the write needs (contract §4, decided by requireTeamRole).
import { Column, getTableName, is, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgSelect, PgTable } from "drizzle-orm/pg-core";
import { teamMembers } from "../../drizzle/schema";
import { notFound } from "../core/errors";
import type { WorkspaceScope } from "../db/client";
import { allWorkspaceLabels } from "../records/labels";
import type { Guard } from "./guarded";
import type { Actor, Principal, WorkspaceRole } from "./principal";
import {
  grantRules,
  mayActInTeamSql,
  requireTeamRole,
  type TeamRole,
  teamRoleRefusal,
  workspaceRoleRefusal,
  workspaceRoleSql,
} from "./roles";

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

/** A rule that also holds whenever `exempt` does (e.g. a member leaving a team needs no role to do so). */
const exempting = (holds: SQL, exempt?: SQL) => (exempt ? sql`(${exempt} or ${holds})` : holds);

/** The team write rule (actorMay) as a guard of a write's target whose team is `teamId`, unless `exempt` holds. */
export const teamRoleGuard = (actor: Actor, teamId: SQLWrapper, min: TeamRole, what: string, exempt?: SQL): Guard => ({
  holds: exempting(actorMay(actor, teamId, min), exempt),
  refusal: () => teamRoleRefusal(min, what),
});

/** requireMayGrant's rule (team MEMBER, and no role above one's own) as the guards of a write that adds to `teamId`'s team. */
export const mayGrantGuards = (actor: Actor, teamId: SQLWrapper, role: TeamRole): Guard[] =>
  grantRules(role).map((rule) => teamRoleGuard(actor, teamId, rule.min, rule.what));

/** requireWorkspaceRole's rule as a guard (the actor's role in its workspace is `min` or higher), unless `exempt` holds. */
export const workspaceRoleGuard = (actor: Actor, min: WorkspaceRole, what: string, exempt?: SQL): Guard => ({
  holds: exempting(workspaceRoleSql(actor.role, min), exempt),
  refusal: () => workspaceRoleRefusal(min, what),
});

/** Every one of `labelIds` a label of the workspace (NOT_FOUND otherwise), as a guard of a write that attaches them. */
export const labelsGuard = (workspace: WorkspaceScope, labelIds: string[]): Guard => ({
  holds: allWorkspaceLabels(workspace, labelIds),
  refusal: () => notFound("Label"),
});
