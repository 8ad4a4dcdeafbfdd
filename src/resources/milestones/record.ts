// The Milestone record: its one field map (docs/architecture.md, "One shape per resource"). The answer's JSON and schema,
// the `fields` shape, the list's filters and sorts, the request bodies, the columns a write stores, and the export record
// with what an import checks all come from `milestoneRecord`.
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { milestoneStatus, milestones, projects } from "../../../drizzle/schema";
import { customFieldsField } from "../../records/custom-fields";
import { idKind, NameOf, named } from "../../records/names";
import { defineRecord, exportedTimestamps, f } from "../../store/field-map";
import { BodyId, IsoDate, LongText } from "../../store/schemas";

/** How a request names a milestone: by its id (`mile_…`) only. */
export const MILESTONE_ID = idKind("a milestone id", "mile");

export const MILESTONE_STATUSES = milestoneStatus.enumValues;
export const MilestoneStatus = z.enum(MILESTONE_STATUSES);

/** A milestone's team, its project's (the columns named with their table: Drizzle leaves them bare in a one-table query). */
export const milestoneTeam = sql`(select ${sql.identifier("team_of")}.team_id from ${projects} as ${sql.identifier("team_of")} where ${sql.identifier("team_of")}.id = ${sql.identifier("milestones")}.project_id)`;

export const milestoneRecord = defineRecord({
  name: "Milestone",
  resource: "milestones",
  id: milestones.id,
  workspace: milestones.workspaceId,
  team: milestoneTeam,
  from: sql`${milestones}`,
  fields: {
    id: f.id(milestones.id, { names: named(MILESTONE_ID), exported: BodyId }),
    projectId: f.id(milestones.projectId, { names: named("project"), exported: BodyId }),
    name: f.text(milestones.name, {
      builtIn: { name: "Name" },
      input: { schema: z.string().trim().min(1).max(200), create: "required" },
      exported: true,
    }),
    description: f.text(milestones.description, {
      builtIn: { name: "Description" },
      list: { sort: false },
      input: { schema: LongText },
      exported: true,
    }),
    targetDate: f.date(milestones.targetDate, {
      builtIn: { name: "Target date" },
      nullable: true,
      input: { schema: IsoDate.nullable() },
      exported: true,
      doc: { example: "2025-03-31" },
    }),
    status: f.enum(milestones.status, MilestoneStatus, {
      builtIn: { name: "Status" },
      input: { schema: MilestoneStatus.openapi({ description: "Default PLANNED" }) },
      exported: MilestoneStatus,
    }),
    customFields: customFieldsField(milestones.customFields),
    ...exportedTimestamps(milestones),
  },
});

export const Milestone = milestoneRecord.schema;
export type MilestoneDto = z.infer<typeof Milestone>;
export const MilestoneSelection = milestoneRecord.selection;

export const MilestoneCreate = z
  .object({ projectId: NameOf("project"), ...milestoneRecord.createShape() })
  .strict()
  .openapi("MilestoneCreate");
/** A milestone stays in its project: `projectId` here is an unknown field (422). */
export const MilestoneUpdate = z.object(milestoneRecord.inputShape()).partial().strict().openapi("MilestoneUpdate");

export type MilestoneCreateInput = { projectId: string; customFields?: Record<string, unknown> } & Record<string, unknown>;
export type MilestoneUpdateInput = { customFields?: Record<string, unknown> } & Record<string, unknown>;

/** An exported milestone as an import reads it: the records and ids it maps by name; every other field is written as exported. */
export type ExportedMilestone = {
  id: string;
  projectId: string;
  customFields: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
} & Record<string, unknown>;
