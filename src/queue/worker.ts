// Entry of the queue-consumer worker (workers/email/wrangler.toml): email from `pm-email`, webhook deliveries from
// `pm-webhooks` (docs/webhooks.md).

import type { EmailMessage } from "../core/email-messages";
import type { WebhookMessage } from "../core/webhook-messages";
import { consumeEmails } from "../email/consumer";
import type { Env } from "../env";
import { consumeWebhooks } from "../webhooks/consumer";

export default {
  async fetch() {
    return new Response("email consumer", { status: 404 });
  },
  queue: (batch: MessageBatch<EmailMessage | WebhookMessage>, env: Env) =>
    batch.queue.startsWith("pm-webhooks")
      ? consumeWebhooks(batch as MessageBatch<WebhookMessage>, env)
      : consumeEmails(batch as MessageBatch<EmailMessage>, env),
} satisfies ExportedHandler<Env, EmailMessage | WebhookMessage>;
