// The Project record: its one field map (docs/architecture.md, "One shape per resource"). The answer's JSON and schema,
// the `fields` shape, the list's filters and sorts, the request bodies, the columns a write stores, and the export record
// with what an import checks all come from `projectRecord`.
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { projectStatus, projects, teams, users } from "../../../drizzle/schema";
import { customFieldsField } from "../../records/custom-fields";
import { NameOf, named, pathNames } from "../../records/names";
import { defineRecord, exportedTimestamps, f } from "../../store/field-map";
import { BodyId, IsoDate, LongText, orNull } from "../../store/schemas";
import { LabelIds, LabelSummary, labelFilter, labelIdsJson, labelsJson } from "../labels/record";
import { teamSummaryJson } from "../teams/record";
import { UserSummarySchema, userSummaryJson, userSummaryShape } from "../users/record";

export const PROJECT_STATUSES = projectStatus.enumValues;
export const ProjectStatus = z.enum(PROJECT_STATUSES);

/** Trailing number of `PREFIX-Pn`: the cursor value of a `number` sort, read from the answer. */
const numberOf = (item: Record<string, unknown>) => Number(/-P(\d+)$/.exec(String(item.reference))?.[1]);

const lead = alias(users, "lead");

export const projectRecord = defineRecord({
  name: "Project",
  resource: "projects",
  id: projects.id,
  workspace: projects.workspaceId,
  team: projects.teamId,
  ...pathNames("project", projects.id),
  from: sql`${projects} join ${teams} on ${teams.id} = ${projects.teamId} left join ${users} as ${sql.identifier("lead")} on ${lead.id} = ${projects.leadId}`,
  fields: {
    id: f.id(projects.id, { names: named("project"), exported: BodyId }),
    reference: f.text(sql`${teams.prefix} || '-P' || ${projects.number}`, {
      list: false,
      exported: z.string().max(32),
      doc: { example: "ENG-P3" },
    }),
    number: f.integer(projects.number, { hidden: true, list: { cursorValue: numberOf } }),
    name: f.text(projects.name, {
      builtIn: { name: "Name" },
      input: { schema: z.string().trim().min(1).max(200), create: "required" },
      exported: true,
    }),
    status: f.enum(projects.status, ProjectStatus, {
      builtIn: { name: "Status" },
      input: { schema: ProjectStatus.openapi({ description: "Default PLANNING" }) },
      exported: ProjectStatus,
    }),
    description: f.text(projects.description, {
      builtIn: { name: "Description" },
      list: { sort: false },
      input: { schema: LongText },
      exported: true,
    }),
    teamId: f.id(projects.teamId, { names: named("team"), exported: BodyId }),
    // Inline (not the TeamSummary component), as the document has always described it.
    team: f.json(teamSummaryJson(teams), z.object({ id: z.string(), name: z.string(), prefix: z.string() }), {
      shape: { id: true, name: true, prefix: true },
    }),
    labels: f.json(labelsJson("project", projects.id), z.array(LabelSummary), { lazy: true, shape: { id: true, name: true, color: true } }),
    leadId: f.id(projects.leadId, {
      names: named("user"),
      builtIn: { name: "Lead", type: "user" },
      nullable: true,
      input: { schema: NameOf("user", "a member of the workspace").nullable(), write: "resolved" },
      exported: BodyId.nullable(),
    }),
    lead: f.json(userSummaryJson(lead), orNull(UserSummarySchema), { lazy: true, shape: userSummaryShape }),
    startDate: f.date(projects.startDate, {
      builtIn: { name: "Start date" },
      nullable: true,
      input: { schema: IsoDate.nullable() },
      exported: IsoDate.nullable(),
      doc: { example: "2025-01-31" },
    }),
    targetDate: f.date(projects.targetDate, {
      builtIn: { name: "Target date" },
      nullable: true,
      input: { schema: IsoDate.nullable().openapi({ description: "Not before startDate" }) },
      exported: IsoDate.nullable(),
      doc: { example: "2025-03-31" },
    }),
    labelIds: f.json(labelIdsJson("project", projects.id), LabelIds, {
      hidden: true,
      input: {
        schema: LabelIds.openapi({ description: "Labels of the workspace, by id or name (any case); on update, replaces the set" }),
        write: "resolved",
        column: false,
      },
      exported: LabelIds,
    }),
    // Not in the answer: `filter[eq][labelId]=…` matches projects carrying the label (`in`: any of them).
    labelId: f.id(projects.id, {
      names: named("label"),
      hidden: true,
      nullable: true,
      list: { sort: false, customFilter: labelFilter("project", projects.id) },
    }),
    customFields: customFieldsField(projects.customFields),
    ...exportedTimestamps(projects),
  },
});

export const Project = projectRecord.schema;
export type ProjectDto = z.infer<typeof Project>;
export const ProjectSelection = projectRecord.selection;

const body = projectRecord.createShape();
export const ProjectCreate = z
  .object({
    name: body.name,
    teamId: NameOf("team", "required (400 BAD_REQUEST when missing); a team of the workspace"),
    ...body,
  })
  .strict()
  .openapi("ProjectCreate");
/** The team is fixed at creation: `teamId` here is an unknown field (422). */
export const ProjectUpdate = z.object(projectRecord.inputShape()).partial().strict().openapi("ProjectUpdate");

/** What a body names that the operation checks: the dates' order, a lead who is a member, labels and custom values of the workspace. */
export interface ProjectChecks {
  leadId?: string | null;
  startDate?: string | null;
  targetDate?: string | null;
  labelIds?: string[];
  customFields?: Record<string, unknown>;
}
export type ProjectCreateInput = ProjectChecks & { teamId: string } & Record<string, unknown>;
export type ProjectUpdateInput = ProjectChecks & Record<string, unknown>;

/** An exported project as an import reads it: the records and ids it maps by name; every other field is written as exported. */
export type ExportedProject = {
  id: string;
  reference: string;
  teamId: string;
  leadId: string | null;
  labelIds: string[];
  customFields: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
} & Record<string, unknown>;
