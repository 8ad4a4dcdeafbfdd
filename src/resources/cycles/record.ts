// The Cycle record (docs/api.md, "Cycles"): its one field map gives the answer, its schema, the list's filters and sorts,
// the request bodies, the events' data and the export record. Its progress is counted in the statement that reads it
// (or, once the cycle has ended and rolled over, read as it was frozen then).
import { z } from "@hono/zod-openapi";
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { cycles, teams } from "../../../drizzle/schema";
import { NameOf, named, pathNames } from "../../records/names";
import type { StateCategoryDto as Category } from "../../records/task-status";
import { defineRecord, exportedTimestamps, f, qualified } from "../../store/field-map";
import { BodyId, LongText } from "../../store/schemas";

// A task's category (backlog, unstarted, started, completed, canceled), the one expression the cycles' progress, rollover,
// history and velocity read it through: the category its workflow state gives it (docs/api.md, "Workflow states").
/** The category of the task row `alias` (its stored `status_category`). */
export const categoryOf = (alias: string): SQL<Category> => sql`${sql.raw(alias)}.status_category::text`;

/**
 * The category an event's image `image` records. Images written before workflow states carry no `statusCategory`: their
 * status is one of the six fixed keys, each the category of the default state of that key (pm_default_states, their one list).
 */
export const imageCategoryOf = (image: string): SQL<Category> =>
  sql`coalesce(${sql.raw(image)}->>'statusCategory',
    (select d.category::text from pm_default_states() as d where d.key = ${sql.raw(image)}->>'status'))`;

/** At most 26 weeks long (docs/api.md, "Cycles"). */
export const MAX_CYCLE_MS = 26 * 7 * 24 * 3600 * 1000;

export const CycleState = z.enum(["upcoming", "active", "ended"]).openapi("CycleState");
const Tally = z.object({ tasks: z.number().int(), estimate: z.number().int() });
export const CycleProgress = z
  .object({ scope: Tally, started: Tally, completed: Tally, canceled: Tally })
  .openapi("CycleProgress", { description: "Tasks and summed estimates (points): all of the cycle's (scope), and by category" });
export type CycleProgressDto = z.infer<typeof CycleProgress>;

const Instant = z.iso
  .datetime({ offset: true, error: "Must be an ISO 8601 date-time such as 2026-03-02T00:00:00Z" })
  .openapi({ example: "2026-03-02T00:00:00.000Z" });

/** `{tasks, estimate}` of the rows of `from` (tasks as `t`) matching `where`. */
const tally = (where: SQL) =>
  sql`jsonb_build_object('tasks', count(*) filter (where ${where}), 'estimate', coalesce(sum(t.estimate) filter (where ${where}), 0))`;

/** The progress of the cycle `cycleId` as its tasks stand now, as one jsonb value. */
export const liveProgress = (cycleId: SQLWrapper): SQL<CycleProgressDto> =>
  sql`(select jsonb_build_object('scope', ${tally(sql`true`)}, 'started', ${tally(sql`${categoryOf("t")} = 'started'`)},
    'completed', ${tally(sql`${categoryOf("t")} = 'completed'`)}, 'canceled', ${tally(sql`${categoryOf("t")} = 'canceled'`)})
    from tasks t where t.cycle_id = ${cycleId})`;

/** The cycle's progress: as frozen at its end once it has rolled over, else as its tasks stand now. */
export const cycleProgress = sql<CycleProgressDto>`coalesce(${qualified(cycles.frozenProgress)}, ${liveProgress(qualified(cycles.id))})`;

/** `upcoming`, `active` or `ended`, from the clock. */
export const cycleState = sql`(case when now() < ${cycles.startsAt} then 'upcoming' when now() < ${cycles.endsAt} then 'active' else 'ended' end)`;

export const cycleRecord = defineRecord({
  name: "Cycle",
  resource: "cycles",
  id: cycles.id,
  workspace: cycles.workspaceId,
  team: cycles.teamId,
  ...pathNames("cycle", cycles.id),
  from: sql`${cycles} join ${teams} on ${teams.id} = ${cycles.teamId}`,
  fields: {
    id: f.id(cycles.id, { names: named("cycle"), exported: BodyId, doc: { example: "cyc_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    teamId: f.id(cycles.teamId, { names: named("team"), exported: BodyId }),
    number: f.integer(cycles.number, {
      exported: z.number().int().min(1),
      doc: { description: "Counts the team's cycles from 1; names the cycle (`ENG-C3`)" },
    }),
    reference: f.text(sql`${teams.prefix} || '-C' || ${cycles.number}`, {
      list: false,
      doc: { example: "ENG-C3", description: "`<team prefix>-C<number>`, never reused" },
    }),
    name: f.text(cycles.name, {
      input: { schema: z.string().trim().min(1).max(200).openapi({ description: "Default `Cycle <number>`" }) },
      exported: true,
    }),
    description: f.text(cycles.description, { list: { sort: false }, input: { schema: LongText }, exported: true }),
    startsAt: f.datetime(cycles.startsAt, { input: { schema: Instant, create: "required" }, exported: Instant }),
    endsAt: f.datetime(cycles.endsAt, {
      input: { schema: Instant.openapi({ description: "After startsAt, at most 26 weeks later" }), create: "required" },
      exported: Instant,
    }),
    state: f.enum(cycleState, CycleState, { list: { sort: false }, doc: { description: "From the clock" } }),
    progress: f.json(cycleProgress, CycleProgress, {
      shape: { scope: true, started: true, completed: true, canceled: true },
      doc: { description: "As the tasks stand now; an ended cycle's as it was at its end" },
    }),
    ...exportedTimestamps(cycles),
  },
});

export const Cycle = cycleRecord.schema;
export type CycleDto = z.infer<typeof Cycle>;
export const CycleSelection = cycleRecord.selection;

const body = cycleRecord.createShape();
export const CycleCreate = z
  .object({ teamId: NameOf("team", "a team of the workspace"), ...body })
  .strict()
  .openapi("CycleCreate");
/** A cycle stays in its team: `teamId` here is an unknown field (422). */
export const CycleUpdate = z.object(cycleRecord.inputShape()).partial().strict().openapi("CycleUpdate");

export interface CycleInput {
  name?: string;
  description?: string;
  startsAt?: string;
  endsAt?: string;
}
export type CycleCreateInput = CycleInput & { teamId: string; startsAt: string; endsAt: string };

/** An exported cycle as an import reads it. */
export type ExportedCycle = {
  id: string;
  teamId: string;
  number: number;
  name: string;
  description: string;
  startsAt: string;
  endsAt: string;
} & Record<string, unknown>;
