import { and, eq } from "drizzle-orm";
import { milestones, projects, teamMembers } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { requireTeamRole, type TeamRole } from "../../auth/roles";
import type { Executor } from "../../db/client";
import { notFound } from "../../core/errors";
import type { RowLock } from "../projects/access";

export interface MilestoneForCaller {
  id: string;
  projectId: string;
  teamId: string;
  customFields: Record<string, unknown>;
  /** The caller's role in the team of the milestone's project (null when not a member). */
  callerRole: TeamRole | null;
}

/**
 * A milestone of the caller's workspace, its project's team and the caller's role there, in one query;
 * NOT_FOUND otherwise. `lock` holds the row until the transaction ends: "update" before a read-modify-write,
 * "key share" to keep it from being deleted while rows that reference it are inserted.
 */
export async function milestoneForCaller(db: Executor, principal: Principal, id: string, opts: { lock?: RowLock } = {}): Promise<MilestoneForCaller> {
  const query = db
    .select({
      id: milestones.id,
      projectId: milestones.projectId,
      teamId: projects.teamId,
      customFields: milestones.customFields,
      callerRole: teamMembers.role,
    })
    .from(milestones)
    .innerJoin(projects, eq(projects.id, milestones.projectId))
    .leftJoin(teamMembers, and(eq(teamMembers.teamId, projects.teamId), eq(teamMembers.userId, principal.user.id)))
    .where(and(eq(milestones.workspaceId, principal.workspace.id), eq(milestones.id, id)))
    .limit(1);
  const [milestone] = await (opts.lock ? query.for(opts.lock, { of: milestones }) : query);
  if (!milestone) throw notFound("Milestone");
  return milestone;
}

/** The milestone, after checking the caller may change its project's team's work (contract §4). */
export async function milestoneForWrite(
  db: Executor,
  principal: Principal,
  id: string,
  opts: { min?: TeamRole; lock?: RowLock; what?: string } = {},
): Promise<MilestoneForCaller> {
  const milestone = await milestoneForCaller(db, principal, id, opts);
  requireTeamRole(principal, milestone.callerRole, opts.min ?? "MEMBER", opts.what ?? "change this milestone");
  return milestone;
}
