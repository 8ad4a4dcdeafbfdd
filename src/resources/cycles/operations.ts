// The cycle operations, one function each, called by the REST routes and the MCP tools. Each is one statement that
// authenticates and authorizes itself and says why it wrote nothing (guardedWrite). The exclusion constraint
// `cycles_no_overlap` keeps a team's cycles apart, also under concurrent writes (422 at `startsAt`: the error mapper).
import { and, eq, type SQL, sql } from "drizzle-orm";
import { cycles, teams } from "../../../drizzle/schema";
import { teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { conflict, invalid } from "../../core/errors";
import { newId } from "../../ids";
import { nameMatch } from "../../records/names";
import { type Guard, guardedDelete, guardedWrite, type Target, updatedRow } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import { teamCounterMoved } from "../teams/record";
import { type CycleCreateInput, type CycleDto, type CycleInput, cycleRecord, MAX_CYCLE_MS } from "./record";

const CREATE = { min: "MEMBER", what: "plan cycles in this team" } as const;
const WRITE = { min: "MEMBER", what: "change this team's cycles" } as const;

/** The Cycle answer of the cycle `id`, read in the statement that wrote it (its CTE `cycles` shadows the table). */
const written = (id: SQL): SQL<CycleDto | null> => sql`(select ${cycleRecord.json()} from ${cycleRecord.from} where ${cycles.id} = ${id})`;

/** Why a cycle's dates are refused: 422 at `field` (`endsAt` unless only `startsAt` was sent). */
function datesGuard(holds: SQL, field: "startsAt" | "endsAt"): Guard {
  return {
    holds,
    refusal: () => invalid(field, "Must make the cycle end after it starts, at most 26 weeks later"),
  };
}

/** Whether [startsAt, endsAt) is a cycle's span: ends after it starts, at most 26 weeks. */
const spanHolds = (startsAt: SQL, endsAt: SQL) =>
  sql`(${endsAt} > ${startsAt} and ${endsAt} - ${startsAt} <= ${`${MAX_CYCLE_MS} milliseconds`}::interval)`;

/** The team a create names, in the caller's workspace, with the rules of a create there (the role, then the dates). */
function teamTarget(caller: Caller, input: CycleCreateInput): Target {
  const { actor } = caller;
  const [startsAt, endsAt] = [sql`${input.startsAt}::timestamptz`, sql`${input.endsAt}::timestamptz`];
  return {
    from: sql`${teams}`,
    where: and(nameMatch("team", teams.id, input.teamId, actor.workspace), eq(teams.workspaceId, actor.workspace))!,
    columns: { id: teams.id },
    guards: [teamRoleGuard(actor, teams.id, CREATE.min, CREATE.what), datesGuard(spanHolds(startsAt, endsAt), "endsAt")],
    name: "Team",
    team: teams.id,
    table: teams,
  };
}

/** The cycle `idOrRef` (`cyc_…` or `ENG-C3`), in the caller's workspace, with the rule of the operation. */
function cycleTarget(caller: Caller, idOrRef: string, guards: Guard[] = []): Target {
  const { actor } = caller;
  return {
    from: sql`${cycles} join ${teams} on ${teams.id} = ${cycles.teamId}`,
    where: and(eq(cycles.workspaceId, actor.workspace), nameMatch("cycle", cycles.id, idOrRef, actor.workspace))!,
    columns: { id: cycles.id },
    guards: [teamRoleGuard(actor, cycles.teamId, WRITE.min, WRITE.what), ...guards],
    name: "Cycle",
    team: cycles.teamId,
    table: cycles,
  };
}

/**
 * POST /cycles: the number from the team's cycle counter (its row lock serialises concurrent creates, so numbers are
 * consecutive and never reused); the name defaults to `Cycle <number>`.
 */
export function createCycle(caller: Caller, input: CycleCreateInput): Promise<CycleDto> {
  const id = newId("cyc");
  return guardedWrite(caller, teamTarget(caller, input), (allowed) => ({
    ctes: [
      teamCounterMoved("cycle_counter", allowed),
      sql`cycles as (insert into ${cycles} (id, workspace_id, team_id, number, name, description, starts_at, ends_at)
        select ${id}, counter.workspace_id, counter.id, counter.cycle_counter, coalesce(${input.name ?? null}::text, 'Cycle ' || counter.cycle_counter),
          ${input.description ?? ""}, ${input.startsAt}::timestamptz, ${input.endsAt}::timestamptz from counter returning *)`,
    ],
    result: written(sql`${id}`),
  }));
}

/**
 * PATCH /cycles/{id}: partial. An ended cycle's dates are fixed (409); the dates, merged with the stored ones, must
 * still make a cycle's span (422). An empty body writes nothing visible.
 */
export function updateCycle(caller: Caller, idOrRef: string, input: CycleInput): Promise<CycleDto> {
  const dated = input.startsAt !== undefined || input.endsAt !== undefined;
  const startsAt = input.startsAt === undefined ? sql`${cycles.startsAt}` : sql`${input.startsAt}::timestamptz`;
  const endsAt = input.endsAt === undefined ? sql`${cycles.endsAt}` : sql`${input.endsAt}::timestamptz`;
  const guards: Guard[] = dated
    ? [
        { holds: sql`now() < ${cycles.endsAt}`, refusal: () => conflict("An ended cycle's dates are fixed") },
        datesGuard(spanHolds(startsAt, endsAt), input.endsAt === undefined ? "startsAt" : "endsAt"),
      ]
    : [];
  const values = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (values.startsAt) values.startsAt = new Date(values.startsAt);
  if (values.endsAt) values.endsAt = new Date(values.endsAt);
  return guardedWrite(caller, cycleTarget(caller, idOrRef, guards), (allowed) => ({
    ctes: [updatedRow(caller, "cycles", cycles, values, allowed)],
    result: written(sql`(select id from cycles)`),
  }));
}

/** DELETE /cycles/{id}: its tasks stay, with `cycleId` cleared (foreign key set null: one `task.updated` each). */
export async function deleteCycle(caller: Caller, idOrRef: string): Promise<void> {
  await guardedDelete(caller, cycleTarget(caller, idOrRef), cycles);
}

/** GET /cycles/{id}: by id or name (`ENG-C3`), with its progress, in one statement that authenticates itself. */
export function getCycle(caller: Caller, idOrRef: string, fields: FieldSelection | null = null): Promise<CycleDto> {
  return readRecord(caller, cycleRecord, idOrRef, fields);
}

/** GET /cycles: one page (limit + 1 rows) in one query whatever the page size. */
export function listCycles(caller: Caller, params: ListParams): Promise<CycleDto[]> {
  return listRecords(caller, cycleRecord, params);
}
