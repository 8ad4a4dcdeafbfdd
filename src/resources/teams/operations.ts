// The team operations, one function each, called by the REST routes and the MCP tools. Each write is one statement that
// authenticates and authorizes itself and says why it wrote nothing (guardedWrite); a move under a new parent first
// takes the workspace's team-tree lock and checks for cycles, in a transaction around that same statement.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { teamMembers, teams, workspaces } from "../../../drizzle/schema";
import { teamRoleGuard, unboundGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { lockTeamTree } from "../../db/tree-locks";
import { newId } from "../../ids";
import { nameMatch } from "../../records/names";
import { guardedDelete, guardedWrite, readTarget, type Target, updatedRow } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import { type TeamCreateInput, type TeamDto, type TeamUpdateInput, teamRecord } from "./record";
import { assertValidParent } from "./tree";

/** A sub-team needs team role ADMIN or higher in its parent (or workspace ADMIN/OWNER), on create and on a move. */
const SUBTEAM = { min: "ADMIN", what: "put a sub-team under this team" } as const;
const EDIT = { min: "ADMIN", what: "edit this team" } as const;
const DELETE = { min: "OWNER", what: "delete this team" } as const;

/** The fields a body stores as sent (every field of the record's map a request sets). */
function storedValues(input: TeamUpdateInput): Record<string, unknown> {
  const values = input as Record<string, unknown>;
  return Object.fromEntries(teamRecord.storedFields().flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])));
}

/** The team `id` in the caller's workspace, with `rule` as its guard. */
function teamTarget(caller: Caller, id: string, rule: { min: "ADMIN" | "OWNER"; what: string }, name = "Team"): Target {
  const { actor } = caller;
  return {
    from: sql`${teams}`,
    where: and(nameMatch("team", teams.id, id, actor.workspace), eq(teams.workspaceId, actor.workspace))!,
    columns: { id: teams.id, workspaceId: teams.workspaceId },
    guards: [teamRoleGuard(actor, teams.id, rule.min, rule.what)],
    name,
    team: teams.id,
    table: teams,
  };
}

/**
 * The Team answer of the team `id` a statement wrote (its CTE `written`): the record's FROM reads the name `teams`, here
 * the written row and its parent as the statement leaves them (a statement does not see its own writes in the table).
 */
function writtenTeam(id: SQL): { cte: SQL; result: SQL<TeamDto | null> } {
  return {
    cte: sql`teams as (select * from written union all select * from ${teams} where ${teams.id} = (select parent_id from written) and ${teams.id} <> ${id})`,
    result: sql`(select ${teamRecord.json()} from ${teamRecord.from} where ${teams.id} = ${id})`,
  };
}

/**
 * POST /teams: any workspace member creates a top-level team; a sub-team needs the parent's rights (404 "Parent team"
 * when it is not a team of the workspace). The creator becomes its OWNER in the same statement; a taken prefix is 409.
 */
export function createTeam(caller: Caller, input: TeamCreateInput): Promise<TeamDto> {
  const { actor } = caller;
  const id = newId("team");
  // The row the team goes under: its parent, or (top-level) the caller's workspace. A credential bound to teams would
  // not reach the team it creates, so it creates none.
  const unbound = unboundGuard(actor, "create teams");
  const parent = input.parentId ? teamTarget(caller, input.parentId, SUBTEAM, "Parent team") : undefined;
  const under: Target = parent
    ? { ...parent, guards: [unbound, ...parent.guards] }
    : {
        from: sql`${workspaces}`,
        where: eq(workspaces.id, actor.workspace),
        columns: { id: workspaces.id, workspaceId: workspaces.id },
        guards: [unbound],
        name: "Workspace",
        team: null,
      };
  const values = storedValues({ ...input, parentId: undefined });
  const names = Object.keys(values) as Array<keyof typeof teams.$inferInsert>;
  const written = writtenTeam(sql`${id}`);
  return guardedWrite(caller, under, (allowed) => ({
    ctes: [
      sql`written as (insert into ${teams} (id, workspace_id, parent_id, ${sql.join(
        names.map((name) => sql.identifier(teams[name].name)),
        sql`, `,
      )})
        select ${id}, target.${sql.identifier("workspaceId")}, ${input.parentId ? sql`target.id` : sql`null`}, ${sql.join(
          names.map((name) => sql`${sql.param(values[name], teams[name])}`),
          sql`, `,
        )} from target where target.id = ${allowed} returning *)`,
      sql`team_members as (insert into ${teamMembers} (id, workspace_id, team_id, user_id, role)
        select ${newId("tmbr")}, workspace_id, id, ${actor.user}, 'OWNER' from written returning *)`,
      written.cte,
    ],
    result: written.result,
  }));
}

