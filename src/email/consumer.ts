import type { EmailMessage } from "../core/email-messages";
import { RequestDb } from "../db/client";
import type { Env } from "../env";
import { emailProvider } from "./providers";
import { renderEmail } from "./render";

const MAX_BACKOFF_SECONDS = 600;

/** Queue consumer: render and deliver each message; a failure is retried with backoff, then dead-lettered. */
export async function consumeEmails(batch: MessageBatch<EmailMessage>, env: Env): Promise<void> {
  const rdb = new RequestDb(env);
  try {
    const provider = emailProvider(env);
    for (const message of batch.messages) {
      try {
        const mail = message.body;
        await provider.deliver(rdb.db, mail.id, mail.to, renderEmail(mail));
        message.ack();
      } catch (err) {
        console.error(`email ${message.body?.id} attempt ${message.attempts} failed`, err);
        message.retry({ delaySeconds: Math.min(MAX_BACKOFF_SECONDS, 2 ** message.attempts) });
      }
    }
  } finally {
    await rdb.close();
  }
}
