// What a task answer says of status, and a task's summary, kept apart from the Task record so the records that embed
// a task can use them.
import { z } from "@hono/zod-openapi";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { taskStatus } from "../../drizzle/schema";

export const TaskStatus = z.enum(taskStatus.enumValues).openapi("TaskStatus");

/** A task's subtasks: how many, and how many are DONE. */
export const SubtaskCounts = z
  .object({ total: z.number().int(), done: z.number().int() })
  .openapi("SubtaskCounts", { description: "The task's direct subtasks, and those of them that are DONE" });

export const TaskSummary = z
  .object({ id: z.string(), reference: z.string(), title: z.string(), status: TaskStatus })
  .openapi("TaskSummary");
export const taskSummaryShape = { id: true, reference: true, title: true, status: true } as const;
/** `{id, reference, title, status}` of a task joined with its team, built in SQL. */
export const taskSummaryJson = (t: Record<"id" | "number" | "title" | "status", SQLWrapper>, team: { prefix: SQLWrapper }): SQL =>
  sql`json_build_object('id', ${t.id}, 'reference', ${team.prefix} || '-' || ${t.number}, 'title', ${t.title}, 'status', ${t.status})`;
