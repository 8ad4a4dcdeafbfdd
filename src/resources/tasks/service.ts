import { and, eq, inArray, sql } from "drizzle-orm";
import { taskLabels, tasks, teams } from "../../../drizzle/schema";
import { type Actor, type Principal, principalActor } from "../../auth/principal";
import { mayActInTeamSql, teamRoleRefusal } from "../../auth/roles";
import { conflict, notFound } from "../../core/errors";
import type { Db, Executor, WorkspaceScope } from "../../db/client";
import { newId } from "../../ids";
import { actorMay, assertWorkspaceLabels, callerTeamRole, replaceLabels } from "../access";
import { validateCustomFields } from "../fields/values";
import { workspaceLabels } from "../labels/attach";
import { taskMatch } from "../refs";
import { assertWorkspaceMember } from "../users/membership";
import { taskForCaller } from "./access";
import { type Links, resolveLinks } from "./links";
import { selectTasks, serializeTask } from "./queries";
import type { TaskCreateInput, TaskDto, TaskUpdateInput } from "./schema";

/**
 * Checks everything a create or update body names (project, milestone, parent, assignee, custom fields)
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
  const customFields =
    input.customFields && (await validateCustomFields(tx, workspaceId, "task", input.customFields, current.customFields));
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

const CREATE = { min: "MEMBER", what: "create tasks in this team" } as const;

/** The team a create names, in the actor's workspace; `mayCreate` is the contract §4 write rule over it, in SQL. */
const theTeam = (actor: Actor, teamId: string) => and(eq(teams.id, teamId), eq(teams.workspaceId, actor.workspace));
const mayCreate = (actor: Actor) => mayActInTeamSql(actor.role, callerTeamRole(actor.user, teams.id), CREATE.min);

export interface TaskColumns {
  title: string;
  description: string;
  status: string;
  priority: string;
  dueDate: string | null;
  projectId: string | null;
  milestoneId: string | null;
  parentId: string | null;
  assigneeId: string | null;
  customFields: Record<string, unknown>;
}

/**
 * Inserts a task in ONE statement and returns the Task object, or undefined when nothing was written (see
 * checkCreate). The team's counter moves (its row lock serialises concurrent creates, so numbers are
 * consecutive and never reused) only when the actor may write in the team and every label is the workspace's;
 * then the task and its labels are inserted. The Task is built by selectTasks, the SELECT of every read: the CTEs
 * named `tasks` and `task_labels` hold the new rows under the names it reads (a statement does not see its own
 * writes in the tables; CTE names shadow them, while INSERT targets always name the tables).
 */
async function insertTask(db: Executor, actor: Actor, teamId: string, c: TaskColumns, labelIds: string[]): Promise<TaskDto | undefined> {
  const id = newId("task");
  const valid = db.$with("valid", { id: sql<string>`id` }).as(workspaceLabels(actor.workspace, labelIds));
  const counter = db.$with("counter", { id: sql<string>`id` }).as(sql`
    update ${teams} set task_counter = task_counter + 1
    where ${theTeam(actor, teamId)} and ${mayCreate(actor)} and (select count(*) from valid) = ${labelIds.length}
    returning id, workspace_id, task_counter`);
  const inserted = db.$with("tasks", { id: sql<string>`id` }).as(sql`
    insert into ${tasks} (id, workspace_id, team_id, number, title, description, status, priority, due_date,
      project_id, milestone_id, parent_id, assignee_id, creator_id, custom_fields)
    select ${id}, counter.workspace_id, counter.id, counter.task_counter, ${c.title}, ${c.description}, ${c.status}::task_status,
      ${c.priority}::task_priority, ${c.dueDate}::date, ${c.projectId}, ${c.milestoneId}, ${c.parentId}, ${c.assigneeId},
      ${actor.user}, ${JSON.stringify(c.customFields)}::jsonb
    from counter
    returning *`);
  const attached = db.$with("task_labels", { id: sql<string>`task_id` }).as(sql`
    insert into ${taskLabels} (task_id, label_id) select ${sql.identifier("tasks")}.id, valid.id from ${sql.identifier("tasks")} cross join valid
    returning *`);
  // The where names the new row outright: the result never depends on the CTE shadowing the table alone.
  const [row] = await selectTasks(db, null, [valid, counter, inserted, attached]).where(eq(tasks.id, id));
  return row && serializeTask(row);
}

