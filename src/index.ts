import { app } from "./app";
import { RequestDb } from "./db/client";
import { relayDueEmails } from "./email/relay";
import type { Env } from "./env";
import { pruneEvents } from "./records/events";
import { relayDueWebhooks } from "./webhooks/relay";

export { RateLimiter } from "./core/rate-limiter";

export default {
  fetch: app.fetch,
  // The Cron Trigger (wrangler.toml [triggers]): email still in the outbox after its send is sent again; events past
  // their 30 days go; webhook deliveries that are due and not in the queue (a lost or failed send) go to it.
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(relayDueEmails(env));
    ctx.waitUntil(withDb(env, pruneEvents));
    ctx.waitUntil(withDb(env, (db) => relayDueWebhooks(db, env)));
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
