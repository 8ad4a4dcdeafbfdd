// The email outbox: the write that causes a mail stores it (sealed) in the same statement; the relay sends it to the
// queue after the commit and, while it is not delivered, again from the Cron Trigger. Requests run through the app over
// HTTP against the real database; only the queue binding of one request is swapped for one that fails or holds.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../src/app";
import type { EmailMessage } from "../src/core/email-messages";
import { relayDueEmails } from "../src/email/relay";
import worker from "../src/index";
import { get, uniqueEmail } from "./helpers/api";
import { newTenant, type Tenant, withDb } from "./helpers/fixtures";
import { mailTo } from "./helpers/signup";

/** A queue that records what it is given and fails (`down`) or keeps it without delivering it (`held`). */
function fakeQueue(mode: "down" | "held") {
  const given: EmailMessage[] = [];
  const take = async (messages: Array<{ body: EmailMessage }>) => {
    given.push(...messages.map((m) => m.body));
    if (mode === "down") throw new Error("queue unavailable");
  };
  return {
    given,
    binding: { send: (body: EmailMessage) => take([{ body }]), sendBatch: take } as unknown as Queue<EmailMessage>,
  };
}

/** One POST through the app with `queue` as its EMAIL_QUEUE; resolves once its work after the response is done too. */
async function postWith(queue: Queue<EmailMessage>, path: string, body: unknown, key?: string) {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers["svc-api-key"] = key;
  const res = await app.fetch(
    new Request(`http://api.test${path}`, { method: "POST", headers, body: JSON.stringify(body) }),
    { ...env, EMAIL_QUEUE: queue },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const timing = res.headers.get("server-timing") ?? "";
  return { status: res.status, body: (await res.json()) as any, queries: Number(/desc="(\d+) queries"/.exec(timing)?.[1]) };
}

/** The Cron Trigger firing: the Worker's scheduled handler, run to the end of its work. */
async function cron() {
  const ctx = createExecutionContext();
  worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** The code or invite token a mail carries. */
const secretOf = (m: EmailMessage) =>
  m.template === "invite" ? m.data.token : m.template === "webhook_disabled" || m.template === "notification" ? "" : m.data.code;

type OutboxRow = { id: string; sealed_message: string; relays: number; wait_s: number; expires_at: Date };
const outboxRow = (id: string) =>
  withDb(async (db) => {
    const { rows } = await db.execute<OutboxRow>(sql`
      select id, sealed_message, relays, extract(epoch from relay_after - now())::float as wait_s, expires_at
      from email_outbox where id = ${id}`);
    return rows[0];
  });
/** As the clock would after the wait: the mail is due for a resend now. */
const makeDue = (id: string) => withDb((db) => db.execute(sql`update email_outbox set relay_after = now() where id = ${id}`));
const mailboxOf = async (to: string) => (await get(`/_dev/mailbox?to=${encodeURIComponent(to)}`)).body.messages as unknown[];

describe("email outbox", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant("Outbox");
  });

  it("stores the mail with the write, sealed (no code or token in the row), and drops it once delivered", async () => {
    const queue = fakeQueue("held");
    const invitee = uniqueEmail("outbox-sealed");
    const signee = uniqueEmail("outbox-sealed");
    expect((await postWith(queue.binding, "/invites", { email: invitee }, t.owner.key)).status).toBe(201);
    const signup = await postWith(queue.binding, "/signup/start", { email: signee });
    expect(signup.status).toBe(200);
    expect(signup.queries).toBe(1); // the code row and its mail: one statement
    expect(queue.given.map((m) => m.to)).toEqual([invitee, signee]);
    for (const message of queue.given) {
      const row = await outboxRow(message.id);
      expect(row, `outbox row of ${message.to}`).toBeDefined();
      expect(secretOf(message).length).toBeGreaterThanOrEqual(6);
      expect(JSON.stringify(row)).not.toContain(secretOf(message));
      expect(JSON.stringify(row)).not.toContain(message.to);
    }
    // What the held queue kept now reaches the real one: delivered, and out of the outbox.
    await env.EMAIL_QUEUE.sendBatch(queue.given.map((body) => ({ body, contentType: "json" as const })));
    expect((await mailTo(invitee)).text).toContain(secretOf(queue.given[0]));
    await mailTo(signee);
    for (const message of queue.given) {
      await expect.poll(() => outboxRow(message.id)).toBeUndefined();
    }
  });

  it("a queue that fails after the commit fails nothing and loses nothing: the cron's relay sends the mail, once", async () => {
    const queue = fakeQueue("down");
    const invitee = uniqueEmail("outbox-down");
    const signee = uniqueEmail("outbox-down");
    // Before the outbox, the invite answered 500 and the sign-up's code was never sent.
    const invited = await postWith(queue.binding, "/invites", { email: invitee }, t.owner.key);
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect((await postWith(queue.binding, "/signup/start", { email: signee })).status).toBe(200);
    expect(queue.given.map((m) => m.to)).toEqual([invitee, signee]);

    // Tried once after the commit; the next send waits two minutes, so a cron now sends nothing yet.
    for (const { id } of queue.given) {
      const row = await outboxRow(id);
      expect(row.relays).toBe(1);
      expect(row.wait_s).toBeGreaterThan(100);
      expect(row.wait_s).toBeLessThanOrEqual(120);
    }
    await cron();
    expect(await mailboxOf(invitee)).toEqual([]);

    // Two minutes later the cron sends them, with the same message ids; delivered once each, and gone from the outbox.
    for (const { id } of queue.given) await makeDue(id);
    await cron();
    expect((await mailTo(invitee)).text).toContain(secretOf(queue.given[0]));
    await mailTo(signee);
    for (const { id } of queue.given) await expect.poll(() => outboxRow(id)).toBeUndefined();
    await cron();
    expect(await mailboxOf(invitee)).toHaveLength(1);
    expect(await mailboxOf(signee)).toHaveLength(1);
  });

  it("waits twice as long before each further resend while the queue keeps failing", async () => {
    const queue = fakeQueue("down");
    expect((await postWith(queue.binding, "/signup/start", { email: uniqueEmail("outbox-backoff") })).status).toBe(200);
    const { id } = queue.given[0];
    for (const [relays, wait] of [
      [2, 240],
      [3, 480],
    ]) {
      await makeDue(id);
      await expect(relayDueEmails({ ...env, EMAIL_QUEUE: queue.binding })).rejects.toThrow(/email queue refused/);
      const row = await outboxRow(id);
      expect(row.relays).toBe(relays);
      expect(row.wait_s).toBeGreaterThan(wait - 20);
      expect(row.wait_s).toBeLessThanOrEqual(wait);
    }
  });

  it("drops a mail whose code has expired instead of sending it", async () => {
    const queue = fakeQueue("down");
    const email = uniqueEmail("outbox-expired");
    expect((await postWith(queue.binding, "/signup/start", { email })).status).toBe(200);
    const { id } = queue.given[0];
    await withDb((db) => db.execute(sql`update email_outbox set expires_at = now(), relay_after = now() where id = ${id}`));
    await cron();
    expect(await outboxRow(id)).toBeUndefined();
    expect(await mailboxOf(email)).toEqual([]);
  });
});
