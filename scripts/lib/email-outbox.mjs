// `npm start`'s share of the email outbox (src/email/relay.ts) and of the webhook relay (src/webhooks/relay.ts). wrangler
// dev runs no Cron Triggers, so the stack fires the Worker's scheduled handler through wrangler's test route when mail or
// a webhook delivery is due (checked every DUE_CHECK_MS), and at start-up for what the last run left (its queue died with
// it); a stop waits here until the email outbox is delivered. A webhook delivery whose queue message was lost so goes
// out again within the relay's lease and one check (docs/webhooks.md, "Deliveries a restart interrupted").
import pg from "pg";

const POLL_MS = 250;
const DUE_CHECK_MS = 10_000;

/** @param {{ databaseUrl: string, baseUrl: string }} stack */
export function emailOutbox({ databaseUrl, baseUrl }) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  pool.on("error", () => {}); // PostgreSQL stopping under an idle connection is not news
  const count = async (where) => (await pool.query(`select count(*)::int as n from email_outbox where ${where}`)).rows[0].n;
  const relay = () => fetch(`${baseUrl}/__scheduled?cron=*+*+*+*+*`).then((res) => res.body?.cancel());
  // Pending deliveries past their next attempt: nothing sends them but the relay (whose own statement says which are due).
  const webhooksDue = async () =>
    (await pool.query("select exists (select 1 from webhook_deliveries where status = 'pending' and next_attempt_at <= now()) as due"))
      .rows[0].due;

  let timer;
  return {
    /** Sends everything the last run left in the outbox (due at once: nothing of it is in a queue any more); how many. */
    async relayLeftovers() {
      const { rowCount } = await pool.query("update email_outbox set relay_after = now() where expires_at > now()");
      if (rowCount > 0 || (await webhooksDue())) await relay();
      return rowCount;
    },
    /** What the Cron Trigger does in production, while the stack runs: resends mail and webhook deliveries that are due. */
    relayWhenDue() {
      timer = setInterval(async () => {
        try {
          if ((await count("relay_after <= now() and expires_at > now()")) > 0 || (await webhooksDue())) await relay();
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
