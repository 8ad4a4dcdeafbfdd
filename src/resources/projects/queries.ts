import { and, eq, sql, type WithSubquery } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { projects, teams, users } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type FieldSelection, type ListParams, type ListSpec, pageQuery } from "../../http/list";
import { labelFilter, labelsJson } from "../../records/labels";
import { projectMatch, projectReference } from "../../records/refs";
import { userSummaryJson } from "../../records/users";
import { PROJECT_STATUSES } from "./schema";

const lead = alias(users, "lead");

/** The Project object's columns; labels are only aggregated when the field selection asks for them. */
const columns = (fields: FieldSelection | null) => ({
  id: projects.id,
  number: projects.number,
  name: projects.name,
  status: projects.status,
  description: projects.description,
  teamId: projects.teamId,
  team: { id: teams.id, name: teams.name, prefix: teams.prefix },
  labels: fields && !fields.labels ? sql<[]>`'[]'::json` : labelsJson("project", projects.id),
  leadId: projects.leadId,
  lead: userSummaryJson(lead),
  startDate: projects.startDate,
  targetDate: projects.targetDate,
  customFields: projects.customFields,
  createdAt: projects.createdAt,
  updatedAt: projects.updatedAt,
});

/**
 * One SELECT that builds whole Project objects (team, labels and lead joined in); the caller adds the where.
 * `ctes` lead the statement: an update puts the row it writes under the names this SELECT reads (see updateProject).
 */
export const selectProjects = (db: Executor, fields: FieldSelection | null = null, ctes: WithSubquery[] = []) =>
  (ctes.length ? db.with(...ctes) : db)
    .select(columns(fields))
    .from(projects)
    .innerJoin(teams, eq(teams.id, projects.teamId))
    .leftJoin(lead, eq(lead.id, projects.leadId));

type ProjectRow = Awaited<ReturnType<typeof selectProjects>>[number];

export const serializeProject = (p: ProjectRow) => ({
  id: p.id,
  reference: projectReference(p.team.prefix, p.number),
  name: p.name,
  status: p.status,
  description: p.description,
  teamId: p.teamId,
  team: p.team,
  labels: p.labels,
  leadId: p.leadId,
  lead: p.lead,
  startDate: p.startDate,
  targetDate: p.targetDate,
  customFields: p.customFields,
  createdAt: iso(p.createdAt),
  updatedAt: iso(p.updatedAt),
});

export const projectList: ListSpec = {
  resource: "projects",
  id: projects.id,
  fields: {
    id: { expr: projects.id, kind: "id" },
    // The item carries only the reference; its number is the part after "-P".
    number: { expr: projects.number, kind: "number", cursorValue: (item) => Number(/-P(\d+)$/.exec(String(item.reference))?.[1]) },
    name: { expr: projects.name, kind: "string" },
    description: { expr: projects.description, kind: "string", sort: false },
    status: { expr: projects.status, kind: "enum", values: PROJECT_STATUSES },
    teamId: { expr: projects.teamId, kind: "id" },
    leadId: { expr: projects.leadId, kind: "id", nullable: true },
    startDate: { expr: projects.startDate, kind: "date", nullable: true },
    targetDate: { expr: projects.targetDate, kind: "date", nullable: true },
    labelId: { expr: projects.id, kind: "id", nullable: true, sort: false, customFilter: labelFilter("project", projects.id) },
    createdAt: { expr: projects.createdAt, kind: "datetime" },
    updatedAt: { expr: projects.updatedAt, kind: "datetime" },
  },
  shape: {
    id: true,
    reference: true,
    name: true,
    status: true,
    description: true,
    teamId: true,
    team: { id: true, name: true, prefix: true },
    labels: { id: true, name: true, color: true },
    leadId: true,
    lead: { id: true, name: true, email: true, avatarUrl: true, humanId: true },
    startDate: true,
    targetDate: true,
    customFields: true,
    createdAt: true,
    updatedAt: true,
  },
};

/** Projects of the workspace (one query for the page, whatever its size). */
export async function listProjects(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await pageQuery(selectProjects(db, params.fields).$dynamic(), eq(projects.workspaceId, workspaceId), params);
  return rows.map(serializeProject);
}

/** The Project object of a project of the workspace, by id or reference; NOT_FOUND otherwise. */
export async function getProject(db: Executor, workspaceId: WorkspaceScope, idOrRef: string, fields: FieldSelection | null = null) {
  const [row] = await selectProjects(db, fields)
    .where(and(eq(projects.workspaceId, workspaceId), projectMatch(idOrRef)))
    .limit(1);
  if (!row) throw notFound("Project");
  return serializeProject(row);
}
