// `npm start`'s share of the email outbox (src/email/relay.ts). wrangler dev runs no Cron Triggers, so the stack fires
// the Worker's scheduled handler through wrangler's test route when mail is due, and at start-up for mail left by the
// last run (its queue died with it); a stop waits here until the outbox is delivered.
import pg from "pg";

const POLL_MS = 250;
const DUE_CHECK_MS = 30_000;

/** @param {{ databaseUrl: string, baseUrl: string }} stack */
export function emailOutbox({ databaseUrl, baseUrl }) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on("error", () => {}); // PostgreSQL stopping under an idle connection is not news
  const count = async (where) => (await pool.query(`select count(*)::int as n from email_outbox where ${where}`)).rows[0].n;
  const relay = () => fetch(`${baseUrl}/__scheduled?cron=*+*+*+*+*`).then((res) => res.body?.cancel());

  let timer;
  return {
    /** Sends everything the last run left in the outbox (due at once: nothing of it is in a queue any more); how many. */
    async relayLeftovers() {
      const { rowCount } = await pool.query("update email_outbox set relay_after = now() where expires_at > now()");
      if (rowCount > 0) await relay();
      return rowCount;
    },
    /** What the Cron Trigger does in production, while the stack runs: resends mail that is due. */
    relayWhenDue() {
      timer = setInterval(async () => {
        try {
          if ((await count("relay_after <= now() and expires_at > now()")) > 0) await relay();
        } catch {} // the stack is stopping, or the database is down; the next tick tries again
      }, DUE_CHECK_MS);
      timer.unref();
    },
    /** Waits until every mail of the outbox is delivered, at most `timeoutMs`; how many are still undelivered. */
    async drain(timeoutMs) {
      clearInterval(timer);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const left = await count("expires_at > now()");
        if (left === 0 || Date.now() >= deadline) return left;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
    close: () => pool.end(),
  };
}
