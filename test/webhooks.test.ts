// Webhooks (docs/webhooks.md): through HTTP against the real database, the real queue and consumer worker,
// and a real HTTP receiver on 127.0.0.1 (test/helpers/webhook-receiver.mjs). The test config shortens the timeout to 1 s
// and the retries to 1, 2, 4 s (WEBHOOK_MAX_ATTEMPTS 4).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { Webhook as Verifier } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../src/index";
import { api, del, eventually, get, patch, post } from "./helpers/api";
import { addMember, type Member, newTeam, newTenant, type Tenant, withDb } from "./helpers/fixtures";

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

let run = 0;
/** A receiver path of its own for one test: `/<kind>/<unique>`. */
const receiverPath = (kind: "ok" | "flaky" | "gone" | "slow" | "fail" | "retry") => `/${kind}/${Date.now().toString(36)}-${run++}`;
const receiverUrl = (path: string) => `${env.WEBHOOK_RECEIVER}${path}`;
async function received(path: string): Promise<Received[]> {
  const res = await fetch(`${env.WEBHOOK_RECEIVER}/_requests?path=${encodeURIComponent(path)}`);
  return ((await res.json()) as { requests: Received[] }).requests;
}
/** Waits until the receiver has had at least `n` requests at `path`. */
const receivedAtLeast = (path: string, n: number, timeoutMs = 15_000) =>
  eventually(async () => {
    const got = await received(path);
    return got.length >= n ? got : undefined;
  }, timeoutMs);

const verify = (secret: string, r: Received) =>
  new Verifier(secret).verify(r.body, {
    "webhook-id": r.headers["webhook-id"],
    "webhook-timestamp": r.headers["webhook-timestamp"],
    "webhook-signature": r.headers["webhook-signature"],
  });

/** A delivery of the webhook as the deliveries list shows it, once `done` holds for it. */
async function deliveryWhen(webhookId: string, key: string, done: (d: any) => boolean, timeoutMs = 15_000) {
  return eventually(async () => {
    const res = await get(`/webhooks/${webhookId}/deliveries`, key);
    return (res.body.deliveries as any[]).find(done);
  }, timeoutMs);
}

