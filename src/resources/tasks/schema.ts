import { z } from "@hono/zod-openapi";
import { taskPriority, taskStatus } from "../../../drizzle/schema";
import { BodyId, IsoDate, LongText, ObjectKey, orNull, selectable } from "../../http/schemas";
import { LabelSummary } from "../labels/schema";
import { UserSummarySchema } from "../users/schema";

export const TaskStatus = z.enum(taskStatus.enumValues).openapi("TaskStatus");
/** Declared in rank order (NONE lowest), so sorting and gt/lt filters on the column follow the rank. */
export const TaskPriority = z.enum(taskPriority.enumValues).openapi("TaskPriority");

export const TeamSummary = z.object({ id: z.string(), name: z.string(), prefix: z.string() }).openapi("TeamSummary");

export const Task = z
  .object({
    id: z.string().openapi({ example: "task_01jz8x4q0be0sv3c5kq9v1y2ab" }),
    reference: z.string().openapi({ example: "ENG-12", description: "`<team prefix>-<number>`, never reused" }),
    title: z.string(),
    status: TaskStatus,
    priority: TaskPriority,
    description: z.string().openapi({ description: "Markdown; empty string when not set" }),
    dueDate: z.string().nullable().openapi({ example: "2026-03-31", description: "YYYY-MM-DD" }),
    teamId: z.string(),
    team: TeamSummary,
    projectId: z.string().nullable(),
    milestoneId: z.string().nullable(),
    parentId: z.string().nullable().openapi({ description: "Parent task of a subtask" }),
    assigneeId: z.string().nullable(),
    assignee: orNull(UserSummarySchema),
    labels: z.array(LabelSummary),
    customFields: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Task");

// Shared by create and update; `null` clears a nullable field (on create it is the same as leaving it out).
const editable = {
  title: z.string().trim().min(1).max(500),
  description: LongText,
  status: TaskStatus,
  priority: TaskPriority,
  dueDate: IsoDate.nullable(),
  projectId: BodyId.nullable().openapi({ description: "A project of the task's team: id or reference (`ENG-P3`)" }),
  milestoneId: BodyId.nullable().openapi({ description: "A milestone of the task's project" }),
  parentId: BodyId.nullable().openapi({ description: "A task of the same team: id or reference (`ENG-12`); no cycles" }),
  assigneeId: BodyId.nullable().openapi({ description: "A member of the workspace" }),
  labelIds: z.array(BodyId).max(100).openapi({ description: "Labels of the workspace; replaces the whole set on update" }),
  customFields: z
    .record(ObjectKey, z.unknown())
    .openapi({ description: "`{<field key>: value}`, type-checked against the field definitions; on update merged, `null` removes a key" }),
};

export const TaskCreate = z
  .object({
    teamId: BodyId.openapi({ description: "Required (400 BAD_REQUEST when missing)" }),
    ...editable,
    description: editable.description.default(""),
    status: editable.status.default("TODO"),
    priority: editable.priority.default("NONE"),
  })
  .partial({ projectId: true, milestoneId: true, parentId: true, assigneeId: true, dueDate: true, labelIds: true, customFields: true })
  .strict()
  .openapi("TaskCreate");

/** Moving a task to another team is not supported, so `teamId` is an unknown field here (422). */
export const TaskUpdate = z.object(editable).partial().strict().openapi("TaskUpdate");

export type TaskDto = z.infer<typeof Task>;
export type TaskCreateInput = z.infer<typeof TaskCreate>;
export type TaskUpdateInput = z.infer<typeof TaskUpdate>;

/** As routes that take `fields` answer them (every key optional). */
export const TaskSelection = selectable(Task, "TaskSelection");
