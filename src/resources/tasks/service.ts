import { and, eq, sql } from "drizzle-orm";
import { teamMembers, tasks, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { requireTeamRole } from "../../auth/roles";
import type { Db, Executor, Tx } from "../../db/client";
import { notFound } from "../../core/errors";
import { newId } from "../../ids";
import { validateCustomFields } from "../fields/values";
import { setLabels } from "../labels/attach";
import { taskMatch } from "../refs";
import { teamForWrite } from "../teams/access";
import { assertWorkspaceMember } from "../users/membership";
import { insertTask, principalActor, type Actor, type TaskColumns } from "./insert";
import { resolveLinks, type Links } from "./links";
import { taskById } from "./read";
import type { TaskCreateInput, TaskDto, TaskUpdateInput } from "./schema";

/**
 * Checks everything a create or update body names (project, milestone, parent, assignee, labels, custom fields)
 * against the caller's workspace and the task's team; returns the columns to store.
 */
async function checkedColumns(
  tx: Executor,
  workspaceId: string,
  teamId: string,
  input: TaskUpdateInput,
  current: Links & { taskId: string | null; customFields: Record<string, unknown> },
) {
  const links = await resolveLinks(tx, workspaceId, teamId, input, current);
  if (input.assigneeId) await assertWorkspaceMember(tx, workspaceId, input.assigneeId, "Assignee");
  const customFields = input.customFields && (await validateCustomFields(tx, workspaceId, "task", input.customFields, current.customFields));
  return {
    title: input.title,
    description: input.description,
    status: input.status,
    priority: input.priority,
    dueDate: input.dueDate,
    assigneeId: input.assigneeId,
    customFields,
    ...links,
  };
}

/** The task (by id or reference, locked for this transaction) after checking the caller may change it. */
async function taskForWrite(tx: Tx, principal: Principal, idOrRef: string) {
  const [task] = await tx
    .select({
      id: tasks.id,
      teamId: tasks.teamId,
      projectId: tasks.projectId,
      milestoneId: tasks.milestoneId,
      parentId: tasks.parentId,
      customFields: tasks.customFields,
      callerRole: teamMembers.role,
    })
    .from(tasks)
    .innerJoin(teams, eq(teams.id, tasks.teamId))
    .leftJoin(teamMembers, and(eq(teamMembers.teamId, tasks.teamId), eq(teamMembers.userId, principal.user.id)))
    .where(and(eq(tasks.workspaceId, principal.workspace.id), taskMatch(idOrRef)))
    .limit(1)
    .for("no key update", { of: tasks });
  if (!task) throw notFound("Task");
  requireTeamRole(principal, task.callerRole, "MEMBER", "change this team's tasks");
  return task;
}

const NO_LINKS = { projectId: null, milestoneId: null, parentId: null, taskId: null, customFields: {} };

/**
 * A body that names no project, milestone, parent, assignee or custom field needs no checks beyond those the
 * insert statement makes itself, so it can be created by that one statement (createUnlinkedTask).
 */
export const hasLinks = (input: TaskCreateInput) =>
  [input.projectId, input.milestoneId, input.parentId, input.assigneeId, input.customFields].some((v) => v != null);

const columnsOf = (input: TaskCreateInput, checked: Partial<Awaited<ReturnType<typeof checkedColumns>>> = {}): TaskColumns => ({
  title: input.title,
  description: input.description,
  status: input.status,
  priority: input.priority,
  dueDate: input.dueDate ?? null,
  projectId: checked.projectId ?? null,
  milestoneId: checked.milestoneId ?? null,
  parentId: checked.parentId ?? null,
  assigneeId: input.assigneeId ?? null,
  customFields: checked.customFields ?? {},
});

const labelsOf = (input: TaskCreateInput) => [...new Set(input.labelIds ?? [])];

/** One statement; undefined when nothing was written (see explainRefusedCreate). */
export const createUnlinkedTask = (db: Db, actor: Actor, input: TaskCreateInput) =>
  insertTask(db, actor, newId("task"), input.teamId, columnsOf(input), labelsOf(input));

/** Why a create wrote nothing: the team is missing or closed to the caller (404/403), else a label is foreign. */
export async function explainRefusedCreate(db: Executor, principal: Principal, input: TaskCreateInput): Promise<never> {
  await teamForWrite(db, principal, input.teamId, "MEMBER", "create tasks in this team");
  throw notFound("Label");
}

/** Any create body, for a loaded principal: the checks of what it links to and the insert share one transaction. */
export function createTask(db: Db, principal: Principal, input: TaskCreateInput): Promise<TaskDto> {
  return db.transaction(async (tx) => {
    // The team first, so that a foreign or closed team answers before anything the body links to.
    await teamForWrite(tx, principal, input.teamId, "MEMBER", "create tasks in this team");
    const checked = await checkedColumns(tx, principal.workspace.id, input.teamId, input, NO_LINKS);
    const task = await insertTask(tx, principalActor(principal), newId("task"), input.teamId, columnsOf(input, checked), labelsOf(input));
    return task ?? explainRefusedCreate(tx, principal, input);
  });
}

export function updateTask(db: Db, principal: Principal, idOrRef: string, input: TaskUpdateInput): Promise<TaskDto> {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const task = await taskForWrite(tx, principal, idOrRef);
    const columns = await checkedColumns(tx, workspaceId, task.teamId, input, { ...task, taskId: task.id });
    if (Object.keys(input).length > 0) {
      await tx
        .update(tasks)
        .set({ ...columns, updatedAt: sql`now()` })
        .where(and(eq(tasks.workspaceId, workspaceId), eq(tasks.id, task.id)));
    }
    if (input.labelIds) await setLabels(tx, "task", task.id, workspaceId, input.labelIds);
    return taskById(tx, workspaceId, task.id);
  });
}

/** Subtasks (recursively), comments and label links go with the task: their foreign keys cascade. */
export function deleteTask(db: Db, principal: Principal, idOrRef: string): Promise<void> {
  return db.transaction(async (tx) => {
    const task = await taskForWrite(tx, principal, idOrRef);
    await tx.delete(tasks).where(and(eq(tasks.workspaceId, principal.workspace.id), eq(tasks.id, task.id)));
  });
}
