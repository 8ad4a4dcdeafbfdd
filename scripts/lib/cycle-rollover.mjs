// `npm start`'s share of the cycles' rollover (src/resources/cycles/rollover.ts). wrangler dev runs no Cron Triggers, so
// while a cycle has ended and not rolled over, the stack fires the Worker's scheduled handler through wrangler's test
// route, as production's every-minute Cron Trigger does: an ended cycle's open tasks move within CHECK_MS + the run.
import pg from "pg";

const CHECK_MS = 15_000;

/** @param {{ databaseUrl: string, baseUrl: string }} stack */
export function cycleRollover({ databaseUrl, baseUrl }) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on("error", () => {}); // PostgreSQL stopping under an idle connection is not news
  let timer;
  return {
    rollWhenDue() {
      timer = setInterval(async () => {
        try {
          const { rows } = await pool.query(
            "select exists (select 1 from cycles where ends_at <= now() and frozen_progress is null) as due",
          );
          if (rows[0].due) await fetch(`${baseUrl}/__scheduled?cron=*+*+*+*+*`).then((res) => res.body?.cancel());
        } catch {} // the stack is stopping, or the database is down; the next tick tries again
      }, CHECK_MS);
      timer.unref();
    },
    close() {
      clearInterval(timer);
      return pool.end();
    },
  };
}
