// The task operations, one function each, called alike by the REST routes and the MCP tools. Each is one statement that
// authenticates and authorizes itself and says why it wrote nothing (guardedWrite); a body that names references (a project, a
// milestone, a parent, an assignee, custom values) first has them checked in a transaction around that same statement.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { tasks, teams } from "../../../drizzle/schema";
import { labelsGuard, taskTarget, teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { newId } from "../../ids";
import { validateCustomFields } from "../../records/custom-fields";
import { mentioning } from "../../records/mentions";
import { nameMatch } from "../../records/names";
import { insertColumns } from "../../store/field-map";
import { guardedDelete, guardedWrite, readTarget, type Target, updatedRow } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import { delegationCtes } from "../agent-sessions/record";
import { labelSetCtes } from "../labels/record";
import { teamCounterMoved } from "../teams/record";
import { workspaceMember } from "../users/record";
import { type TimeTrackingInputDto, timeTrackingValues } from "../worklogs/record";
import { type TaskCreateInput, type TaskDto, type TaskUpdateInput, taskRecord, workspaceAgent } from "./record";
import { type References, resolveReferences } from "./references";

const CREATE = { min: "MEMBER", what: "create tasks in this team" } as const;

/**
 * The Task answer of the task `id`, read in the statement that wrote it (its CTE `tasks` shadows the table); `created`:
 * the statement made it, so what only other rows would say of it is constant (Field.created).
 */
const written = (id: SQL, created = false): SQL<TaskDto | null> =>
  sql`(select ${taskRecord.json(null, undefined, { created })} from ${taskRecord.from} where ${tasks.id} = ${id})`;

/** The fields a body stores as sent (title, status, dueDate, …: every field of the record's map that names no other record), and its time tracking. */
export function storedValues(input: Record<string, unknown>, on: "create" | "update"): Record<string, unknown> {
  const stored = taskRecord.storedFields().flatMap((name) => (input[name] === undefined ? [] : [[name, input[name]]]));
  return { ...Object.fromEntries(stored), ...timeTrackingValues(input.timeTracking as TimeTrackingInputDto | undefined, on) };
}

/** A body that names another record or custom values: those are checked (in a transaction) before the write. */
const namesReferences = (input: TaskUpdateInput) =>
  [input.projectId, input.milestoneId, input.cycleId, input.parentId, input.assigneeId, input.delegateId, input.customFields].some(
    (v) => v !== undefined,
  );

/** The team a create names, in the caller's workspace, with the rules of a create there. */
function teamTarget(caller: Caller, input: TaskCreateInput): Target {
  const { actor } = caller;
  return {
    from: sql`${teams}`,
    where: and(nameMatch("team", teams.id, input.teamId, actor.workspace), eq(teams.workspaceId, actor.workspace))!,
    columns: { id: teams.id },
    guards: [teamRoleGuard(actor, teams.id, CREATE.min, CREATE.what), labelsGuard(actor.workspace, input.labelIds ?? [])],
    name: "Team",
    team: teams.id,
    table: teams,
  };
}

/**
 * The insert: the team's counter moves (its row lock serialises concurrent creates, so numbers are consecutive and
 * never reused) only when every rule holds; then the task and its labels.
 */
async function insertTask(
  caller: Caller,
  input: TaskCreateInput,
  resolved: Partial<References> & { assigneeId?: string; delegateId?: string; customFields?: Record<string, unknown> },
) {
  const id = newId("task");
  const columns: Record<string, unknown> = {
    ...storedValues(input, "create"),
    projectId: resolved.projectId ?? null,
    milestoneId: resolved.milestoneId ?? null,
    cycleId: resolved.cycleId ?? null,
    parentId: resolved.parentId ?? null,
    assigneeId: resolved.assigneeId ?? null,
    delegateId: resolved.delegateId ?? null,
    customFields: resolved.customFields ?? {},
  };
  const insert = insertColumns(tasks, columns);
  const target = await mentioning(caller, teamTarget(caller, input), [input.description as string | undefined]);
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [
      teamCounterMoved("task_counter", allowed),
      sql`tasks as (insert into ${tasks} (id, workspace_id, team_id, number, creator_id, ${insert.names})
        select ${id}, counter.workspace_id, counter.id, counter.task_counter, ${caller.actor.user}, ${insert.values} from counter returning *)`,
      ...labelSetCtes("task", caller.actor.workspace, input.labelIds ?? [], "tasks"),
      ...(resolved.delegateId ? delegationCtes(caller.actor.user) : []),
    ],
    result: written(sql`${id}`, true),
  }));
}

