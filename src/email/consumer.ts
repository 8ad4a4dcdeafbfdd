import type { EmailMessage } from "../core/email-messages";
import { errorSummary } from "../core/error-chain";
import { RequestDb } from "../db/client";
import type { Env } from "../env";
import { emailDelivered } from "./outbox";
import { type EmailProvider, emailProvider } from "./providers";
import { renderEmail } from "./render";

const MAX_BACKOFF_SECONDS = 600;

/** The wait before the next try after failed attempt `attempts` (1-based): 2, 4, 8, … seconds, at most 10 minutes. */
export const retryDelaySeconds = (attempts: number) => Math.min(MAX_BACKOFF_SECONDS, 2 ** attempts);

/**
 * Queue consumer: render and deliver each message, then take the delivered ones out of the outbox in one statement; a
 * failure is retried with backoff, and after the consumer's max_retries the queue moves it to the dead-letter queue
 * (workers/email/wrangler.toml).
 * `provider` is the one the configuration names unless a test passes another.
 */
export async function consumeEmails(
  batch: MessageBatch<EmailMessage>,
  env: Env,
  provider: EmailProvider = emailProvider(env),
): Promise<void> {
  const rdb = new RequestDb(env);
  try {
    const delivered: Message<EmailMessage>[] = [];
    for (const message of batch.messages) {
      try {
        const mail = message.body;
        await provider.deliver(rdb.db, mail.id, mail.to, renderEmail(mail));
        delivered.push(message);
      } catch (err) {
        // The message id, not its content: the body holds codes and invite tokens.
        console.error(`email ${message.body?.id} attempt ${message.attempts} failed: ${errorSummary(err)}`);
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
      }
    }
    if (delivered.length === 0) return;
    // Delivered: the relay stops sending them, one statement for the batch. Should it fail, each retry finds its mail
    // delivered (the provider's record) and tries the receipt again.
    try {
      await emailDelivered(
        rdb.db,
        delivered.map((message) => message.body.id),
      );
      for (const message of delivered) message.ack();
    } catch (err) {
      console.error(`email receipts of ${delivered.length} delivered mail(s) failed: ${errorSummary(err)}`);
      for (const message of delivered) message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  } finally {
    await rdb.close();
  }
}
