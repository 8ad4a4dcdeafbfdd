import { z } from "@hono/zod-openapi";
import { BodyId, IsoDate, LongText, ObjectKey, selectable } from "../../http/schemas";

export const MILESTONE_STATUSES = ["PLANNED", "IN_PROGRESS", "DONE"] as const;
const Status = z.enum(MILESTONE_STATUSES);
const CustomFields = z.record(ObjectKey, z.unknown());

export const Milestone = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    description: z.string(),
    targetDate: z.string().nullable().openapi({ example: "2025-03-31" }),
    status: Status,
    customFields: CustomFields,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Milestone");

const editable = {
  name: z.string().trim().min(1).max(200),
  description: LongText,
  targetDate: IsoDate.nullable(),
  status: Status.openapi({ description: "Default PLANNED" }),
  customFields: CustomFields.openapi({
    description: "Type-checked against the workspace's field definitions; on update merged, null removes a key",
  }),
};

export const MilestoneCreate = z
  .object({
    projectId: BodyId.openapi({ description: "Project id or reference (`ENG-P3`)" }),
    name: editable.name,
    description: editable.description.optional(),
    targetDate: editable.targetDate.optional(),
    status: editable.status.optional(),
    customFields: editable.customFields.optional(),
  })
  .strict()
  .openapi("MilestoneCreate");

/** A milestone stays in its project: `projectId` here is an unknown field (422). */
export const MilestoneUpdate = z.object(editable).partial().strict().openapi("MilestoneUpdate");

export type MilestoneCreateInput = z.infer<typeof MilestoneCreate>;
export type MilestoneUpdateInput = z.infer<typeof MilestoneUpdate>;

/** As routes that take `fields` answer them (every key optional). */
export const MilestoneSelection = selectable(Milestone, "MilestoneSelection");
