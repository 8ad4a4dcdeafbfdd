import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { tasks, teams, users } from "../../../drizzle/schema";
import type { Executor, WorkspaceScope } from "../../db/client";
import { notFound } from "../../core/errors";
import type { FieldSelection } from "../../http/list";
import { iso } from "../../core/dates";
import { labelsJson } from "../labels/attach";
import { taskMatch, taskReference } from "../refs";
import { userSummaryJson } from "../users/serialize";
import type { TaskDto } from "./schema";

const assignee = alias(users, "assignee");

/** A sub-object is built in SQL only when `fields` selects it; otherwise a cheap stand-in that projection drops. */
const wants = (fields: FieldSelection | null, key: string) => fields === null || Object.hasOwn(fields, key);

function taskColumns(fields: FieldSelection | null) {
  return {
    id: tasks.id,
    number: tasks.number,
    title: tasks.title,
    status: tasks.status,
    priority: tasks.priority,
    description: tasks.description,
    dueDate: tasks.dueDate,
    teamId: tasks.teamId,
    team: { id: teams.id, name: teams.name, prefix: teams.prefix },
    projectId: tasks.projectId,
    milestoneId: tasks.milestoneId,
    parentId: tasks.parentId,
    assigneeId: tasks.assigneeId,
    assignee: wants(fields, "assignee") ? userSummaryJson(assignee) : sql<null>`null`,
    labels: wants(fields, "labels") ? labelsJson("task", tasks.id) : sql<[]>`'[]'::json`,
    customFields: tasks.customFields,
    createdAt: tasks.createdAt,
    updatedAt: tasks.updatedAt,
  };
}

/**
 * The one SELECT that builds Task objects (team joined, assignee and labels embedded): a single round trip for
 * one task or a whole page. The caller adds the workspace condition.
 */
export function selectTasks(db: Executor, fields: FieldSelection | null = null) {
  return db
    .select(taskColumns(fields))
    .from(tasks)
    .innerJoin(teams, eq(teams.id, tasks.teamId))
    .leftJoin(assignee, eq(assignee.id, tasks.assigneeId));
}

type TaskRow = Awaited<ReturnType<typeof selectTasks>>[number];

export function serializeTask(row: TaskRow): TaskDto {
  return {
    id: row.id,
    reference: taskReference(row.team.prefix, row.number),
    title: row.title,
    status: row.status,
    priority: row.priority,
    description: row.description,
    dueDate: row.dueDate,
    teamId: row.teamId,
    team: row.team,
    projectId: row.projectId,
    milestoneId: row.milestoneId,
    parentId: row.parentId,
    assigneeId: row.assigneeId,
    assignee: row.assignee,
    labels: row.labels,
    customFields: row.customFields,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}

/**
 * The serialized task by id or reference (`ENG-12`, any case) within the workspace, in one query; NOT_FOUND
 * otherwise. Reusable by export, batch and search.
 */
export async function taskById(db: Executor, workspaceId: WorkspaceScope, idOrRef: string, fields: FieldSelection | null = null): Promise<TaskDto> {
  const [row] = await selectTasks(db, fields)
    .where(and(eq(tasks.workspaceId, workspaceId), taskMatch(idOrRef)))
    .limit(1);
  if (!row) throw notFound("Task");
  return serializeTask(row);
}
