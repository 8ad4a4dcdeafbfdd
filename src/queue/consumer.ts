// Entry of the queue-consumer Worker (workers/email/wrangler.toml): email from `pm-email`, webhook deliveries from
// `pm-webhooks` (docs/webhooks.md), deleted files' bytes from `pm-files`.

import type { EmailMessage } from "../core/email-messages";
import type { FileMessage } from "../core/file-messages";
import type { WebhookMessage } from "../core/webhook-messages";
import { consumeEmails } from "../email/consumer";
import type { Env } from "../env";
import { consumeFileDeletions } from "../files/consumer";
import { consumeWebhooks } from "../webhooks/consumer";

export default {
  async fetch() {
    return new Response("queue consumer", { status: 404 });
  },
  queue: (batch: MessageBatch<EmailMessage | WebhookMessage | FileMessage>, env: Env) => {
    if (batch.queue.startsWith("pm-webhooks")) return consumeWebhooks(batch as MessageBatch<WebhookMessage>, env);
    if (batch.queue.startsWith("pm-files")) return consumeFileDeletions(batch as MessageBatch<FileMessage>, env);
    return consumeEmails(batch as MessageBatch<EmailMessage>, env);
  },
} satisfies ExportedHandler<Env, EmailMessage | WebhookMessage | FileMessage>;