/** POST /tasks: the reference `<PREFIX>-<n>` from the team's counter. */
export async function createTask(caller: Caller, input: TaskCreateInput): Promise<TaskDto> {
  if (!namesReferences(input)) return insertTask(caller, input, {});
  // Interactive (the WebSocket): the target's rule answers first, then the names resolve and decide the write.
  return caller.transaction(async (tx) => {
    // The team and the rule first, so a foreign or closed team answers before anything the body names.
    const team = await readTarget<{ id: string }>(tx, caller, teamTarget(caller, input), "key share");
    const references = await resolveReferences(tx, caller.actor, team.id, input, {
      projectId: null,
      milestoneId: null,
      cycleId: null,
      parentId: null,
      taskId: null,
    });
    const assigneeId = input.assigneeId ? await workspaceMember(tx, caller.actor.workspace, input.assigneeId, "Assignee") : undefined;
    const delegateId = input.delegateId ? await workspaceAgent(tx, caller.actor.workspace, input.delegateId) : undefined;
    const customFields = await validateCustomFields(tx, caller.actor.workspace, "task", input.customFields);
    return insertTask(caller, input, { ...references, assigneeId, delegateId, customFields });
  });
}

/**
 * The update: the row changes (and `labelIds` replaces its label set) only when every rule holds; a `delegateId` opens
 * the delegate's session (or keeps its open one). An empty body writes nothing visible.
 */
async function writeTask(caller: Caller, idOrRef: string, changes: Record<string, unknown>, labelIds: string[] | undefined) {
  const changing = labelIds !== undefined || Object.values(changes).some((v) => v !== undefined);
  const target = await mentioning(caller, taskTarget(caller, idOrRef, labelIds), [changes.description as string | undefined]);
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [
      updatedRow(caller, "tasks", tasks, changes, allowed, changing),
      ...(labelIds ? labelSetCtes("task", caller.actor.workspace, labelIds, "tasks") : []),
      ...(changes.delegateId ? delegationCtes(caller.actor.user) : []),
    ],
    result: written(sql`(select id from tasks)`),
  }));
}

/**
 * PATCH /tasks/{id}: partial; the records it names are checked against the task's team (a project or parent of another team, or a
 * milestone outside the task's project, is 422), custom values merged and type-checked.
 */
export async function updateTask(caller: Caller, idOrRef: string, input: TaskUpdateInput): Promise<TaskDto> {
  const { labelIds, ...fields } = input;
  if (!namesReferences(input)) return writeTask(caller, idOrRef, storedValues(fields, "update"), labelIds);
  // Interactive (the WebSocket): the task is read (locked) and decides the foreign keys written next.
  return caller.transaction(async (tx) => {
    // The task and the rule first (locked), so a foreign task or a refused caller answers before anything the body names.
    const current = await readTarget<References & { id: string; teamId: string; customFields: Record<string, unknown> }>(
      tx,
      caller,
      taskTarget(caller, idOrRef),
      "no key update",
    );
    const references = await resolveReferences(tx, caller.actor, current.teamId, fields, { ...current, taskId: current.id });
    const assigneeId = fields.assigneeId
      ? await workspaceMember(tx, caller.actor.workspace, fields.assigneeId, "Assignee")
      : fields.assigneeId;
    const delegateId = fields.delegateId ? await workspaceAgent(tx, caller.actor.workspace, fields.delegateId) : fields.delegateId;
    const customFields =
      fields.customFields && (await validateCustomFields(tx, caller.actor.workspace, "task", fields.customFields, current.customFields));
    return writeTask(
      caller,
      current.id,
      { ...storedValues(fields, "update"), ...references, assigneeId, delegateId, customFields },
      labelIds,
    );
  });
}

/** DELETE /tasks/{id}: subtasks (recursively), comments and label rows go with it (their foreign keys cascade). */
export async function deleteTask(caller: Caller, idOrRef: string): Promise<void> {
  await guardedDelete(caller, taskTarget(caller, idOrRef), tasks);
}

/** GET /tasks/{id}: by id or reference (`ENG-12`, any case), in one statement that authenticates itself. */
export function getTask(caller: Caller, idOrRef: string, fields: FieldSelection | null = null): Promise<TaskDto> {
  return readRecord(caller, taskRecord, idOrRef, fields);
}

/**
 * GET /tasks: one page (limit + 1 rows) in one query whatever the page size; filters and sorts on
 * `customFields.<key>` first look up those keys' definitions (one more query).
 */
export function listTasks(caller: Caller, params: ListParams): Promise<TaskDto[]> {
  return listRecords(caller, taskRecord, params);
}
