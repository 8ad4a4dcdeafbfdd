// The rollover (docs/api.md, "Cycles"): once a cycle has ended, its tasks not completed or canceled move to its team's
// next cycle (the earliest starting at or after its end; none: they stay), and its progress is frozen as it was. The
// Cron Trigger runs it every minute (src/index.ts `scheduled`; under `npm start` the launcher fires the same handler:
// scripts/lib/stack.mjs). Each batch is ONE statement: the ended cycles not yet rolled over are locked (skip locked: a
// second scheduler running at once takes others or none), frozen and their tasks moved together, so a stop half way
// leaves each cycle either wholly done or wholly to do, and nothing moves twice. The events say the system did it.
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/client";
import { isClosed } from "../../records/task-status";
import { liveProgress } from "./record";

const BATCH = 100;

/** The events' context of the system's own writes: no user, `via: "system"` (rendered as the SYSTEM actor). */
const SYSTEM_CONTEXT = JSON.stringify({ actor: null, via: "system", requestId: null });

/** Rolls over every ended cycle not yet rolled over, a batch a statement; how many cycles it rolled over. */
export async function rollOverCycles(db: Executor): Promise<number> {
  let total = 0;
  for (;;) {
    const { rows } = await db.execute<{ cycles: number }>(sql`
      with due as (select c.id, c.team_id, c.ends_at, ${liveProgress(sql`c.id`)} as progress from cycles c
          where c.ends_at <= now() and c.frozen_progress is null and (select set_config('pm.ctx', ${SYSTEM_CONTEXT}, true) is not null)
          order by c.ends_at limit ${BATCH} for update of c skip locked),
        frozen as (update cycles set frozen_progress = due.progress from due where cycles.id = due.id returning cycles.id),
        next as (select due.id as ended, (select n.id from cycles n where n.team_id = due.team_id and n.starts_at >= due.ends_at
            order by n.starts_at limit 1) as id from due),
        moved as (update tasks t set cycle_id = next.id, updated_at = now() from next
          where t.cycle_id = next.ended and next.id is not null
            and not ${isClosed(sql`t.status_category`)}
          returning t.id)
      select (select count(*) from frozen)::int as cycles, (select count(*) from moved)::int as tasks`);
    total += rows[0].cycles;
    if (rows[0].cycles < BATCH) return total;
  }
}
