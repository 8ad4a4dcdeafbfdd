import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { devMailbox } from "../drizzle/schema";
import type { EmailMessage } from "../src/core/email-messages";
import { consumeEmails } from "../src/email/consumer";
import { renderEmail } from "../src/email/render";
import { uniqueEmail } from "./helpers/api";
import { withDb } from "./helpers/fixtures";

const message = (body: EmailMessage, attempts = 1) => ({ id: `q-${body.id}-${attempts}`, timestamp: new Date(), attempts, body });

async function consume(messages: ReturnType<typeof message>[], bindings = env) {
  const batch = createMessageBatch<EmailMessage>("pm-email", messages);
  const ctx = createExecutionContext();
  await consumeEmails(batch, bindings as any);
  return getQueueResult(batch, ctx);
}

describe("email consumer", () => {
  it("renders and delivers a message into the dev mailbox and acks it", async () => {
    const to = uniqueEmail("consumer");
    const body: EmailMessage = { id: `mail_${crypto.randomUUID()}`, to, template: "login_code", data: { code: "424242" } };
    const result = await consume([message(body)]);
    expect(result.explicitAcks).toEqual([`q-${body.id}-1`]);
    expect(result.retryMessages).toEqual([]);
    const rows = await withDb((db) => db.select().from(devMailbox).where(eq(devMailbox.to, to)));
    expect(rows).toHaveLength(1);
    expect(rows[0].subject).toContain("424242");
    expect(rows[0].html).toContain("424242");
  });

  it("delivers a redelivered message (same message id) only once", async () => {
    const to = uniqueEmail("redelivered");
    const body: EmailMessage = { id: `mail_${crypto.randomUUID()}`, to, template: "signup_code", data: { code: "111222" } };
    await consume([message(body, 1)]);
    const again = await consume([message(body, 2)]);
    expect(again.explicitAcks).toHaveLength(1);
    const rows = await withDb((db) => db.select().from(devMailbox).where(eq(devMailbox.to, to)));
    expect(rows).toHaveLength(1);
  });

  it("retries a failed delivery with backoff instead of acking it", async () => {
    const body: EmailMessage = {
      id: `mail_${crypto.randomUUID()}`,
      to: uniqueEmail("fail"),
      template: "signup_code",
      data: { code: "000111" },
    };
    // The HTTP provider without its URL and key fails: the message must come back for a retry.
    const result = await consume([message(body, 3)], {
      ...env,
      EMAIL_PROVIDER: "http",
      EMAIL_API_URL: undefined,
      EMAIL_API_KEY: undefined,
    } as any);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m: { msgId: string }) => m.msgId)).toEqual([`q-${body.id}-3`]);
  });

  it("escapes user-supplied text in the HTML of an invite", () => {
    const mail = renderEmail({
      id: "m",
      to: "x@example.com",
      template: "invite",
      data: {
        token: "tok",
        workspaceName: "<script>alert(1)</script>",
        invitedBy: "Eve & co",
        redeemUrl: "http://api.test/invites/redeem",
      },
    });
    expect(mail.html).not.toContain("<script>");
    expect(mail.html).toContain("&lt;script&gt;");
    expect(mail.html).toContain("Eve &amp; co");
    expect(mail.text).toContain("tok");
  });
});