describe("webhooks", () => {
  let t: Tenant;
  let member: Member;
  let admin: Member;
  beforeAll(async () => {
    t = await newTenant("Hooks Co");
    member = await addMember(t, "MEMBER");
    admin = await addMember(t, "ADMIN");
  });

  const create = (body: Record<string, unknown>, key = t.owner.key) => post("/webhooks", body, key);
  const label = (key = t.owner.key) => post("/labels", { name: `L ${Date.now()} ${run++}`, color: "#123456" }, key);

  it("creates a webhook: 201, Location, the envelope, the secret only in this answer", async () => {
    const res = await create({ url: receiverUrl(receiverPath("ok")), events: ["task.*", "comment.created"], description: "CI" });
    expect(res.status).toBe(201);
    const { webhook } = res.body;
    expect(res.headers.get("location")).toBe(`/webhooks/${webhook.id}`);
    expect(webhook.id).toMatch(/^whk_[0-9a-z]{26}$/);
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(webhook).toMatchObject({ events: ["task.*", "comment.created"], description: "CI", teamIds: null, enabled: true });
    const read = await get(`/webhooks/${webhook.id}`, t.owner.key);
    expect(read.status).toBe(200);
    expect(read.body.webhook.secret).toBeUndefined();
    expect(read.body.webhook).toMatchObject({ id: webhook.id, url: webhook.url });
    const list = await get("/webhooks?filter[eq][enabled]=true&fields=id,url", admin.key);
    expect(list.status).toBe(200);
    expect(list.body.webhooks.map((w: any) => w.id)).toContain(webhook.id);
    expect(list.body.pagination).toMatchObject({ nextCursor: null });
    // The secret is stored sealed, never as sent.
    const stored = await withDb((db) =>
      db.execute<{ sealed_secret: string }>(sql`select sealed_secret from webhooks where id = ${webhook.id}`),
    );
    expect(stored.rows[0].sealed_secret).not.toContain(webhook.secret.slice(6));
  });

  it("refuses unsafe URLs and unknown event types with 422, foreign teams with 404", async () => {
    const bad = [
      "not a url",
      "ftp://example.com/hook",
      "http://example.com/hook", // http only to loopback, and only with the dev switch
      "https://10.0.0.8/hook",
      "https://192.168.1.1/hook",
      "https://172.16.5.4/hook",
      "https://100.64.0.1/hook", // CGNAT
      "https://169.254.169.254/latest/meta-data", // cloud metadata
      "https://[fd00:ec2::254]/hook",
      "https://[fe80::1]/hook",
      "https://[::ffff:10.0.0.1]/hook",
      "https://0.0.0.0/hook",
      "https://user:pw@example.com/hook",
      "https://printer.local/hook",
      "https://intranet/hook",
    ];
    for (const url of bad) {
      const res = await create({ url, events: ["*"] });
      expect(res.status, url).toBe(422);
      expect(res.body.errors.url, url).toBeDefined();
    }
    for (const events of [[], ["task.exploded"], ["tasks.*"], ["member.updated.*"], ["**"]]) {
      const res = await create({ url: "https://example.com/hook", events });
      expect(res.status, JSON.stringify(events)).toBe(422);
    }
    const ok = await create({ url: "https://hooks.example.com/pm", events: ["member.joined", "api_key.deleted", "webhook.*", "*"] });
    expect(ok.status).toBe(201);
    const other = await newTenant();
    const foreignTeam = await newTeam(other);
    const foreign = await create({ url: "https://example.com/hook", events: ["*"], teamIds: [foreignTeam.id] });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe("NOT_FOUND");
    const patched = await patch(`/webhooks/${ok.body.webhook.id}`, { url: "https://127.0.0.1.nip.io.local/x" }, t.owner.key);
    expect(patched.status).toBe(422);
    expect((await patch(`/webhooks/${ok.body.webhook.id}`, { secret: "x" }, t.owner.key)).status).toBe(422);
    // IPv4-translated (RFC 2765) and local-use NAT64 (RFC 8215) forms of private addresses, on POST and PATCH.
    for (const url of ["https://[::ffff:0:10.0.0.1]/", "https://[::ffff:0:a9fe:a9fe]/", "https://[64:ff9b:1::a00:1]/"]) {
      const created = await create({ url, events: ["*"] });
      expect([created.status, created.body.errors?.url !== undefined], url).toEqual([422, true]);
      const changed = await patch(`/webhooks/${ok.body.webhook.id}`, { url }, t.owner.key);
      expect([changed.status, changed.body.errors?.url !== undefined], url).toEqual([422, true]);
    }
    // Paused, so the events of the other tests do not go looking for hooks.example.com.
    expect((await patch(`/webhooks/${ok.body.webhook.id}`, { enabled: false }, t.owner.key)).body.webhook.enabled).toBe(false);
  });

  it("is for workspace ADMIN/OWNER only (403 for a MEMBER), and another workspace's webhook and delivery are 404", async () => {
    const mine = (await create({ url: receiverUrl(receiverPath("ok")), events: ["label.*"] })).body.webhook;
    const ping = await post(`/webhooks/${mine.id}/ping`, {}, admin.key);
    expect(ping.status).toBe(202);
    const delivery = ping.body.delivery.id;
    const calls: Array<[string, string, unknown?]> = [
      ["POST", "/webhooks", { url: "https://example.com/h", events: ["*"] }],
      ["GET", "/webhooks"],
      ["GET", `/webhooks/${mine.id}`],
      ["PATCH", `/webhooks/${mine.id}`, { description: "x" }],
      ["DELETE", `/webhooks/${mine.id}`],
      ["POST", `/webhooks/${mine.id}/rotate-secret`],
      ["POST", `/webhooks/${mine.id}/ping`],
      ["GET", `/webhooks/${mine.id}/deliveries`],
      ["POST", `/webhooks/${mine.id}/deliveries/${delivery}/redeliver`],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(method, path, { key: member.key, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    }
    const other = await newTenant("Elsewhere");
    for (const [method, path, body] of calls.slice(2)) {
      const res = await api(method, path, { key: other.owner.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // A delivery of another webhook under this one's path is 404 too.
    const second = (await create({ url: receiverUrl(receiverPath("ok")), events: ["label.*"] })).body.webhook;
    expect((await post(`/webhooks/${second.id}/deliveries/${delivery}/redeliver`, {}, t.owner.key)).status).toBe(404);
    expect((await get(`/webhooks/${mine.id}`, t.owner.key)).status).toBe(200);
  });

  it("delivers an event signed per Standard Webhooks: the published verifier accepts it", async () => {
    const path = receiverPath("ok");
    const { webhook } = (await create({ url: receiverUrl(path), events: ["label.created"] })).body;
    const made = await label();
    const [got] = await receivedAtLeast(path, 1);
    expect(got.headers["content-type"]).toBe("application/json");
    const event = verify(webhook.secret, got) as any;
    expect(event).toMatchObject({ type: "label.created", resourceType: "label", resourceId: made.body.label.id });
    expect(got.headers["webhook-id"]).toBe(event.id);
    expect(event.id).toMatch(/^evt_/);
    expect(() => verify(`whsec_${btoa("another secret of 24 b!")}`, got)).toThrow();
    const done = await deliveryWhen(webhook.id, t.owner.key, (d) => d.status === "succeeded");
    expect(done).toMatchObject({ eventId: event.id, attempts: 1, responseStatus: 200, nextAttemptAt: null });
    expect(done.id).toMatch(/^dlv_/);
    expect(done.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("signs with both secrets for 24 h after a rotation; each verifies alone", async () => {
    const path = receiverPath("ok");
    const { webhook } = (await create({ url: receiverUrl(path), events: ["label.*"] })).body;
    const rotated = await post(`/webhooks/${webhook.id}/rotate-secret`, {}, t.owner.key);
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhook.secret).toMatch(/^whsec_/);
    expect(rotated.body.webhook.secret).not.toBe(webhook.secret);
    await label();
    const [got] = await receivedAtLeast(path, 1);
    expect(got.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(verify(rotated.body.webhook.secret, got)).toBeTruthy();
    expect(verify(webhook.secret, got)).toBeTruthy();
    // Once the old secret's 24 h are over, only the new one signs.
    await withDb((db) => db.execute(sql`update webhooks set previous_secret_expires_at = now() - interval '1 s' where id = ${webhook.id}`));
    await label();
    const [, later] = await receivedAtLeast(path, 2);
    expect(later.headers["webhook-signature"].split(" ")).toHaveLength(1);
    expect(() => verify(webhook.secret, later)).toThrow();
    expect(verify(rotated.body.webhook.secret, later)).toBeTruthy();
  });

  it("a 410 answer disables the webhook at once", async () => {
    const path = receiverPath("gone");
    const { webhook } = (await create({ url: receiverUrl(path), events: ["label.created"] })).body;
    await label();
    const failed = await deliveryWhen(webhook.id, t.owner.key, (d) => d.status === "failed");
    expect(failed).toMatchObject({ attempts: 1, responseStatus: 410, nextAttemptAt: null });
    const read = await get(`/webhooks/${webhook.id}`, t.owner.key);
    expect(read.body.webhook).toMatchObject({ enabled: false, disabledReason: expect.stringContaining("410") });
    // Disabled: new events make no deliveries, a ping is 409.
    await label();
    expect((await get(`/webhooks/${webhook.id}/deliveries`, t.owner.key)).body.deliveries).toHaveLength(1);
    expect((await post(`/webhooks/${webhook.id}/ping`, {}, t.owner.key)).status).toBe(409);
    expect(await received(path)).toHaveLength(1);
  });

  // The tests that wait on retries run at once, each in a workspace of its own (so none sees another's events).
  /** A new workspace with a webhook on label.created at a receiver path of `kind`, and one label created in it. */
  const labelAlone = async (name: string, kind: Parameters<typeof receiverPath>[0]) => {
    const { key } = (await newTenant(name)).owner;
    const path = receiverPath(kind);
    const { webhook } = (await create({ url: receiverUrl(path), events: ["label.created"] }, key)).body;
    await label(key);
    return { key, path, webhook };
  };
  it.concurrent("retries a failing receiver with backoff: fails twice, then exactly one successful delivery (attempts 3)", async () => {
    const { key, path, webhook } = await labelAlone("Flaky", "flaky");
    const done = await deliveryWhen(webhook.id, key, (d) => d.status === "succeeded", 20_000);
    expect(done).toMatchObject({ attempts: 3, responseStatus: 200, status: "succeeded" });
    const got = await received(path);
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1);
    // Backoff: each retry waits longer than the one before (1 s, then 2 s, with ±20 % jitter).
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(700);
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(1500);
    // Nothing more comes once it succeeded.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await received(path)).toHaveLength(3);
  });

  it.concurrent("honours the receiver's Retry-After", async () => {
    const { key, path, webhook } = await labelAlone("Retry-After", "retry");
    const done = await deliveryWhen(webhook.id, key, (d) => d.status === "succeeded");
    expect(done.attempts).toBe(2);
    const got = await received(path);
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(900);
  });

  it.concurrent("cuts a slow receiver at the timeout (1 s here) and retries", async () => {
    const { key, webhook } = await labelAlone("Slow", "slow");
    const first = await deliveryWhen(webhook.id, key, (d) => d.attempts >= 1 && d.durationMs !== null);
    expect(first.responseStatus).toBeNull();
    // Cut, not answered: the receiver answers 200 after 10 s (a loaded machine may run the cut late, never that late).
    expect(first.durationMs).toBeGreaterThanOrEqual(900);
    expect(first.durationMs).toBeLessThan(10_000);
    expect(first.status).toBe("pending");
    // The retry is due after the cut attempt ended (the test's own clock may read it after that moment).
    expect(Date.parse(first.nextAttemptAt)).toBeGreaterThan(Date.parse(first.createdAt) + first.durationMs);
    await patch(`/webhooks/${webhook.id}`, { enabled: false }, key);
  });

  it.concurrent("gives up after the last attempt: the delivery is failed", async () => {
    const { key, path, webhook } = await labelAlone("Gives up", "fail");
    const failed = await deliveryWhen(webhook.id, key, (d) => d.status === "failed", 25_000);
    expect(failed).toMatchObject({ attempts: 4, responseStatus: 500, nextAttemptAt: null });
    expect(await received(path)).toHaveLength(4);
  }, 40_000);

  it("pings and redelivers: a new delivery of the same event, the same webhook-id", async () => {
    const path = receiverPath("ok");
    const { webhook } = (await create({ url: receiverUrl(path), events: ["task.created"] })).body;
    const ping = await post(`/webhooks/${webhook.id}/ping`, {}, t.owner.key);
    expect(ping.status).toBe(202);
    expect(ping.body.delivery).toMatchObject({ status: "pending", attempts: 0 });
    const [got] = await receivedAtLeast(path, 1);
    const body = verify(webhook.secret, got) as any;
    expect(body).toMatchObject({ type: "webhook.ping", resourceType: "webhook", resourceId: webhook.id, id: ping.body.delivery.eventId });
    const again = await post(`/webhooks/${webhook.id}/deliveries/${ping.body.delivery.id}/redeliver`, {}, t.owner.key);
    expect(again.status).toBe(202);
    expect(again.body.delivery.id).not.toBe(ping.body.delivery.id);
    expect(again.body.delivery.eventId).toBe(ping.body.delivery.eventId);
    const [, second] = await receivedAtLeast(path, 2);
    expect(second.headers["webhook-id"]).toBe(got.headers["webhook-id"]);
    expect(second.body).toBe(got.body);
    const list = await get(`/webhooks/${webhook.id}/deliveries`, t.owner.key);
    expect(list.body.deliveries.map((d: any) => d.id)).toEqual([again.body.delivery.id, ping.body.delivery.id]); // newest first
    const page = await get(`/webhooks/${webhook.id}/deliveries?limit=1`, t.owner.key);
    expect(page.body.deliveries).toHaveLength(1);
    const next = await get(
      `/webhooks/${webhook.id}/deliveries?limit=1&cursor=${encodeURIComponent(page.body.pagination.nextCursor)}`,
      t.owner.key,
    );
    expect(next.body.deliveries[0].id).toBe(ping.body.delivery.id);
  });

  it("disables a webhook that has failed for 3 days and emails its creator; enabling it again clears that", async () => {
    const path = receiverPath("fail");
    const { webhook } = (await create({ url: receiverUrl(path), events: ["label.created"] }, admin.key)).body;
    await withDb((db) => db.execute(sql`update webhooks set failing_since = now() - interval '3 days 1 minute' where id = ${webhook.id}`));
    await label();
    const read = await eventually(async () => {
      const res = await get(`/webhooks/${webhook.id}`, t.owner.key);
      return res.body.webhook.enabled === false ? res : undefined;
    });
    expect(read.body.webhook.disabledReason).toContain("3 days");
    const mail = await eventually(async () =>
      (await get(`/_dev/mailbox?to=${encodeURIComponent(admin.email)}`)).body.messages.find((m: any) =>
        m.subject.includes("Webhook disabled"),
      ),
    );
    expect(mail.text).toContain(webhook.id);
    const enabled = await patch(`/webhooks/${webhook.id}`, { enabled: true }, t.owner.key);
    expect(enabled.status).toBe(200);
    expect(enabled.body.webhook).toMatchObject({ enabled: true, disabledReason: null });
    const state = await withDb((db) =>
      db.execute<{ failing_since: Date | null }>(sql`select failing_since from webhooks where id = ${webhook.id}`),
    );
    expect(state.rows[0].failing_since).toBeNull();
    await patch(`/webhooks/${webhook.id}`, { enabled: false }, t.owner.key);
  });

  it("clears failing_since with a success", async () => {
    const path = receiverPath("ok");
    const { webhook } = (await create({ url: receiverUrl(path), events: ["label.created"] })).body;
    await withDb((db) => db.execute(sql`update webhooks set failing_since = now() - interval '1 day' where id = ${webhook.id}`));
    await label();
    await deliveryWhen(webhook.id, t.owner.key, (d) => d.status === "succeeded");
    const state = await withDb((db) =>
      db.execute<{ failing_since: Date | null }>(sql`select failing_since from webhooks where id = ${webhook.id}`),
    );
    expect(state.rows[0].failing_since).toBeNull();
  });

  it("never delivers another workspace's events, and honours teamIds", async () => {
    const team = await newTeam(t);
    const otherTeam = await newTeam(t);
    const allPath = receiverPath("ok");
    const teamPath = receiverPath("ok");
    const all = (await create({ url: receiverUrl(allPath), events: ["*"] })).body.webhook;
    const onlyTeam = (await create({ url: receiverUrl(teamPath), events: ["task.created"], teamIds: [team.id] })).body.webhook;
    const other = await newTenant("Noisy neighbour");
    await post("/labels", { name: "Theirs", color: "#000000" }, other.owner.key);
    await post("/tasks", { title: "Other team", teamId: otherTeam.id }, t.owner.key);
    const mine = await post("/tasks", { title: "Team task", teamId: team.id }, t.owner.key);
    const [got] = await receivedAtLeast(teamPath, 1);
    expect(JSON.parse(got.body)).toMatchObject({ type: "task.created", resourceId: mine.body.task.id });
    await receivedAtLeast(allPath, 2);
    await new Promise((r) => setTimeout(r, 500));
    expect(await received(teamPath)).toHaveLength(1);
    const ids = (await received(allPath)).map((r) => JSON.parse(r.body).resourceId);
    const theirs = await withDb((db) =>
      db.execute<{ id: string }>(sql`select resource_id as id from events where workspace_id = ${other.workspaceId}`),
    );
    for (const row of theirs.rows) expect(ids).not.toContain(row.id);
    expect(ids).toContain(mine.body.task.id);
    await patch(`/webhooks/${all.id}`, { enabled: false }, t.owner.key);
    await patch(`/webhooks/${onlyTeam.id}`, { enabled: false }, t.owner.key);
  });

  it("updates and deletes (204)", async () => {
    const { webhook } = (await create({ url: "https://example.com/a", events: ["task.*"] })).body;
    const team = await newTeam(t);
    const res = await patch(
      `/webhooks/${webhook.id}`,
      { url: "https://example.com/b", events: ["comment.*"], description: "d", teamIds: [team.id], enabled: false },
      t.owner.key,
    );
    expect(res.status).toBe(200);
    expect(res.body.webhook).toMatchObject({ url: "https://example.com/b", events: ["comment.*"], teamIds: [team.id], enabled: false });
    expect(res.body.webhook.secret).toBeUndefined();
    // If-Match: a stale ETag is 412 and changes nothing; the current one writes.
    const read = await get(`/webhooks/${webhook.id}`, t.owner.key);
    const etag = read.headers.get("etag")!;
    expect(etag).toMatch(/^W\//);
    const stale = await api("PATCH", `/webhooks/${webhook.id}`, {
      key: t.owner.key,
      body: { description: "e" },
      headers: { "if-match": 'W/"stale"' },
    });
    expect(stale.status).toBe(412);
    const fresh = await api("PATCH", `/webhooks/${webhook.id}`, {
      key: t.owner.key,
      body: { description: "e" },
      headers: { "if-match": etag },
    });
    expect(fresh.status).toBe(200);
    expect((await api("DELETE", `/webhooks/${webhook.id}`, { key: t.owner.key, headers: { "if-match": etag } })).status).toBe(412);
    expect((await del(`/webhooks/${webhook.id}`, t.owner.key)).status).toBe(204);
    expect((await get(`/webhooks/${webhook.id}`, t.owner.key)).status).toBe(404);
  });

  it("the dev receiver keeps what it gets, newest first; without the switch it is 404", async () => {
    const marker = `hello-${Date.now()}`;
    const res = await api("POST", "/_dev/webhooks", { body: { marker }, headers: { "webhook-id": "evt_test" } });
    expect(res.status).toBe(200);
    const list = await get("/_dev/webhooks");
    expect(list.status).toBe(200);
    expect(list.body.requests[0]).toMatchObject({
      body: JSON.stringify({ marker }),
      headers: expect.objectContaining({ "webhook-id": "evt_test" }),
    });
    for (const method of ["GET", "POST"]) {
      const ctx = createExecutionContext();
      const off = await worker.fetch(
        new Request("http://api.test/_dev/webhooks", { method, body: method === "POST" ? "{}" : undefined }) as any,
        { ...env, DEV_WEBHOOKS: undefined },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(off.status, method).toBe(404);
    }
  });
});