const labelsOf = (input: TaskCreateInput) => [...new Set(input.labelIds ?? [])];

/**
 * Throws why a create by `actor` would be refused, from one query over the same conditions insertTask writes
 * under: the team is missing (404), the rule refuses the actor (403), or a label is not the workspace's (404).
 */
async function checkCreate(db: Executor, actor: Actor, input: TaskCreateInput): Promise<void> {
  const labelIds = labelsOf(input);
  const [team] = await db
    .select({
      allowed: sql<boolean>`coalesce(${mayCreate(actor)}, false)`,
      labels: sql<number>`(select count(*)::int from (${workspaceLabels(actor.workspace, labelIds)}) valid)`,
    })
    .from(teams)
    .where(theTeam(actor, input.teamId));
  if (!team) throw notFound("Team");
  if (!team.allowed) throw teamRoleRefusal(CREATE.min, CREATE.what);
  if (team.labels !== labelIds.length) throw notFound("Label");
}

/** Why a create wrote nothing; if every condition now holds, they changed meanwhile (409: retry). */
export async function explainRefusedCreate(db: Executor, actor: Actor, input: TaskCreateInput): Promise<never> {
  await checkCreate(db, actor, input);
  throw conflict("The team or its labels changed meanwhile; retry the request");
}

/**
 * A body that names no project, milestone, parent, assignee or custom field needs no checks beyond those the
 * insert statement makes itself.
 */
export const hasLinks = (input: TaskCreateInput) =>
  [input.projectId, input.milestoneId, input.parentId, input.assigneeId, input.customFields].some((v) => v != null);

/**
 * The one task create. Without links it is the insert statement alone (one round trip, authorizing itself, so
 * `actor` may be the credential's SQL); with links, one transaction: the team and rule first (so that a foreign
 * or closed team answers before anything the body links to), then the links, then the same insert. Undefined
 * when nothing was written: explainRefusedCreate says why.
 */
