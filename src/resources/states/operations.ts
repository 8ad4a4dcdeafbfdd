// The workflow state operations (docs/api.md "Workflow states"), one function each, called alike by the
// REST routes and the MCP tools. Each write is one statement that authenticates and authorizes itself and says why it
// wrote nothing (guardedWrite): the team ADMIN rule, the categories a team keeps (read under a lock of the team's states
// of that category, so two concurrent writes cannot each take away one of the last two), and, for a delete, the tasks
// that hold the state, moved in that same statement (one `task.updated` each, from the triggers). A task's category is
// the trigger pm_task_state's to keep: a state's new category reaches its tasks in the statement that changes it.
import { type AnyColumn, and, eq, type SQL, sql } from "drizzle-orm";
import { tasks, teams, workflowStates } from "../../../drizzle/schema";
import { teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { conflict, invalid, notFound } from "../../core/errors";
import { newId } from "../../ids";
import { nameMatch } from "../../records/names";
import type { StateCategoryDto } from "../../records/task-status";
import { type Guard, guardedWrite, type Target, updatedRow } from "../../store/guarded";
import type { FieldSelection } from "../../store/list";
import { readRecord } from "../../store/reads";
import { teamRecord } from "../teams/record";
import { MAX_STATES, type StateCreateInput, type StateUpdateInput, stateRecord, type WorkflowStateDto } from "./record";

/** Who writes a team's states: its ADMIN or OWNER, or a workspace ADMIN/OWNER. */
const WRITE = { min: "ADMIN", what: "change this team's workflow states" } as const;
/** The categories a team keeps at least one state of (so a task always has a default, a done and a canceled state). */
const KEPT: readonly StateCategoryDto[] = ["unstarted", "completed", "canceled"];
/** A new state's colour when the body gives none: its category's, as the defaults have it. */
const COLORS: Record<StateCategoryDto, string> = {
  backlog: "#BEC2C8",
  unstarted: "#E2E2E2",
  started: "#F2C94C",
  completed: "#5E6AD2",
  canceled: "#95A2B3",
};

/** The WorkflowState answer of state `id`, read in the statement that wrote it (its CTE `workflow_states` shadows the table). */
const written = (id: SQL): SQL<WorkflowStateDto | null> =>
  sql`(select ${stateRecord.json()} from ${stateRecord.from} where ${workflowStates.id} = ${id})`;

/**
 * A condition that is true once this transaction holds its team's lock of state writes: taken in the target's condition,
 * before any row of it, so a team's state writes queue and each reads what the one before left. Two deletes of a team's
 * last two states of a category each locked its own row, then waited for the other's (a deadlock, 409 to one of them)
 * where the second must read the first's and be 422; two creates could both count 49 states and make 51.
 */
const stateWritesQueued = (teamId: SQL | AnyColumn): SQL =>
  sql`pg_advisory_xact_lock(hashtextextended('states:' || ${teamId}, 0)) is not null`;

/** The team `teamId` (id or prefix) in the caller's workspace and teams, under `guards`, its state writes queued. */
const teamTarget = (caller: Caller, teamId: string, guards: Guard[]): Target => ({
  from: sql`${teams}`,
  where: and(
    nameMatch("team", teams.id, teamId, caller.actor.workspace),
    eq(teams.workspaceId, caller.actor.workspace),
    stateWritesQueued(teams.id),
  )!,
  columns: { id: teams.id },
  guards,
  name: "Team",
  team: teams.id,
  table: teams,
});

/**
 * The state `id` in the caller's workspace and teams, under the write rule and `guards`, with `columns` for refusals,
 * its team's state writes queued.
 */
const stateTarget = (caller: Caller, id: string, guards: Guard[], columns: Target["columns"] = { id: workflowStates.id }): Target => ({
  from: sql`${workflowStates}`,
  where: and(eq(workflowStates.id, id), eq(workflowStates.workspaceId, caller.actor.workspace), stateWritesQueued(workflowStates.teamId))!,
  columns,
  guards: [teamRoleGuard(caller.actor, workflowStates.teamId, WRITE.min, WRITE.what), ...guards],
  name: "Workflow state",
  team: workflowStates.teamId,
  table: workflowStates,
});

/**
 * The target state (its row's `category`) may stop being of that category: it is not one the team keeps, or another of
 * the team's states has it. The others are locked in id order, so concurrent writes queue and the second reads what
 * the first left.
 */
const keepsCategory = (field: string): Guard => ({
  holds: sql`(${workflowStates.category} not in (${sql.join(
    KEPT.map((c) => sql`${c}`),
    sql`, `,
  )}) or (select count(*) from (select o.id from ${workflowStates} as o where o.team_id = ${workflowStates.teamId}
      and o.category = ${workflowStates.category} order by o.id for update) as same where same.id <> ${workflowStates.id}) > 0)`,
  readsTarget: true,
  refusal: (row) =>
    invalid(field, `A team keeps at least one ${row.category} state (and one unstarted, completed and canceled): this is its last one`),
});

/** GET /teams/{id}/states: every state of the team, in position order, in one query (a team has at most 50). */
export function listStates(caller: Caller, teamId: string): Promise<WorkflowStateDto[]> {
  return caller.read(async (actor) => {
    const { rows } = await caller.db.execute<{ states: WorkflowStateDto[] }>(sql`
      select (select coalesce(json_agg(${stateRecord.json()} order by ${workflowStates.position}, ${workflowStates.id}), '[]'::json)
          from ${workflowStates} where ${workflowStates.teamId} = ${teams.id}) as states
      from ${teams} where ${and(teamRecord.inReach(actor), nameMatch("team", teams.id, teamId, actor.workspace))} limit 1`);
    if (!rows[0]) throw notFound("Team");
    return rows[0].states;
  });
}

/** GET /states/{id}: whoever reads its team. */
export function getState(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<WorkflowStateDto> {
  return readRecord(caller, stateRecord, id, fields);
}

/**
 * POST /teams/{id}/states: a team ADMIN (or workspace ADMIN/OWNER); at most 50 a team (422); a key or a name the team
 * has already is 409. Without `position`, after the last; without `color`, its category's.
 */
export function createState(caller: Caller, teamId: string, input: StateCreateInput): Promise<WorkflowStateDto> {
  const id = newId("sta");
  const room: Guard = {
    holds: sql`(select count(*) from ${workflowStates} where ${workflowStates.teamId} = ${teams.id}) < ${MAX_STATES}`,
    refusal: () => invalid("key", `A team has at most ${MAX_STATES} workflow states`),
  };
  const target = teamTarget(caller, teamId, [teamRoleGuard(caller.actor, teams.id, WRITE.min, WRITE.what), room]);
  const position = input.position ?? sql`(select coalesce(max(o.position) + 1, 0) from ${workflowStates} as o where o.team_id = t.id)`;
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [
      sql`workflow_states as (insert into ${workflowStates}
          (id, workspace_id, team_id, key, name, category, position, color, description, creator_id)
        select ${id}, t.workspace_id, t.id, ${input.key}, ${input.name}, ${input.category}::state_category, ${position}::float8,
          ${input.color ?? COLORS[input.category]},
          ${input.description ?? ""}, ${caller.actor.user}
        from ${teams} as t where t.id = ${allowed} returning *)`,
    ],
    result: written(sql`${id}`),
  }));
}

