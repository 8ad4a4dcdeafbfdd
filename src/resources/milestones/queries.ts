import { and, eq } from "drizzle-orm";
import { milestones, projects, teams } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type ListParams, type ListSpec, pageQuery } from "../../http/list";
import { projectMatch } from "../../records/refs";
import { MILESTONE_STATUSES } from "./schema";

type MilestoneRow = typeof milestones.$inferSelect;
export const serializeMilestone = (m: MilestoneRow) => ({
  id: m.id,
  projectId: m.projectId,
  name: m.name,
  description: m.description,
  targetDate: m.targetDate,
  status: m.status,
  customFields: m.customFields,
  createdAt: iso(m.createdAt),
  updatedAt: iso(m.updatedAt),
});

export const milestoneList: ListSpec = {
  resource: "milestones",
  id: milestones.id,
  fields: {
    id: { expr: milestones.id, kind: "id" },
    projectId: { expr: milestones.projectId, kind: "id" },
    name: { expr: milestones.name, kind: "string" },
    description: { expr: milestones.description, kind: "string", sort: false },
    status: { expr: milestones.status, kind: "enum", values: MILESTONE_STATUSES },
    targetDate: { expr: milestones.targetDate, kind: "date", nullable: true },
    createdAt: { expr: milestones.createdAt, kind: "datetime" },
    updatedAt: { expr: milestones.updatedAt, kind: "datetime" },
  },
  shape: {
    id: true,
    projectId: true,
    name: true,
    description: true,
    targetDate: true,
    status: true,
    customFields: true,
    createdAt: true,
    updatedAt: true,
  },
};

export async function listMilestones(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await pageQuery(db.select().from(milestones).$dynamic(), eq(milestones.workspaceId, workspaceId), params);
  return rows.map(serializeMilestone);
}

/**
 * Milestones of one project (id or reference) in one query: the project is resolved in a CTE and the page
 * left-joined to it, so no row at all means the project is not in the workspace (404), while a single row
 * without a milestone is an empty page.
 */
export async function listProjectMilestones(db: Executor, workspaceId: WorkspaceScope, projectIdOrRef: string, params: ListParams) {
  const project = db.$with("project").as(
    db
      .select({ id: projects.id })
      .from(projects)
      .innerJoin(teams, eq(teams.id, projects.teamId))
      .where(and(eq(projects.workspaceId, workspaceId), projectMatch(projectIdOrRef))),
  );
  const rows = await db
    .with(project)
    .select({ projectId: project.id, milestone: milestones })
    .from(project)
    .leftJoin(milestones, and(eq(milestones.projectId, project.id), eq(milestones.workspaceId, workspaceId), params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  if (rows.length === 0) throw notFound("Project");
  return rows.flatMap((r) => (r.milestone ? [serializeMilestone(r.milestone)] : []));
}

export async function getMilestone(db: Executor, workspaceId: WorkspaceScope, id: string) {
  const [row] = await db
    .select()
    .from(milestones)
    .where(and(eq(milestones.workspaceId, workspaceId), eq(milestones.id, id)));
  if (!row) throw notFound("Milestone");
  return serializeMilestone(row);
}
