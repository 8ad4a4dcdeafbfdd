import { app } from "./app";
import { relayDueEmails } from "./email/relay";
import type { Env } from "./env";
import { relayDueWebhooks } from "./webhooks/relay";

export { RateLimiter } from "./core/rate-limiter";

export default {
  fetch: app.fetch,
  // The Cron Trigger (wrangler.toml [triggers]): email still in the outbox after its send is sent again; webhook
  // deliveries that are due and not in the queue (a lost or failed send) go to it.
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(relayDueEmails(env));
    ctx.waitUntil(relayDueWebhooks(env));
  },
} satisfies ExportedHandler<Env>;
