import { and, eq } from "drizzle-orm";
import { projects, teamMembers, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { requireTeamRole, type TeamRole } from "../../auth/roles";
import type { Executor } from "../../db/client";
import { notFound } from "../../core/errors";
import { projectMatch } from "../refs";

export type RowLock = "update" | "key share";

export interface ProjectForCaller {
  id: string;
  teamId: string;
  startDate: string | null;
  targetDate: string | null;
  customFields: Record<string, unknown>;
  /** The caller's role in the project's team (null when not a member); workspace ADMIN/OWNER act above it. */
  callerRole: TeamRole | null;
}

/**
 * A project of the caller's workspace by id or reference (`ENG-P3`, any case) and the caller's role in its
 * team, in one query; NOT_FOUND otherwise. `lock` holds the row until the transaction ends: "update" before a read-modify-write,
 * "key share" to keep it from being deleted while rows that reference it are inserted.
 */
export async function projectForCaller(db: Executor, principal: Principal, idOrRef: string, opts: { lock?: RowLock } = {}): Promise<ProjectForCaller> {
  const query = db
    .select({
      id: projects.id,
      teamId: projects.teamId,
      startDate: projects.startDate,
      targetDate: projects.targetDate,
      customFields: projects.customFields,
      callerRole: teamMembers.role,
    })
    .from(projects)
    .innerJoin(teams, eq(teams.id, projects.teamId))
    .leftJoin(teamMembers, and(eq(teamMembers.teamId, projects.teamId), eq(teamMembers.userId, principal.user.id)))
    .where(and(eq(projects.workspaceId, principal.workspace.id), projectMatch(idOrRef)))
    .limit(1);
  const [project] = await (opts.lock ? query.for(opts.lock, { of: projects }) : query);
  if (!project) throw notFound("Project");
  return project;
}

/** The project, after checking the caller may change its team's work with at least `min` (contract §4). */
export async function projectForWrite(
  db: Executor,
  principal: Principal,
  idOrRef: string,
  opts: { min?: TeamRole; lock?: RowLock; what?: string } = {},
): Promise<ProjectForCaller> {
  const project = await projectForCaller(db, principal, idOrRef, opts);
  requireTeamRole(principal, project.callerRole, opts.min ?? "MEMBER", opts.what ?? "change this project");
  return project;
}
