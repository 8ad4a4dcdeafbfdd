import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { projectLabels, projects, teams, users } from "../../../drizzle/schema";
import type { Executor, WorkspaceScope } from "../../db/client";
import { badRequest } from "../../core/errors";
import type { FieldSelection, FilterOp, ListParams, ListSpec } from "../../http/list";
import { iso } from "../../core/dates";
import { labelsJson } from "../labels/attach";
import { projectReference } from "../refs";
import { userSummaryJson } from "../users/serialize";
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

/** One SELECT that builds whole Project objects (team, labels and lead joined in); the caller adds the where. */
export const selectProjects = (db: Executor, fields: FieldSelection | null = null) =>
  db
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

/** `filter[eq|in|neq][labelId]`: projects carrying (or not carrying) any of the labels. */
function labelFilter(op: FilterOp, labelIds: string[]): SQL {
  const carries = sql`exists (select 1 from ${projectLabels} where ${projectLabels.projectId} = ${projects.id} and ${inArray(projectLabels.labelId, labelIds)})`;
  if (op === "eq" || op === "in") return carries;
  if (op === "neq") return sql`not ${carries}`;
  throw badRequest(`Operator '${op}' does not apply to labelId`, { field: "labelId", allowed: ["eq", "neq", "in"] });
}

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
    labelId: { expr: projectLabels.labelId, kind: "id", sort: false, customFilter: labelFilter },
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
  const rows = await selectProjects(db, params.fields)
    .where(and(eq(projects.workspaceId, workspaceId), params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  return rows.map(serializeProject);
}