export function createTask(db: Db, actor: Actor, input: TaskCreateInput): Promise<TaskDto | undefined> {
  const columns = (checked: Partial<Awaited<ReturnType<typeof checkedColumns>>> = {}): TaskColumns => ({
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
  if (!hasLinks(input)) return insertTask(db, actor, input.teamId, columns(), labelsOf(input));
  const workspaceId = actor.workspace;
  if (typeof workspaceId !== "string") throw new Error("A create with links needs a loaded principal (its checks name the workspace)");
  return db.transaction(async (tx) => {
    await checkCreate(tx, actor, input);
    const checked = await checkedColumns(tx, workspaceId, input.teamId, input, {
      projectId: null,
      milestoneId: null,
      parentId: null,
      taskId: null,
      customFields: {},
    });
    return insertTask(tx, actor, input.teamId, columns(checked), labelsOf(input));
  });
}

const WRITE = { min: "MEMBER", what: "change this team's tasks" } as const;

/** The task `idOrRef` names in the workspace, as a subquery of its id (a reference needs the team's prefix). */
const taskIdOf = (db: Executor, workspaceId: WorkspaceScope, idOrRef: string) =>
  db
    .select({ id: tasks.id })
    .from(tasks)
    .innerJoin(teams, eq(teams.id, tasks.teamId))
    .where(and(eq(tasks.workspaceId, workspaceId), taskMatch(idOrRef)));

/**
 * Updates a task in ONE statement (sent as one transaction in one round trip) and returns the Task object, or undefined when nothing was written (see
 * explainRefusedUpdate). The row changes only when it is the workspace's, the caller may write in its team
 * (contract §4, in SQL) and every label is the workspace's; `labelIds` then replaces the label set in the same
 * statement. As in insertTask, CTEs named `tasks` and `task_labels` hold the new rows under the names selectTasks
 * reads. An empty body writes nothing visible (updatedAt stays).
 */
async function writeTask(
  db: Executor,
  actor: Actor,
  idOrRef: string,
  changes: Partial<typeof tasks.$inferInsert>,
  labelIds: string[] | undefined,
): Promise<TaskDto | undefined> {
  const workspaceId = actor.workspace;
  const labels = labelIds && replaceLabels(db, "task", workspaceId, [...new Set(labelIds)], "tasks");
  const changing = labels !== undefined || Object.values(changes).some((v) => v !== undefined);
  const update = db
    .update(tasks)
    .set({ ...changes, updatedAt: changing ? sql`now()` : sql`${tasks.updatedAt}` })
    .where(
      and(
        eq(tasks.workspaceId, workspaceId),
        inArray(tasks.id, taskIdOf(db, workspaceId, idOrRef)),
        actorMay(actor, tasks.teamId, WRITE.min),
        labels?.allValid,
      ),
    )
    .returning();
  const updated = db.$with("tasks", { id: sql<string>`id` }).as(update.getSQL());
  const ctes = labels ? [labels.valid, updated, ...labels.links] : [updated];
  const [row] = await selectTasks(db, null, ctes).where(and(eq(tasks.workspaceId, workspaceId), taskMatch(idOrRef)));
  return row && serializeTask(row);
}

/** Why an update wrote nothing: the task is missing (404), the rule refuses the caller (403), a label is not the workspace's (404). */
export async function explainRefusedUpdate(
  db: Executor,
  principal: Principal,
  idOrRef: string,
  labelIds: string[] | undefined,
): Promise<never> {
  await taskForCaller(db, principal, idOrRef, WRITE);
  if (labelIds) await assertWorkspaceLabels(db, principal.workspace.id, labelIds);
  throw conflict("The task or its labels changed meanwhile; retry the request");
}

/** An update that names a link, even to clear it (clearing the project clears the milestone), goes through resolveLinks. */
export const namesLinks = (input: TaskUpdateInput) =>
  [input.projectId, input.milestoneId, input.parentId, input.assigneeId, input.customFields].some((v) => v !== undefined);

/**
 * The one task update (writeTask). A body without links is that statement alone (one round trip after the
 * caller's); with links, one transaction: the task and rule first (so that a foreign task or a refused caller
 * answers before anything the body links to), then the links, then the same statement.
 */
export async function updateTask(db: Db, principal: Principal, idOrRef: string, input: TaskUpdateInput): Promise<TaskDto> {
  const { labelIds, ...fields } = input;
  const task = namesLinks(input)
    ? await db.transaction(async (tx) => {
        const current = await taskForCaller(tx, principal, idOrRef, { ...WRITE, lock: "no key update" });
        const columns = await checkedColumns(tx, principal.workspace.id, current.teamId, fields, { ...current, taskId: current.id });
        return writeTask(tx, principalActor(principal), current.id, columns, labelIds);
      })
    : await writeTask(db, principalActor(principal), idOrRef, fields, labelIds);
  return task ?? explainRefusedUpdate(db, principal, idOrRef, labelIds);
}

/**
 * The common update (a body without links, see namesLinks): writeTask alone, one statement that authenticates
 * itself when `actor` is the credential's SQL; undefined when it wrote nothing (explainRefusedUpdate says why).
 */
export function updateTaskAs(db: Db, actor: Actor, idOrRef: string, input: TaskUpdateInput): Promise<TaskDto | undefined> {
  const { labelIds, ...fields } = input;
  return writeTask(db, actor, idOrRef, fields, labelIds);
}

/** Subtasks (recursively), comments and label links go with the task: their foreign keys cascade. One statement, rule included; false when it deleted nothing. */
export async function deleteTask(db: Db, actor: Actor, idOrRef: string): Promise<boolean> {
  const rows = await db
    .delete(tasks)
    .where(
      and(
        eq(tasks.workspaceId, actor.workspace),
        inArray(tasks.id, taskIdOf(db, actor.workspace, idOrRef)),
        actorMay(actor, tasks.teamId, WRITE.min),
      ),
    )
    .returning({ id: tasks.id });
  return rows.length > 0;
}

/** Why deleteTask deleted nothing: 404 or 403; if the task now passes, it changed meanwhile (409). */
export async function explainRefusedDelete(db: Db, principal: Principal, idOrRef: string): Promise<never> {
  await taskForCaller(db, principal, idOrRef, WRITE);
  throw conflict("The row changed meanwhile; retry the request");
}
