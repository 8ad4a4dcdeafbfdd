import { z } from "@hono/zod-openapi";
import { BodyId, IsoDate, LongText, ObjectKey, orNull, selectable } from "../../http/schemas";
import { LabelSummary } from "../../records/labels";
import { UserSummarySchema } from "../../records/users";

export const PROJECT_STATUSES = ["PLANNING", "ACTIVE", "PAUSED", "COMPLETED", "CANCELED"] as const;
const Status = z.enum(PROJECT_STATUSES);
const CustomFields = z
  .record(ObjectKey, z.unknown())
  .openapi({ description: "Values keyed by field-definition key; type-checked against the workspace's definitions" });

export const Project = z
  .object({
    id: z.string(),
    reference: z.string().openapi({ example: "ENG-P3" }),
    name: z.string(),
    status: Status,
    description: z.string(),
    teamId: z.string(),
    team: z.object({ id: z.string(), name: z.string(), prefix: z.string() }),
    labels: z.array(LabelSummary),
    leadId: z.string().nullable(),
    lead: orNull(UserSummarySchema),
    startDate: z.string().nullable().openapi({ example: "2025-01-31" }),
    targetDate: z.string().nullable().openapi({ example: "2025-03-31" }),
    customFields: CustomFields,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Project");

const editable = {
  name: z.string().trim().min(1).max(200),
  status: Status.openapi({ description: "Default PLANNING" }),
  description: LongText,
  leadId: BodyId.nullable().openapi({ description: "A member of the workspace" }),
  startDate: IsoDate.nullable(),
  targetDate: IsoDate.nullable().openapi({ description: "Not before startDate" }),
  labelIds: z.array(BodyId).max(100).openapi({ description: "Labels of the workspace; on update, replaces the set" }),
  customFields: CustomFields.openapi({ description: "On update, merged into the stored values; null removes a key" }),
};

export const ProjectCreate = z
  .object({
    name: editable.name,
    teamId: BodyId.openapi({ description: "Required (400 BAD_REQUEST when missing); a team of the workspace" }),
    status: editable.status.optional(),
    description: editable.description.optional(),
    leadId: editable.leadId.optional(),
    startDate: editable.startDate.optional(),
    targetDate: editable.targetDate.optional(),
    labelIds: editable.labelIds.optional(),
    customFields: editable.customFields.optional(),
  })
  .strict()
  .openapi("ProjectCreate");

/** The team is fixed at creation: `teamId` here is an unknown field (422). */
export const ProjectUpdate = z.object(editable).partial().strict().openapi("ProjectUpdate");

export type ProjectCreateInput = z.infer<typeof ProjectCreate>;
export type ProjectUpdateInput = z.infer<typeof ProjectUpdate>;

/** As routes that take `fields` answer them (every key optional). */
export const ProjectSelection = selectable(Project, "ProjectSelection");
