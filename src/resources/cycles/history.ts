// GET /cycles/{id}/history and GET /teams/{id}/velocity (docs/api.md, "Cycles"): figures computed from the stored events
// in ONE statement that authenticates itself, so a past day's figures never change. A task's state at a moment is its
// last `task.*` event's image before it (none after a delete); the tasks ever in a cycle are those an event's image
// put there (events_task_cycle_idx finds them).
import { z } from "@hono/zod-openapi";
import { and, eq, type SQL, sql } from "drizzle-orm";
import { cycles, teams } from "../../../drizzle/schema";
import type { Caller } from "../../auth/caller";
import { notFound } from "../../core/errors";
import { inTeams } from "../../db/scope";
import { nameMatch } from "../../records/names";
import { cycleProgress, cycleRecord, imageCategoryOf } from "./record";

const Tally = z.object({ tasks: z.number().int(), estimate: z.number().int() });
export const CycleDay = z
  .object({ date: z.string().openapi({ example: "2026-03-02" }), scope: Tally, started: Tally, completed: Tally, canceled: Tally })
  .openapi("CycleDay");
export const CycleHistory = z.object({ days: z.array(CycleDay) }).openapi("CycleHistory");
export type CycleDayDto = z.infer<typeof CycleDay>;
export type CycleHistoryDto = { cycle: { reference: string; name: string }; days: CycleDayDto[] };

/** `{tasks, estimate}` of the states `s` (an image `s.image`) matching `where`. */
const tally = (where: SQL) =>
  sql`json_build_object('tasks', count(s.image) filter (where ${where}), 'estimate', coalesce(sum((s.image->>'estimate')::int) filter (where ${where}), 0))`;
const category = imageCategoryOf("s.image");

/**
 * The cycle's UTC days from its start to the earlier of today and its end, each with the figures of its tasks as they
 * stood at the end of that day (the last day: now, or the cycle's end once it has ended, which its frozen progress shows).
 */
export async function cycleHistory(caller: Caller, idOrRef: string): Promise<CycleHistoryDto> {
  const { rows } = await caller.db.execute<{
    live: boolean;
    found: boolean;
    reference: string;
    name: string;
    days: CycleDayDto[] | null;
  }>(sql`
    with c as (select ${cycles.id} as id, ${cycles.workspaceId} as workspace_id, ${cycles.startsAt} as starts_at, ${cycles.endsAt} as ends_at,
        ${teams.prefix} || '-C' || ${cycles.number} as reference, ${cycles.name} as name
        from ${cycles} join ${teams} on ${teams.id} = ${cycles.teamId} where ${cycleRecord.named(caller.actor, idOrRef)}),
      days as (select d::date as day, least(d + interval '1 day', now(), c.ends_at) as at
        from c, generate_series(date_trunc('day', c.starts_at at time zone 'UTC'),
          least(date_trunc('day', now() at time zone 'UTC'), date_trunc('day', c.ends_at at time zone 'UTC')), interval '1 day') as d),
      touched as (select distinct e.resource_id as id from events e, c
        where e.resource_type = 'task' and e.new_image->>'cycle_id' = c.id and e.workspace_id = c.workspace_id),
      s as (select days.day, last.image from days cross join touched
        cross join lateral (select e.new_image as image from events e where e.resource_id = touched.id and e.resource_type = 'task'
          and e.created_at < days.at order by e.position desc limit 1) as last
        where last.image->>'cycle_id' = (select id from c))
    select ${caller.live} as live, exists (select 1 from c) as found, (select reference from c) as reference, (select name from c) as name,
      (select json_agg(row_to_json(f) order by f.date) from (
        select to_char(days.day, 'YYYY-MM-DD') as date, ${tally(sql`true`)} as scope, ${tally(sql`${category} = 'started'`)} as started,
          ${tally(sql`${category} = 'completed'`)} as completed, ${tally(sql`${category} = 'canceled'`)} as canceled
        from days left join s on s.day = days.day group by days.day) as f) as days`);
  const [row] = rows;
  if (!row.live) throw await caller.refused();
  if (!row.found) throw notFound("Cycle");
  caller.touch();
  return { cycle: { reference: row.reference, name: row.name }, days: row.days ?? [] };
}

export const VelocityCycle = z.object({ id: z.string(), number: z.number().int(), completed: Tally }).openapi("VelocityCycle");
export const Velocity = z
  .object({
    cycles: z.array(VelocityCycle),
    average: z.object({ tasks: z.number(), estimate: z.number() }).openapi({ description: "Completed per cycle (two decimals)" }),
  })
  .openapi("Velocity");
export type VelocityDto = z.infer<typeof Velocity>;

/**
 * GET /teams/{id}/velocity: what the team's last `count` ended cycles completed (their progress as frozen at their end,
 * or counted now for one the rollover has not reached yet), newest first, and the average per cycle.
 */
export async function teamVelocity(caller: Caller, teamIdOrPrefix: string, count: number): Promise<VelocityDto> {
  const { rows } = await caller.db.execute<{ live: boolean; found: boolean; cycles: VelocityDto["cycles"] | null }>(sql`
    with team as (select ${teams.id} as id from ${teams}
        where ${and(eq(teams.workspaceId, caller.actor.workspace), inTeams(caller.actor.teams, teams.id), nameMatch("team", teams.id, teamIdOrPrefix, caller.actor.workspace))}),
      ended as (select ${cycles.id} as id, ${cycles.number} as number, ${cycleProgress} as progress from ${cycles}
        where ${cycles.teamId} = (select id from team) and ${cycles.endsAt} <= now() and ${cycleRecord.inReach(caller.actor)}
        order by ${cycles.endsAt} desc limit ${count})
    select ${caller.live} as live, exists (select 1 from team) as found,
      (select json_agg(json_build_object('id', id, 'number', number, 'completed', progress->'completed') order by number desc) from ended) as cycles`);
  const [row] = rows;
  if (!row.live) throw await caller.refused();
  if (!row.found) throw notFound("Team");
  caller.touch();
  const list = row.cycles ?? [];
  const average = (key: "tasks" | "estimate") =>
    list.length ? Math.round((list.reduce((sum, c) => sum + c.completed[key], 0) / list.length) * 100) / 100 : 0;
  return { cycles: list, average: { tasks: average("tasks"), estimate: average("estimate") } };
}
