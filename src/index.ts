import { app } from "./app";
import { relayDueEmails } from "./email/relay";
import type { Env } from "./env";

export { RateLimiter } from "./core/rate-limiter";

export default {
  fetch: app.fetch,
  // The Cron Trigger (wrangler.toml [triggers]): email still in the outbox after its send is sent again.
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(relayDueEmails(env));
  },
} satisfies ExportedHandler<Env>;
