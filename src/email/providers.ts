import { eq } from "drizzle-orm";
import { devMailbox, emailDeliveries } from "../../drizzle/schema";
import type { RenderedEmail } from "../core/email-messages";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { newId } from "../ids";

/** Delivers one rendered email at most once per message id. */
export interface EmailProvider {
  name: string;
  deliver(db: Db, messageId: string, to: string, mail: RenderedEmail): Promise<void>;
}

/** Local development and tests: the mail is kept in the dev mailbox table (unique message id = idempotent). */
const devMailboxProvider: EmailProvider = {
  name: "dev",
  async deliver(db, messageId, to, mail) {
    await db
      .insert(devMailbox)
      .values({ id: newId("mail"), messageId, to, ...mail })
      .onConflictDoNothing({ target: devMailbox.messageId });
  },
};

/** Production: an HTTP email API (JSON POST with bearer key); the message id doubles as idempotency key. */
function httpProvider(env: Env): EmailProvider {
  return {
    name: "http",
    async deliver(db, messageId, to, mail) {
      const [done] = await db.select().from(emailDeliveries).where(eq(emailDeliveries.messageId, messageId));
      if (done) return;
      if (!env.EMAIL_API_URL || !env.EMAIL_API_KEY) throw new Error("EMAIL_API_URL and EMAIL_API_KEY must be set");
      const res = await fetch(env.EMAIL_API_URL, {
        method: "POST",
        headers: {
          authorization: `Bearer ${env.EMAIL_API_KEY}`,
          "content-type": "application/json",
          "idempotency-key": messageId,
        },
        body: JSON.stringify({ from: env.EMAIL_FROM ?? "no-reply@example.com", to: [to], ...mail }),
      });
      if (!res.ok) throw new Error(`email provider answered ${res.status}`);
      await db.insert(emailDeliveries).values({ messageId, provider: "http" }).onConflictDoNothing();
    },
  };
}

export function emailProvider(env: Env): EmailProvider {
  if (env.EMAIL_PROVIDER === "http") return httpProvider(env);
  if (env.DEV_MAILBOX === "true") return devMailboxProvider;
  throw new Error("No email provider configured: set EMAIL_PROVIDER=http or DEV_MAILBOX=true");
}
