// What a task answer says of status, kept apart from the Task record so the records it embeds (relations) can use it.
import { z } from "@hono/zod-openapi";
import { taskStatus } from "../../drizzle/schema";

export const TaskStatus = z.enum(taskStatus.enumValues).openapi("TaskStatus");

/** A task's subtasks: how many, and how many are DONE. */
export const SubtaskCounts = z
  .object({ total: z.number().int(), done: z.number().int() })
  .openapi("SubtaskCounts", { description: "The task's direct subtasks, and those of them that are DONE" });
