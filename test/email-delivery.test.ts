// The consumer's retry schedule, with a provider adapter that fails the first attempts in front of the configured
// one (the dev mailbox here). The HTTP provider's retries, dead-lettering and redelivery are proven end to end in
// test/smoke/email-delivery.test.mjs.
import { env } from "cloudflare:test";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devMailbox, emailOutbox } from "../drizzle/schema";
import type { EmailMessage } from "../src/core/email-messages";
import { consumeEmails } from "../src/email/consumer";
import { type EmailProvider, emailProvider } from "../src/email/providers";
import { uniqueEmail } from "./helpers/api";
import { withDb } from "./helpers/fixtures";

/** The configured provider behind one that fails each delivery `failing(messageId)` says so of. */
function flaky(failing: (messageId: string) => boolean): EmailProvider & { calls: number } {
  const real = emailProvider(env as never);
  const provider = {
    name: "flaky",
    calls: 0,
    async deliver(...args: Parameters<EmailProvider["deliver"]>) {
      provider.calls++;
      if (failing(args[1])) throw new Error("provider down");
      return real.deliver(...args);
    },
  };
  return provider;
}

/** One delivery attempt of `body` as the queue makes it; what the consumer did with the message (the pool's getQueueResult drops delaySeconds). */
async function attempt(body: EmailMessage, attempts: number, provider: EmailProvider) {
  const outcome: { acked: boolean; retried?: { delaySeconds?: number } } = { acked: false };
  const message = {
    id: `q-${attempts}`,
    timestamp: new Date(),
    attempts,
    body,
    ack() {
      outcome.acked = true;
    },
    retry(options: { delaySeconds?: number } = {}) {
      outcome.retried = options;
    },
  };
  const batch = { queue: "pm-email", messages: [message], ackAll: () => {}, retryAll: () => {} };
  await consumeEmails(batch as unknown as MessageBatch<EmailMessage>, env as never, provider);
  return outcome;
}

describe("email consumer retries", () => {
  it("retries failed attempts with a doubling delay capped at 10 minutes, then delivers once and acks", async () => {
    const to = uniqueEmail("retried");
    const body: EmailMessage = { id: `mail_${crypto.randomUUID()}`, to, template: "login_code", data: { code: "777888" } };
    const failUntil = 11;
    let current = 0;
    const provider = flaky(() => current < failUntil);
    const delays: Array<number | undefined> = [];
    for (current = 1; current < failUntil; current++) {
      const outcome = await attempt(body, current, provider);
      expect(outcome.acked).toBe(false);
      delays.push(outcome.retried?.delaySeconds);
    }
    expect(delays).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 512, 600]);
    expect(await attempt(body, failUntil, provider)).toEqual({ acked: true });
    // Redelivered after its success: acked, and the mailbox still holds it once.
    expect(await attempt(body, failUntil + 1, provider)).toEqual({ acked: true });
    expect(provider.calls).toBe(failUntil + 1);
    const rows = await withDb((db) => db.select().from(devMailbox).where(eq(devMailbox.to, to)));
    expect(rows).toHaveLength(1);
  });

  it("takes a batch's delivered mails out of the outbox together, and keeps the one that failed for its retry", async () => {
    const bodies: EmailMessage[] = ["a", "b", "c"].map((n) => ({
      id: `mail_${crypto.randomUUID()}`,
      to: uniqueEmail(`batch-${n}`),
      template: "login_code",
      data: { code: "123456" },
    }));
    const ids = bodies.map((b) => b.id);
    const hour = new Date(Date.now() + 3_600_000);
    await withDb((db) =>
      db.insert(emailOutbox).values(ids.map((id) => ({ id, sealedMessage: "sealed", expiresAt: hour, relayAfter: hour }))),
    );
    const failing = ids[1];
    const provider = flaky((messageId) => messageId === failing);
    const outcomes = bodies.map(() => ({ acked: false, retried: false }));
    const messages = bodies.map((body, i) => ({
      id: `q-${i}`,
      timestamp: new Date(),
      attempts: 1,
      body,
      ack: () => {
        outcomes[i].acked = true;
      },
      retry: () => {
        outcomes[i].retried = true;
      },
    }));
    const batch = { queue: "pm-email", messages, ackAll: () => {}, retryAll: () => {} };
    await consumeEmails(batch as unknown as MessageBatch<EmailMessage>, env as never, provider);
    expect(outcomes).toEqual([
      { acked: true, retried: false },
      { acked: false, retried: true },
      { acked: true, retried: false },
    ]);
    const left = await withDb((db) => db.select({ id: emailOutbox.id }).from(emailOutbox).where(inArray(emailOutbox.id, ids)));
    expect(left.map((r) => r.id)).toEqual([failing]);
    await withDb((db) => db.delete(emailOutbox).where(eq(emailOutbox.id, failing)));
  });
});
