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

const PROVIDER_TIMEOUT_MS = 10_000;

/**
 * Production: an HTTP email API (JSON POST with bearer key). The delivery record is taken and the call made in one
 * transaction: committed only after the provider accepted the mail, rolled back (so a retry sends) when it did not.
 * A redelivered message finds the record and is not sent again; one delivered concurrently waits on the record's
 * unique key and then finds it. What is left is the commit after a successful call: if it fails, a redelivery sends
 * again, so the message id also goes as `Idempotency-Key` for a provider that drops such a duplicate (Resend: 24 h).
 */
function httpProvider(env: Env): EmailProvider {
  return {
    name: "http",
    async deliver(db, messageId, to, mail) {
      if (!env.EMAIL_API_URL || !env.EMAIL_API_KEY) throw new Error("EMAIL_API_URL and EMAIL_API_KEY must be set");
      const { EMAIL_API_URL: url, EMAIL_API_KEY: key } = env;
      // Interactive (the WebSocket): the record is held while the provider is called, and committed only if it accepted.
      await db.transaction(async (tx) => {
        const taken = await tx
          .insert(emailDeliveries)
          .values({ messageId, provider: "http" })
          .onConflictDoNothing()
          .returning({ messageId: emailDeliveries.messageId });
        if (taken.length === 0) return;
        const res = await fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": messageId },
          body: JSON.stringify({ from: env.EMAIL_FROM ?? "no-reply@example.com", to: [to], ...mail }),
          // A provider that never answers must not hold the record (and a consumer) open: the message is retried.
          signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
        });
        if (!res.ok) throw new Error(`email provider answered ${res.status}`);
      });
    },
  };
}

export function emailProvider(env: Env): EmailProvider {
  if (env.EMAIL_PROVIDER === "http") return httpProvider(env);
  if (env.DEV_MAILBOX === "true") return devMailboxProvider;
  throw new Error("No email provider configured: set EMAIL_PROVIDER=http or DEV_MAILBOX=true");
}