/**
 * PATCH /states/{id}: everything but `key`. A new category reaches the state's tasks in this statement (their
 * `statusCategory` and times: one `task.updated` each), and may not take away the team's last state of a kept category.
 */
export function updateState(caller: Caller, id: string, input: StateUpdateInput): Promise<WorkflowStateDto> {
  const { category } = input;
  const recategorized = category !== undefined;
  const keeps = keepsCategory("category");
  const guards = recategorized
    ? [{ ...keeps, holds: sql`(${workflowStates.category} = ${category}::state_category or ${keeps.holds})` }]
    : [];
  const target = stateTarget(caller, id, guards, { id: workflowStates.id, category: workflowStates.category });
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [
      updatedRow(caller, "workflow_states", workflowStates, { ...input }, allowed),
      ...(recategorized
        ? [
            sql`recategorized as (update ${tasks} set status_category = ${category}, updated_at = now()
              from workflow_states as s where ${tasks.teamId} = s.team_id and ${tasks.status} = s.key
                and ${tasks.statusCategory} <> ${category} returning 1)`,
          ]
        : []),
    ],
    result: written(sql`(select id from workflow_states)`),
  }));
}

/**
 * DELETE /states/{id}?moveTo=<key or name>: the tasks holding it move to `moveTo` (another state of the team) in this
 * statement, one `task.updated` each; without `moveTo` while tasks hold it, 409 with their count. The team's last state
 * of a kept category stays (422).
 */
export async function deleteState(caller: Caller, id: string, moveTo?: string): Promise<void> {
  const held = sql`(select count(*)::int from ${tasks} where ${tasks.teamId} = ${workflowStates.teamId} and ${tasks.status} = ${workflowStates.key})`;
  const destination =
    moveTo === undefined
      ? sql`null::text`
      : sql`(select m.key from ${workflowStates} as m where m.team_id = ${workflowStates.teamId} and m.id <> ${workflowStates.id}
          and (m.key = upper(${moveTo}) or m.name_key = lower(${moveTo})) order by m.key = upper(${moveTo}) desc limit 1)`;
  const guards: Guard[] = [
    ...(moveTo === undefined
      ? []
      : [
          {
            holds: sql`${destination} is not null`,
            refusal: () => invalid("moveTo", "Must name another workflow state of the team: its key or its name, in any case"),
          },
        ]),
    keepsCategory("id"),
    {
      holds: moveTo === undefined ? sql`${held} = 0` : sql`true`,
      readsTarget: true,
      refusal: (row) => conflict("Tasks hold this state: give moveTo, the state they move to", { tasks: row.tasks as number }),
    },
  ];
  const target = stateTarget(caller, id, guards, {
    id: workflowStates.id,
    teamId: workflowStates.teamId,
    key: workflowStates.key,
    category: workflowStates.category,
    tasks: held,
    moveTo: destination,
  });
  await guardedWrite(caller, target, (allowed) => ({
    ctes: [
      sql`moved as (update ${tasks} set status = target."moveTo", updated_at = now() from target
        where target.id = ${allowed} and target."moveTo" is not null and ${tasks.teamId} = target."teamId" and ${tasks.status} = target.key
        returning 1)`,
      sql`deleted as (delete from ${workflowStates} where ${workflowStates.id} = ${allowed} returning id)`,
    ],
    result: sql<boolean | null>`(select true from deleted)`,
  }));
}
