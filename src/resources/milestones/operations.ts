// The milestone operations, one function each, called by the REST routes. Each is one statement that authenticates and
// authorizes itself and says why it wrote nothing (guardedWrite); a body with custom values first has them checked in
// a transaction around that same statement.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { milestones, projects, teams } from "../../../drizzle/schema";
import { teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { notFound } from "../../core/errors";
import { newId } from "../../ids";
import { validateCustomFields } from "../../records/custom-fields";
import { projectMatch } from "../../records/names";
import { insertColumns } from "../../store/field-map";
import { guardedDelete, guardedWrite, readTarget, type Target, updatedRow } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import { projectRecord } from "../projects/record";
import { type MilestoneCreateInput, type MilestoneDto, type MilestoneUpdateInput, milestoneRecord } from "./record";

const CREATE = { min: "MEMBER", what: "add milestones to this project" } as const;
const WRITE = { min: "MEMBER", what: "change this milestone" } as const;
const DELETE = { min: "MEMBER", what: "delete this milestone" } as const;

/** The Milestone answer of the milestone `id`, read in the statement that wrote it (its CTE `milestones` shadows the table). */
const written = (id: SQL): SQL<MilestoneDto | null> =>
  sql`(select ${milestoneRecord.json()} from ${milestoneRecord.from} where ${milestones.id} = ${id})`;

/** The fields a body stores as sent (every field of the record's map but the custom values). */
function storedValues(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(milestoneRecord.storedFields().flatMap((name) => (input[name] === undefined ? [] : [[name, input[name]]])));
}

/** The project a create names (id or reference), in the caller's workspace, with the rule of adding a milestone to it. */
function projectTarget(caller: Caller, projectIdOrRef: string): Target {
  const { actor } = caller;
  return {
    from: sql`${projects} join ${teams} on ${teams.id} = ${projects.teamId}`,
    where: and(eq(projects.workspaceId, actor.workspace), projectMatch(projectIdOrRef, actor.workspace))!,
    columns: { id: projects.id },
    guards: [teamRoleGuard(actor, projects.teamId, CREATE.min, CREATE.what)],
    name: "Project",
    team: projects.teamId,
    table: projects,
  };
}

/** The milestone `id`, in the caller's workspace, with the rule of the operation (decided in its project's team). */
function milestoneTarget(caller: Caller, id: string, rule: typeof WRITE | typeof DELETE): Target {
  const { actor } = caller;
  return {
    from: sql`${milestones} join ${projects} on ${projects.id} = ${milestones.projectId}`,
    where: and(eq(milestones.workspaceId, actor.workspace), eq(milestones.id, id))!,
    columns: { id: milestones.id, customFields: milestones.customFields },
    guards: [teamRoleGuard(actor, projects.teamId, rule.min, rule.what)],
    name: "Milestone",
    team: projects.teamId,
    table: milestones,
  };
}

/** The insert, into the project the target found, only when the rule holds; the foreign key keeps the project meanwhile. */
function insertMilestone(caller: Caller, input: MilestoneCreateInput, customFields: Record<string, unknown>) {
  const id = newId("mile");
  const columns: Record<string, unknown> = { ...storedValues(input), customFields };
  const insert = insertColumns(milestones, columns);
  return guardedWrite(caller, projectTarget(caller, input.projectId), (allowed) => ({
    ctes: [
      sql`milestones as (insert into ${milestones} (id, workspace_id, project_id, team_id, ${insert.names})
        select ${id}, ${projects.workspaceId}, ${projects.id}, ${projects.teamId}, ${insert.values} from ${projects} where ${projects.id} = ${allowed} returning *)`,
    ],
    result: written(sql`${id}`),
  }));
}

/** POST /milestones: in a project named by id or reference (`ENG-P3`). */
export async function createMilestone(caller: Caller, input: MilestoneCreateInput): Promise<MilestoneDto> {
  if (!input.customFields) return insertMilestone(caller, input, {});
  // Interactive (the WebSocket): the target's rule answers first, then the custom values are checked against it.
  return caller.transaction(async (tx) => {
    // The project and the rule first (share-locked), so a foreign project or a refused caller answers before the values.
    await readTarget(tx, caller, projectTarget(caller, input.projectId), "key share");
    return insertMilestone(caller, input, await validateCustomFields(tx, caller.actor.workspace, "milestone", input.customFields));
  });
}

/** The update: the row changes only when the rule holds. An empty body writes nothing visible (updatedAt stays). */
function writeMilestone(caller: Caller, id: string, input: MilestoneUpdateInput, customFields: Record<string, unknown> | undefined) {
  return guardedWrite(caller, milestoneTarget(caller, id, WRITE), (allowed) => ({
    ctes: [updatedRow(caller, "milestones", milestones, { ...storedValues(input), customFields }, allowed, Object.keys(input).length > 0)],
    result: written(sql`(select id from milestones)`),
  }));
}

/** PATCH /milestones/{id}: partial; custom values are merged with the stored ones and type-checked. */
export async function updateMilestone(caller: Caller, id: string, input: MilestoneUpdateInput): Promise<MilestoneDto> {
  if (!input.customFields) return writeMilestone(caller, id, input, undefined);
  const changes = input.customFields;
  // Interactive (the WebSocket): the milestone is read (locked) and its custom values merged with the changes.
  return caller.transaction(async (tx) => {
    // The milestone and the rule first (locked), so a foreign milestone or a refused caller answers before the values.
    const current = await readTarget<{ customFields: Record<string, unknown> }>(
      tx,
      caller,
      milestoneTarget(caller, id, WRITE),
      "no key update",
    );
    const merged = await validateCustomFields(tx, caller.actor.workspace, "milestone", changes, current.customFields);
    return writeMilestone(caller, id, input, merged);
  });
}

/** DELETE /milestones/{id}: its comments go with it; its tasks stay, with `milestoneId` cleared (foreign key set null). */
export async function deleteMilestone(caller: Caller, id: string): Promise<void> {
  await guardedDelete(caller, milestoneTarget(caller, id, DELETE), milestones);
}

/** GET /milestones/{id}, in one statement that authenticates itself. */
export function getMilestone(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<MilestoneDto> {
  return readRecord(caller, milestoneRecord, id, fields);
}

/** GET /milestones: one page (limit + 1 rows) in one query whatever the page size. */
export function listMilestones(caller: Caller, params: ListParams): Promise<MilestoneDto[]> {
  return listRecords(caller, milestoneRecord, params);
}

/**
 * GET /projects/{id}/milestones (project by id or reference) in one query: the project is resolved in a CTE and the page
 * left-joined to it, so no row at all means the project is not in the workspace (404), while a single row without a
 * milestone is an empty page. (The record's FROM is the milestones table alone, which the join names.)
 */
export function listProjectMilestones(caller: Caller, projectIdOrRef: string, params: ListParams): Promise<MilestoneDto[]> {
  return caller.list(async (actor) => {
    const { workspace } = actor;
    const db = caller.db;
    const project = db
      .$with("project")
      .as(
        db
          .select({ id: projects.id })
          .from(projects)
          .innerJoin(teams, eq(teams.id, projects.teamId))
          .where(projectRecord.named(actor, projectIdOrRef)),
      );
    const rows = await db
      .with(project)
      .select({ id: milestones.id, milestone: milestoneRecord.json(params.fields) })
      .from(project)
      .leftJoin(milestones, and(eq(milestones.projectId, project.id), eq(milestones.workspaceId, workspace), params.where))
      .orderBy(...params.orderBy)
      .limit(params.limit + 1);
    if (rows.length === 0) throw notFound("Project");
    return rows.flatMap((row) => (row.id === null ? [] : [row.milestone]));
  });
}
