import type { EmailMessage } from "../core/email-messages";
import type { Env } from "../env";
import { newId } from "../ids";

type Unsent = EmailMessage extends infer M ? (M extends EmailMessage ? Omit<M, "id"> : never) : never;

/** Puts an email on the queue (never sent inside the request); the id makes redelivery idempotent. */
export async function enqueueEmail(env: Pick<Env, "EMAIL_QUEUE">, message: Unsent): Promise<void> {
  await env.EMAIL_QUEUE.send({ ...message, id: newId("mail") } as EmailMessage, { contentType: "json" });
}
