import { app } from "./app";
import { RequestDb } from "./db/client";
import { relayDueEmails } from "./email/relay";
import type { Env } from "./env";
import { pruneEvents } from "./records/events";

export { RateLimiter } from "./core/rate-limiter";

export default {
  fetch: app.fetch,
  // The Cron Trigger (wrangler.toml [triggers]): email still in the outbox after its send is sent again; events past
  // their 30 days go.
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(relayDueEmails(env));
    ctx.waitUntil(withDb(env, pruneEvents));
  },
} satisfies ExportedHandler<Env>;

/** Work of the Cron Trigger on a connection of its own. */
async function withDb(env: Env, work: (db: RequestDb["db"]) => Promise<void>): Promise<void> {
  const rdb = new RequestDb(env);
  try {
    await work(rdb.db);
  } finally {
    await rdb.close();
  }
}
