import { forbidden } from "../core/errors";
import type { Principal, WorkspaceRole } from "./principal";

export type TeamRole = "VIEWER" | "MEMBER" | "ADMIN" | "OWNER";
export const TEAM_ROLES = ["VIEWER", "MEMBER", "ADMIN", "OWNER"] as const;
const TEAM_RANK: Record<TeamRole, number> = { VIEWER: 0, MEMBER: 1, ADMIN: 2, OWNER: 3 };
const WORKSPACE_RANK: Record<WorkspaceRole, number> = { MEMBER: 0, ADMIN: 1, OWNER: 2 };

export const isWorkspaceAdmin = (p: Principal) => WORKSPACE_RANK[p.role] >= WORKSPACE_RANK.ADMIN;

export function requireWorkspaceRole(p: Principal, min: WorkspaceRole, what = "do this"): void {
  if (WORKSPACE_RANK[p.role] < WORKSPACE_RANK[min]) throw forbidden(`Only a workspace ${min} or higher may ${what}`);
}

export const teamRoleAtLeast = (role: TeamRole | null | undefined, min: TeamRole) =>
  role != null && TEAM_RANK[role] >= TEAM_RANK[min];

/**
 * Contract §4: workspace ADMIN/OWNER may do everything in the workspace; otherwise the caller's role in the
 * team decides (MEMBER writes, VIEWER reads only).
 */
export function requireTeamRole(p: Principal, teamRole: TeamRole | null | undefined, min: TeamRole, what = "do this"): void {
  if (isWorkspaceAdmin(p) || teamRoleAtLeast(teamRole, min)) return;
  throw forbidden(`You need team role ${min} or higher (or workspace ADMIN) to ${what}`);
}
