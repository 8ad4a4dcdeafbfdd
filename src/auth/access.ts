// The rules of a write as guards of its statement (store/guarded.ts): the caller's role in a record's team, the team write
// rule (docs/api.md, permissions), grants, workspace roles, the labels a body names.
import { and, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { tasks, teamMembers, teams } from "../../drizzle/schema";
import { notFound } from "../core/errors";
import type { Scope } from "../core/scopes";
import type { WorkspaceScope } from "../db/client";
import { teamsValue } from "../db/scope";
import { taskMatch } from "../records/names";
import { allWorkspaceLabels } from "../resources/labels/record";
import { qualified } from "../store/field-map";
import type { Guard, Target } from "../store/guarded";
import type { Actor } from "../store/statement-caller";
import { missingScope } from "./caller";
import { type Credential, credentialScopes } from "./credential";
import type { WorkspaceRole } from "./principal";
import {
  grantRules,
  mayActInTeamSql,
  type TeamRole,
  teamRoleRefusal,
  unboundRefusal,
  WORKSPACE_GRANT,
  workspaceRoleRefusal,
  workspaceRoleSql,
} from "./roles";

/**
 * The role of `user` (the caller) in the team `teamId` (a column of the row being read), as a scalar subquery;
 * null when not a member. Drizzle leaves columns unqualified in a one-table query, so both sides are named here:
 * the members table as "caller", the row's column with its table.
 */
export function callerTeamRole(user: string | SQL<string>, teamId: SQLWrapper) {
  const outer = qualified(teamId);
  const caller = (column: string) => sql`${sql.identifier("caller")}.${sql.identifier(column)}`;
  return sql<TeamRole | null>`(select ${caller("role")} from ${teamMembers} as ${sql.identifier("caller")} where ${caller("team_id")} = ${outer} and ${caller("user_id")} = ${user})`;
}

/**
 * The write rule (requireTeamRole's, docs/api.md, permissions) as a condition of the statement that writes: the actor may act at
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

/** The task write rule: what changes a task or what hangs on it. */
export const TASK_WRITE = { min: "MEMBER", what: "change this team's tasks" } as const;

/** The task write rule (TASK_WRITE) as a guard of a write whose task's team is `teamId`. */
export const taskWriteGuard = (actor: Actor, teamId: SQLWrapper): Guard => teamRoleGuard(actor, teamId, TASK_WRITE.min, TASK_WRITE.what);

/**
 * The credential grants `scope` (a write whose scope depends on its row, as a file's on what it hangs on: the
 * route then accepts either, its policy's `alsoScopes`), unless `exempt` holds. Its refusal names the scope, as the route's would.
 */
export const scopeGuard = (credential: Credential, scope: Scope, exempt?: SQL): Guard => ({
  // Cast, so that a key's scopes (a scalar subquery) are one array, not a set of rows.
  holds: exempting(sql`(${scope} = any((${credentialScopes(credential)})::text[]))`, exempt),
  refusal: () => missingScope(scope),
});

/** requireMayGrant's rule (team MEMBER, and no role above one's own) as the guards of a write that adds to `teamId`'s team. */
export const mayGrantGuards = (actor: Actor, teamId: SQLWrapper, role: TeamRole): Guard[] =>
  grantRules(role).map((rule) => teamRoleGuard(actor, teamId, rule.min, rule.what));

/** requireWorkspaceRole's rule as a guard (the actor's role in its workspace is `min` or higher), unless `exempt` holds. */
export const workspaceRoleGuard = (actor: Actor, min: WorkspaceRole, what: string, exempt?: SQL): Guard => ({
  holds: exempting(workspaceRoleSql(actor.role, min), exempt),
  refusal: () => workspaceRoleRefusal(min, what),
});

/**
 * A write that reaches past the teams a credential may be bound to (a new team, a whole workspace's export or import,
 * a webhook of every team) needs a credential bound to none (docs/api.md, "Least privilege").
 */
export const unboundGuard = (actor: Actor, what: string, exempt?: SQL): Guard => ({
  holds: exempting(sql`(${teamsValue(actor.teams)} is null)`, exempt),
  refusal: () => unboundRefusal(what),
});

/** requireMayGrantWorkspaceRole's rule as a guard: a credential bound to teams grants no workspace role. */
export const workspaceGrantGuard = (actor: Actor): Guard => unboundGuard(actor, WORKSPACE_GRANT);

/** Every one of `labelIds` a label of the workspace (NOT_FOUND otherwise), as a guard of a write that attaches them. */
export const labelsGuard = (workspace: WorkspaceScope, labelIds: string[]): Guard => ({
  holds: allWorkspaceLabels(workspace, labelIds),
  refusal: () => notFound("Label"),
});

/** The task `idOrRef` names, in the caller's workspace, with the write rule and the labels a body names. */
export function taskTarget(caller: { actor: Actor }, idOrRef: string, labelIds?: string[]): Target {
  const { actor } = caller;
  return {
    from: sql`${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}`,
    where: and(eq(tasks.workspaceId, actor.workspace), taskMatch(idOrRef, actor.workspace))!,
    columns: {
      id: tasks.id,
      teamId: tasks.teamId,
      projectId: tasks.projectId,
      milestoneId: tasks.milestoneId,
      parentId: tasks.parentId,
      customFields: tasks.customFields,
    },
    guards: [taskWriteGuard(actor, tasks.teamId), ...(labelIds ? [labelsGuard(actor.workspace, labelIds)] : [])],
    name: "Task",
    team: tasks.teamId,
    table: tasks,
  };
}