/**
 * A new prefix renames every task and project of the team (docs/sync.md, "A team renamed"): the statement's triggers
 * write their events and keep the old prefix naming them. Before it writes anything (in the same round trip), the
 * statement takes the team's rename lock (pm_team_key), which the writes of its records hold shared: it waits for those
 * under way, and the later ones wait for it, so each event's reference is the one at its position.
 */
const renameLock = (caller: Caller, id: string) =>
  sql`select pg_advisory_xact_lock(pm_team_key(${teams.id})) from ${teams}
    where ${nameMatch("team", teams.id, id, caller.actor.workspace)} and ${teams.workspaceId} = ${caller.actor.workspace}`;

/** The update under the edit rule, answering the Team. An empty body writes nothing visible. */
function writeTeam(caller: Caller, id: string, input: TeamUpdateInput): Promise<TeamDto> {
  const values = storedValues(input);
  const written = writtenTeam(sql`(select id from written)`);
  return guardedWrite(
    caller,
    teamTarget(caller, id, EDIT),
    (allowed) => ({
      ctes: [updatedRow(caller, "written", teams, values, allowed), written.cte],
      result: written.result,
    }),
    { before: input.prefix === undefined ? [] : [renameLock(caller, id)] },
  );
}

/**
 * PATCH /teams/{id}: team ADMIN/OWNER or workspace ADMIN/OWNER. A new parent needs its rights too; the workspace's
 * team tree is then locked before the cycle check, so two concurrent moves cannot build a cycle (422 at parentId).
 */
export async function updateTeam(caller: Caller, id: string, input: TeamUpdateInput): Promise<TeamDto> {
  const { parentId } = input;
  if (!parentId) return writeTeam(caller, id, input);
  // Interactive (the WebSocket): the team, the parent and the tree's lock are read and checked before the write.
  return caller.transaction(async (tx) => {
    const team = await readTarget<{ id: string; workspaceId: string }>(tx, caller, teamTarget(caller, id, EDIT));
    const parent = await readTarget<{ id: string }>(tx, caller, teamTarget(caller, parentId, SUBTEAM, "Parent team"));
    await lockTeamTree(tx, team.workspaceId);
    await assertValidParent(tx, team.workspaceId, team.id, parent.id);
    return writeTeam(caller, team.id, { ...input, parentId: parent.id });
  });
}

/** DELETE /teams/{id}: tasks, projects and memberships go with the team (FK cascades); sub-teams stay, top-level. */
export async function deleteTeam(caller: Caller, id: string): Promise<void> {
  await guardedDelete(caller, teamTarget(caller, id, DELETE), teams);
}

/** GET /teams/{id}: with its parent and members, in one statement that authenticates itself. */
export function getTeam(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<TeamDto> {
  return readRecord(caller, teamRecord, id, fields);
}

/** GET /teams: one page, with parents and members (a correlated subquery each, skipped when `fields` leaves them out). */
export function listTeams(caller: Caller, params: ListParams): Promise<TeamDto[]> {
  return listRecords(caller, teamRecord, params);
}
