import { type SQL, sql } from "drizzle-orm";
import { forbidden } from "../core/errors";
import type { Principal, WorkspaceRole } from "./principal";

export type TeamRole = "VIEWER" | "MEMBER" | "ADMIN" | "OWNER";
export const TEAM_ROLES = ["VIEWER", "MEMBER", "ADMIN", "OWNER"] as const;
const WORKSPACE_ROLES = ["MEMBER", "ADMIN", "OWNER"] as const;
const TEAM_RANK: Record<TeamRole, number> = { VIEWER: 0, MEMBER: 1, ADMIN: 2, OWNER: 3 };
const WORKSPACE_RANK: Record<WorkspaceRole, number> = { MEMBER: 0, ADMIN: 1, OWNER: 2 };

const isAdminRole = (role: WorkspaceRole) => WORKSPACE_RANK[role] >= WORKSPACE_RANK.ADMIN;
export const isWorkspaceAdmin = (p: Principal) => isAdminRole(p.role);

export const workspaceRoleRefusal = (min: WorkspaceRole, what = "do this") => forbidden(`Only a workspace ${min} or higher may ${what}`);

export function requireWorkspaceRole(p: Principal, min: WorkspaceRole, what = "do this"): void {
  if (WORKSPACE_RANK[p.role] < WORKSPACE_RANK[min]) throw workspaceRoleRefusal(min, what);
}

/** A credential bound to teams does nothing that reaches past them (docs/api.md, "Least privilege"). */
export const unboundRefusal = (what: string) => forbidden(`A credential bound to teams cannot ${what}`);
export function requireUnbound(p: Principal, what: string): void {
  if (p.teamIds !== null) throw unboundRefusal(what);
}
/**
 * What a credential bound to teams never grants (docs/api.md, "Least privilege"): a workspace role above MEMBER, or a
 * change of anyone's workspace role (it acts on every team): 403. It invites only into its own teams (another team is
 * 404, as everywhere: `inTeams` in the invite's statement), and into at least one, as a MEMBER of the workspace.
 */
export const WORKSPACE_GRANT = "grant a workspace role (an ADMIN invite, a change of a member's role): it acts on every team";
export const requireMayGrantWorkspaceRole = (p: Principal) => requireUnbound(p, WORKSPACE_GRANT);
export function requireBoundInvite(p: Principal, input: { role: WorkspaceRole; teamIds: readonly string[] }): void {
  if (p.teamIds === null) return;
  if (input.role !== "MEMBER") throw unboundRefusal(WORKSPACE_GRANT);
  if (input.teamIds.length === 0) throw unboundRefusal("invite into no team: name its teams in teamIds");
}

/** Whether the principal's credential reaches team `teamId` (a credential bound to other teams finds it not at all). */
export const reachesTeam = (p: Principal, teamId: string) => p.teamIds === null || p.teamIds.includes(teamId);

export const teamRoleAtLeast = (role: TeamRole | null | undefined, min: TeamRole) => role != null && TEAM_RANK[role] >= TEAM_RANK[min];

/**
 * The team write rule (docs/api.md, permissions), stated once: workspace ADMIN/OWNER may do everything in the workspace;
 * otherwise the caller's role in the team decides (MEMBER writes, VIEWER reads only). `requireTeamRole` applies
 * it to a loaded principal, `mayActInTeamSql` inside a statement that authorizes itself; both read these lists.
 */
const ADMIN_ROLES: WorkspaceRole[] = WORKSPACE_ROLES.filter(isAdminRole);
// One rule per minimum team role, built once (requireTeamRole runs on every write).
const TEAM_RULES = Object.fromEntries(
  TEAM_ROLES.map((min) => [min, { workspaceRoles: ADMIN_ROLES, teamRoles: TEAM_ROLES.filter((role) => teamRoleAtLeast(role, min)) }]),
) as Record<TeamRole, { workspaceRoles: WorkspaceRole[]; teamRoles: TeamRole[] }>;
const teamRule = (min: TeamRole) => TEAM_RULES[min];

export const teamRoleRefusal = (min: TeamRole, what = "do this") =>
  forbidden(`You need team role ${min} or higher (or workspace ADMIN) to ${what}`);

export function requireTeamRole(p: Principal, teamRole: TeamRole | null | undefined, min: TeamRole, what = "do this"): void {
  const rule = teamRule(min);
  if (rule.workspaceRoles.includes(p.role) || (teamRole != null && rule.teamRoles.includes(teamRole))) return;
  throw teamRoleRefusal(min, what);
}

/**
 * Adding someone to a team (docs/api.md, permissions): team role MEMBER or higher, and never a role above one's own team role
 * (workspace ADMIN/OWNER excepted). POST /teams/{id}/members and an import's new team members decide with it; the
 * one-statement add writes under the same two conditions (mayActInTeamSql at MEMBER and at `role`).
 */
export function requireMayGrant(p: Principal, callerRole: TeamRole | null | undefined, role: TeamRole): void {
  for (const rule of grantRules(role)) requireTeamRole(p, callerRole, rule.min, rule.what);
}

/** The two team roles requireMayGrant asks for, in its order (auth/access.ts's mayGrantGuards states them in SQL). */
export const grantRules = (role: TeamRole) => [
  { min: "MEMBER" as TeamRole, what: "add team members" },
  { min: role, what: `grant team role ${role}` },
];

/** Roles as the list of an SQL `in (…)`. */
const inList = (values: string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

/** The same rule as a SQL condition (true, or false/null) over the caller's workspace role and team role. */
export function mayActInTeamSql(workspaceRole: string | SQL, teamRole: SQL, min: TeamRole): SQL<boolean> {
  const rule = teamRule(min);
  return sql<boolean>`(${workspaceRole} in (${inList(rule.workspaceRoles)}) or ${teamRole} in (${inList(rule.teamRoles)}))`;
}

/** requireWorkspaceRole's rule as a SQL condition over a workspace role (a value, or SQL read from the credential). */
export const workspaceRoleSql = (workspaceRole: string | SQL, min: WorkspaceRole): SQL<boolean> =>
  sql<boolean>`(${workspaceRole} in (${inList(WORKSPACE_ROLES.filter((role) => WORKSPACE_RANK[role] >= WORKSPACE_RANK[min]))}))`;

/** isWorkspaceAdmin as a SQL condition over a workspace role (a value, or SQL read from the credential). */
export const workspaceAdminSql = (workspaceRole: string | SQL): SQL<boolean> =>
  sql<boolean>`(${workspaceRole} in (${inList(ADMIN_ROLES)}))`;
