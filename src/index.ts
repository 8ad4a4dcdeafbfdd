import { app } from "./app";
import { withOwnDb } from "./db/client";
import { relayDueEmails } from "./email/relay";
import type { Env } from "./env";
import { relayFileDeletions } from "./files/deletions";
import { SWEEP_CRON, sweepFiles, sweepGraceMs } from "./files/sweep";
import { eventRenderingOf } from "./http/module";
import { pruneEvents } from "./records/events";
import { MODULES } from "./resources";
import { rollOverCycles } from "./resources/cycles/rollover";
import { pruneImports } from "./resources/transfer/staged";
import { relayDueWebhooks } from "./webhooks/relay";

export { RateLimiter } from "./core/rate-limiter";

export default {
  fetch: app.fetch,
  // The Cron Trigger (wrangler.toml [triggers]): email still in the outbox after its send is sent again; events past
  // their 30 days go; webhook deliveries that are due and not in the queue (a lost or failed send) go to it; imports sent
  // in parts lose their stored records once committed, and go whole after their 24 h. Deleted files' bytes still
  // in the outbox go to the files queue again. Ended cycles roll over (their open tasks to the next cycle). The hourly trigger (SWEEP_CRON) runs the sweep alone: it repairs what a
  // stop between two steps left.
  scheduled(controller, env, ctx) {
    if (controller.cron === SWEEP_CRON) {
      ctx.waitUntil(withOwnDb(env, (db) => sweepFiles(db, env, { graceMs: sweepGraceMs(env) })));
      return;
    }
    ctx.waitUntil(relayDueEmails(env));
    ctx.waitUntil(withOwnDb(env, pruneEvents));
    ctx.waitUntil(withOwnDb(env, (db) => relayDueWebhooks(db, env, eventRenderingOf(MODULES))));
    ctx.waitUntil(withOwnDb(env, pruneImports));
    ctx.waitUntil(withOwnDb(env, (db) => relayFileDeletions(db, env)));
    ctx.waitUntil(withOwnDb(env, rollOverCycles));
  },
} satisfies ExportedHandler<Env>;
