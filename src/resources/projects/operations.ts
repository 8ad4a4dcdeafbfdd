// The project operations, one function each, called alike by the REST routes and the MCP tools. Each is one statement
// that authenticates and authorizes itself and says why it wrote nothing (guardedWrite); a body that names a lead or
// custom values first has them checked in a transaction around that same statement.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { projects, teams } from "../../../drizzle/schema";
import { labelsGuard, teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { invalid } from "../../core/errors";
import { newId } from "../../ids";
import { validateCustomFields } from "../../records/custom-fields";
import { nameMatch, projectMatch } from "../../records/names";
import { insertColumns } from "../../store/field-map";
import { type Guard, guardedDelete, guardedWrite, readTarget, type Target, updatedRow } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import { labelSetCtes } from "../labels/record";
import { teamCounterMoved } from "../teams/record";
import { workspaceMember } from "../users/record";
import { type ProjectChecks, type ProjectCreateInput, type ProjectDto, type ProjectUpdateInput, projectRecord } from "./record";

const CREATE = { min: "MEMBER", what: "create projects in this team" } as const;
const WRITE = { min: "MEMBER", what: "change this project" } as const;
const DELETE = { min: "MEMBER", what: "delete this project" } as const;

const outOfOrder = () => invalid("targetDate", "Must not be before startDate");

/** The Project answer of the project `id`, read in the statement that wrote it (its CTE `projects` shadows the table). */
const written = (id: SQL): SQL<ProjectDto | null> =>
  sql`(select ${projectRecord.json()} from ${projectRecord.from} where ${projects.id} = ${id})`;

/** The fields a body stores as sent (name, status, dates, …: every field of the record's map that is not checked first). */
function storedValues(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(projectRecord.storedFields().flatMap((name) => (input[name] === undefined ? [] : [[name, input[name]]])));
}

/** A body that names a lead or custom values: those are checked (in a transaction) before the write. */
const namesChecks = (input: ProjectChecks) => Boolean(input.leadId || input.customFields);

/**
 * The dates after an update (the stored ones where the body leaves them) in order, as a rule of the statement; YYYY-MM-DD
 * compare as dates.
 */
function datesGuard(input: ProjectChecks): Guard {
  const start = input.startDate === undefined ? projects.startDate : sql`${input.startDate}::date`;
  const target = input.targetDate === undefined ? projects.targetDate : sql`${input.targetDate}::date`;
  return { holds: sql`(${start} is null or ${target} is null or ${target} >= ${start})`, refusal: outOfOrder };
}

/** The team a create names, in the caller's workspace, with the rule of a create there (and the labels, when `labels`). */
function teamTarget(caller: Caller, input: ProjectCreateInput, labels: boolean): Target {
  const { actor } = caller;
  return {
    from: sql`${teams}`,
    where: and(nameMatch("team", teams.id, input.teamId, actor.workspace), eq(teams.workspaceId, actor.workspace))!,
    columns: { id: teams.id },
    guards: [
      teamRoleGuard(actor, teams.id, CREATE.min, CREATE.what),
      ...(labels ? [labelsGuard(actor.workspace, input.labelIds ?? [])] : []),
    ],
    name: "Team",
    team: teams.id,
    table: teams,
  };
}

/** The project `idOrRef` names, in the caller's workspace, with the rule of the operation (and what an update body names). */
function projectTarget(caller: Caller, idOrRef: string, rule: typeof WRITE | typeof DELETE, update?: ProjectChecks): Target {
  const { actor } = caller;
  const guards = [teamRoleGuard(actor, projects.teamId, rule.min, rule.what)];
  if (update) guards.push(datesGuard(update));
  if (update?.labelIds) guards.push(labelsGuard(actor.workspace, update.labelIds));
  return {
    from: sql`${projects} join ${teams} on ${teams.id} = ${projects.teamId}`,
    where: and(eq(projects.workspaceId, actor.workspace), projectMatch(idOrRef, actor.workspace))!,
    columns: { id: projects.id, customFields: projects.customFields },
    guards,
    name: "Project",
    team: projects.teamId,
    table: projects,
  };
}

/**
 * The insert: the team's project counter moves (its row lock serialises concurrent creates, so numbers are consecutive
 * and never reused) only when every rule holds; then the project and its labels.
 */
function insertProject(caller: Caller, input: ProjectCreateInput, customFields: Record<string, unknown>) {
  const id = newId("proj");
  const columns: Record<string, unknown> = { ...storedValues(input), leadId: input.leadId ?? null, customFields };
  const insert = insertColumns(projects, columns);
  return guardedWrite(caller, teamTarget(caller, input, true), (allowed) => ({
    ctes: [
      teamCounterMoved("project_counter", allowed),
      sql`projects as (insert into ${projects} (id, workspace_id, team_id, number, ${insert.names})
        select ${id}, counter.workspace_id, counter.id, counter.project_counter, ${insert.values} from counter returning *)`,
      ...labelSetCtes("project", caller.actor.workspace, input.labelIds ?? [], "projects"),
    ],
    result: written(sql`${id}`),
  }));
}

/** POST /projects: the reference `<PREFIX>-P<n>` from the team's project counter, separate from task numbers. */
export async function createProject(caller: Caller, input: ProjectCreateInput): Promise<ProjectDto> {
  // Both dates are in the body, so their order needs no row (an update checks it in its statement, against the stored ones).
  if (input.startDate && input.targetDate && input.targetDate < input.startDate) throw outOfOrder();
  if (!namesChecks(input)) return insertProject(caller, input, {});
  // Interactive (the WebSocket): the target's rule answers first, then the names resolve and decide the write.
  return caller.transaction(async (tx) => {
    // The team and the rule first, so a foreign or closed team answers before the lead and the values.
    await readTarget(tx, caller, teamTarget(caller, input, false), "key share");
    const leadId = input.leadId ? await workspaceMember(tx, caller.actor.workspace, input.leadId, "Lead") : input.leadId;
    return insertProject(
      caller,
      { ...input, leadId },
      await validateCustomFields(tx, caller.actor.workspace, "project", input.customFields),
    );
  });
}

/** The update: the row changes (and `labelIds` replaces its label set) only when every rule holds. An empty body writes nothing visible. */
function writeProject(caller: Caller, idOrRef: string, input: ProjectUpdateInput, customFields: Record<string, unknown> | undefined) {
  const { labelIds } = input;
  const changes = { ...storedValues(input), leadId: input.leadId, customFields };
  return guardedWrite(caller, projectTarget(caller, idOrRef, WRITE, input), (allowed) => ({
    ctes: [
      updatedRow(caller, "projects", projects, changes, allowed, Object.keys(input).length > 0),
      ...(labelIds ? labelSetCtes("project", caller.actor.workspace, labelIds, "projects") : []),
    ],
    result: written(sql`(select id from projects)`),
  }));
}

/**
 * PATCH /projects/{id}: partial; the dates stay in order (422), a lead must be a member of the workspace, custom values
 * are merged and type-checked.
 */
export async function updateProject(caller: Caller, idOrRef: string, input: ProjectUpdateInput): Promise<ProjectDto> {
  if (!namesChecks(input)) return writeProject(caller, idOrRef, input, undefined);
  // Interactive (the WebSocket): the project is read (locked) and decides the lead and the values.
  return caller.transaction(async (tx) => {
    // The project, the rule and the dates first (locked), so a foreign project or a refused caller answers before the lead.
    const { startDate, targetDate } = input;
    const current = await readTarget<{ id: string; customFields: Record<string, unknown> }>(
      tx,
      caller,
      projectTarget(caller, idOrRef, WRITE, { startDate, targetDate }),
      "no key update",
    );
    const leadId = input.leadId ? await workspaceMember(tx, caller.actor.workspace, input.leadId, "Lead") : input.leadId;
    const customFields =
      input.customFields && (await validateCustomFields(tx, caller.actor.workspace, "project", input.customFields, current.customFields));
    return writeProject(caller, current.id, { ...input, leadId }, customFields);
  });
}

/** DELETE /projects/{id}: its milestones and comments go with it; its tasks stay, unlinked (their foreign keys set null). */
export async function deleteProject(caller: Caller, idOrRef: string): Promise<void> {
  await guardedDelete(caller, projectTarget(caller, idOrRef, DELETE), projects);
}

/** GET /projects/{id}: by id or reference (`ENG-P3`, any case), in one statement that authenticates itself. */
export function getProject(caller: Caller, idOrRef: string, fields: FieldSelection | null = null): Promise<ProjectDto> {
  return readRecord(caller, projectRecord, idOrRef, fields);
}

/** GET /projects: one page (limit + 1 rows) in one query whatever the page size. */
export function listProjects(caller: Caller, params: ListParams): Promise<ProjectDto[]> {
  return listRecords(caller, projectRecord, params);
}
