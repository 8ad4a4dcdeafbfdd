import { and, eq, sql } from "drizzle-orm";
import { milestones, projects, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Db, Executor, WorkspaceScope } from "../../db/client";
import { notFound } from "../../core/errors";
import type { ListParams, ListSpec } from "../../http/list";
import { iso } from "../../core/dates";
import { newId } from "../../ids";
import { validateCustomFields } from "../fields/values";
import { projectForWrite } from "../projects/access";
import { projectMatch } from "../refs";
import { milestoneForWrite } from "./access";
import { MILESTONE_STATUSES, type MilestoneCreateInput, type MilestoneUpdateInput } from "./schema";

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
  const rows = await db
    .select()
    .from(milestones)
    .where(and(eq(milestones.workspaceId, workspaceId), params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
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

export async function createMilestone(db: Db, principal: Principal, input: MilestoneCreateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    // Key-share lock: the project cannot be deleted between this check and the insert.
    const project = await projectForWrite(tx, principal, input.projectId, { lock: "key share", what: "add milestones to this project" });
    const customFields = await validateCustomFields(tx, workspaceId, "milestone", input.customFields);
    const [row] = await tx
      .insert(milestones)
      .values({
        id: newId("mile"),
        workspaceId,
        projectId: project.id,
        name: input.name,
        description: input.description ?? "",
        targetDate: input.targetDate ?? null,
        status: input.status ?? "PLANNED",
        customFields,
      })
      .returning();
    return serializeMilestone(row);
  });
}

export async function updateMilestone(db: Db, principal: Principal, id: string, input: MilestoneUpdateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const current = await milestoneForWrite(tx, principal, id, { lock: "update" });
    if (Object.keys(input).length === 0) return getMilestone(tx, workspaceId, current.id);
    const { customFields, ...columns } = input;
    const merged = customFields && (await validateCustomFields(tx, workspaceId, "milestone", customFields, current.customFields));
    const [row] = await tx
      .update(milestones)
      .set({ ...columns, ...(merged && { customFields: merged }), updatedAt: sql`now()` })
      .where(eq(milestones.id, current.id))
      .returning();
    return serializeMilestone(row);
  });
}

/** Deletes the milestone: its comments go with it; its tasks stay, with `milestoneId` cleared (FK set null). */
export async function deleteMilestone(db: Db, principal: Principal, id: string) {
  await db.transaction(async (tx) => {
    const milestone = await milestoneForWrite(tx, principal, id, { what: "delete this milestone" });
    await tx.delete(milestones).where(eq(milestones.id, milestone.id));
  });
}
