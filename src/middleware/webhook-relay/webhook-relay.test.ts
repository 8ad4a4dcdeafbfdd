// The webhook relay after the response (index.ts) and from the Cron Trigger (src/webhooks/relay.ts): a request that
// wrote sends its events' deliveries to the webhook queue; a read sends nothing; a send the queue refused is sent again
// by the cron once its lease is over. Only the queue binding of a request is swapped for one that records or fails.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { newTenant, type Tenant, withDb } from "../../../test/helpers/fixtures";
import { app } from "../../app";
import type { WebhookMessage } from "../../core/webhook-messages";
import worker from "../../index";
import { RELAY_LEASE_SECONDS } from "../../webhooks/relay";

/** A queue that records what it is given, and fails when `down`. */
function fakeQueue(down = false) {
  const given: WebhookMessage[] = [];
  const take = async (messages: Array<{ body: WebhookMessage }>) => {
    given.push(...messages.map((m) => m.body));
    if (down) throw new Error("queue unavailable");
  };
  return { given, binding: { send: (body: WebhookMessage) => take([{ body }]), sendBatch: take } as unknown as Queue<WebhookMessage> };
}

async function call(queue: Queue<WebhookMessage>, method: string, path: string, key: string, body?: unknown) {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { "svc-api-key": key };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.fetch(
    new Request(`http://api.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    { ...env, WEBHOOK_QUEUE: queue },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as any };
}

const deliveriesOf = (webhookId: string) =>
  withDb(async (db) => {
    const { rows } = await db.execute<{ id: string; lease_s: number }>(
      sql`select id, extract(epoch from next_attempt_at - now())::float as lease_s from webhook_deliveries where webhook_id = ${webhookId}`,
    );
    return rows;
  });

let t: Tenant;
let webhookId: string;
beforeAll(async () => {
  t = await newTenant("Relay");
  // A receiver that is never reached: these tests stop at the queue.
  const res = await call(fakeQueue().binding, "POST", "/webhooks", t.owner.key, {
    url: "https://hooks.example.com/relay",
    events: ["label.*"],
  });
  webhookId = res.body.webhook.id;
});

describe("webhook relay", () => {
  it("sends the deliveries of a request's writes to the queue after its response; a read sends none", async () => {
    const queue = fakeQueue();
    const made = await call(queue.binding, "POST", "/labels", t.owner.key, { name: "Relayed", color: "#00FF00" });
    expect(made.status).toBe(201);
    const [delivery] = await deliveriesOf(webhookId);
    expect(queue.given).toContainEqual({ deliveryId: delivery.id, attempt: 0 });
    // Claimed: its next send is a lease away, so no other relay sends it meanwhile.
    expect(delivery.lease_s).toBeGreaterThan(RELAY_LEASE_SECONDS - 5);
    const body = await withDb((db) => db.execute<{ payload: any }>(sql`select payload from webhook_deliveries where id = ${delivery.id}`));
    expect(body.rows[0].payload).toMatchObject({ type: "label.created", resourceId: made.body.label.id });
    const reads = fakeQueue();
    expect((await call(reads.binding, "GET", "/labels", t.owner.key)).status).toBe(200);
    expect(reads.given).toEqual([]);
  });

  it("a write in a workspace without webhooks queues none and sends no relay query after its response", async () => {
    const quiet = await newTenant("Relay quiet");
    // What the request sends to the database's HTTP endpoint (the driver's fetch), by whether it takes deliveries.
    const sent: string[] = [];
    const fetch = globalThis.fetch;
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (typeof init?.body === "string") sent.push(init.body);
      return fetch(input, init);
    }) as typeof fetch;
    try {
      const none = fakeQueue();
      expect((await call(none.binding, "POST", "/labels", quiet.owner.key, { name: "Quiet", color: "#00FF00" })).status).toBe(201);
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.filter((body) => body.includes("webhook_deliveries"))).toEqual([]);
      // Where a webhook takes the write's event, the relay runs and sends it.
      const queue = fakeQueue();
      expect((await call(queue.binding, "POST", "/labels", t.owner.key, { name: "Loud", color: "#00FF00" })).status).toBe(201);
      expect(sent.filter((body) => body.includes("webhook_deliveries")).length).toBeGreaterThan(0);
      expect(queue.given).toHaveLength(1);
    } finally {
      globalThis.fetch = fetch;
    }
  });

  it("a send the queue refused goes again from the Cron Trigger once the lease is over", async () => {
    const down = fakeQueue(true);
    const made = await call(down.binding, "POST", "/labels", t.owner.key, { name: "Lost", color: "#0000FF" });
    expect(made.status).toBe(201); // the response never waits for the queue
    const lost = (await deliveriesOf(webhookId)).filter((d) => down.given.some((m) => m.deliveryId === d.id));
    expect(lost).toHaveLength(1);
    await withDb((db) => db.execute(sql`update webhook_deliveries set next_attempt_at = now() - interval '1 s' where id = ${lost[0].id}`));
    const cron = fakeQueue();
    const ctx = createExecutionContext();
    worker.scheduled(
      createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }),
      { ...env, WEBHOOK_QUEUE: cron.binding },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(cron.given).toContainEqual({ deliveryId: lost[0].id, attempt: 0 });
    await withDb((db) => db.execute(sql`update webhooks set enabled = false where id = ${webhookId}`));
  });
});
