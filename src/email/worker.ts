// Entry of the email queue-consumer worker (workers/email/wrangler.toml).

import type { EmailMessage } from "../core/email-messages";
import type { Env } from "../env";
import { consumeEmails } from "./consumer";

export default {
  async fetch() {
    return new Response("email consumer", { status: 404 });
  },
  queue: (batch: MessageBatch<EmailMessage>, env: Env) => consumeEmails(batch, env),
} satisfies ExportedHandler<Env, EmailMessage>;
