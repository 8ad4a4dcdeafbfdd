// Database outage against the real local stack (scripts/lib/stack.mjs, what `npm start` runs: embedded PostgreSQL,
// WebSocket proxy, SQL-over-HTTP stand-in, `wrangler dev`): PostgreSQL is stopped, hung, shut down under a request and crashed under one,
// and every endpoint that needs it answers 503 UNAVAILABLE in the documented body within the bound; when it comes
// back the same API process answers 200 again. Last, the stack's stop with a wrangler that no longer answers: nothing of
// it may outlive the stop. Runs in Node, not workerd.

import { appendFileSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/postgres.mjs";
import { startSqlOverHttp } from "../../scripts/lib/sql-over-http.mjs";
import { descendantsOf, startStack } from "../../scripts/lib/stack.mjs";
import { startWsProxy } from "../../scripts/lib/ws-proxy.mjs";
import { migratedDataDir } from "../helpers/pg-template.mjs";
import { apiClient, processStat, STARTUP_MS, signUp } from "./lib/stack.mjs";

// The bound a request waits for an absent or silent database: src/db/client.ts CONNECT_TIMEOUT_MS and
// QUERY_TIMEOUT_MS (5 s each) plus the time to answer. It tells the timeouts from a hang (which meets the test's own
// budget); the room above 5 s is for a loaded machine, where answering alone took seconds.
const BOUND_MS = 15_000;
/**
 * A write whose statement went out before the outage showed may have committed: the API tries to settle it on a
 * connection of its own (src/db/settle.ts, SETTLE_BOUND_MS: 3 s) and, the database being away, answers 503
 * OUTCOME_UNKNOWN rather than claim that nothing was written (docs/api.md, "When a write's connection fails").
 */
const SETTLE_MS = 3000;

let stack;
let api;
let dataDir;
let owner;
let team;
let admin;
/** The endpoints started again on the stack's ports after the black-hole case (stack.stop() closes only the first ones). */
let revivedProxy;
let revivedSqlOverHttp;

beforeAll(async () => {
  dataDir = await migratedDataDir("outage");
  // Prepared transactions, for a lock that outlives its session (the shutdown case): this test's own server only.
  appendFileSync(path.join(dataDir, "pg", "postgresql.conf"), "\nmax_prepared_transactions = 2\n");
  stack = await startStack({ dataDir, port: await freePort(), pgPort: 0, inspectorPort: 0, quiet: true, log: () => {} });
  // Drained, or wrangler blocks once the pipe is full; the tail explains a failure.
  let output = "";
  stack.child.stderr?.on("data", (chunk) => {
    output = (output + chunk).slice(-10_000);
  });
  api = apiClient(stack.baseUrl, () => output);
  owner = await signUp(api, "outage");
  team = (await api.call("POST", "/teams", { key: owner.key, body: { name: "Engineering", prefix: "ENG" } })).body.team;
  const task = await api.call("POST", "/tasks", { key: owner.key, body: { teamId: team.id, title: "Survive the outage" } });
  expect(task.status, task.text).toBe(201);
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await admin?.end().catch(() => {});
  await stack?.stop();
  await revivedProxy?.close();
  await revivedSqlOverHttp?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 40_000);

/** Requests that each need the database: a single read, a create, a list, the caller, a public write, the deep health, a batch, MCP. */
const endpoints = () => [
  ["GET", "/tasks/ENG-1", {}],
  ["POST", "/tasks", { body: { teamId: team.id, title: "Written during the outage?" } }],
  ["GET", "/tasks?limit=5", {}],
  ["GET", "/me", {}],
  ["POST", "/signup/start", { body: { email: "outage-signup@example.com" }, anonymous: true }],
  ["GET", "/health?deep=1", { anonymous: true }],
  ["POST", "/batch", { body: { requests: ["/tasks/ENG-1", "/me"] } }],
  ["POST", "/mcp", { body: { jsonrpc: "2.0", id: 1, method: "tools/list" } }],
];

async function timed(method, pathname, opts = {}) {
  const started = performance.now();
  const res = await api.call(method, pathname, opts.anonymous ? opts : { ...opts, key: owner.key });
  return { ...res, method, pathname, ms: performance.now() - started };
}

/**
 * The documented 503: `{error:{code:"UNAVAILABLE",message}}` (details carry only the request id), in time, with nothing
 * internal; a write's may be OUTCOME_UNKNOWN, after its settling was tried.
 */
function expectUnavailable(res) {
  const what = `${res.method} ${res.pathname}: ${res.status} ${res.text}`;
  const write = res.method !== "GET";
  expect(res.status, what).toBe(503);
  const code = write ? expect.stringMatching(/^(UNAVAILABLE|OUTCOME_UNKNOWN)$/) : "UNAVAILABLE";
  expect(res.body.error, what).toMatchObject({ code, message: expect.any(String) });
  expect(Object.keys(res.body.error.details ?? {}), what).toEqual(res.body.error.details ? ["requestId"] : []);
  expect(res.text, what).not.toMatch(/\bselect\b|\binsert\b|postgres(ql)?:\/\/|\n\s+at /i);
  expect(res.ms, what).toBeLessThan(BOUND_MS + (write ? SETTLE_MS : 0));
}

async function expectServing() {
  const [read, list, me, deep] = await Promise.all([
    timed("GET", "/tasks/ENG-1"),
    timed("GET", "/tasks?limit=5"),
    timed("GET", "/me"),
    timed("GET", "/health?deep=1", { anonymous: true }),
  ]);
  for (const res of [read, list, me, deep]) expect(res.status, `${res.pathname}: ${res.text}`).toBe(200);
  expect(read.body.task.title).toBe("Survive the outage");
}

const postmasterPid = () => Number(readFileSync(path.join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
/** The postmaster and its children: a hung PostgreSQL hangs its open connections too (the HTTP endpoint's warm ones). */
const serverPids = () => {
  const pm = postmasterPid();
  const children = readFileSync(`/proc/${pm}/task/${pm}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  return [pm, ...children];
};

async function adminClient() {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  client.on("error", () => {}); // the crash and shutdown cases end it on purpose
  await client.connect();
  return client;
}

/**
 * Starts GET /tasks/ENG-1 behind an exclusive lock on tasks, so it is in flight at the server; its backend's pid. With
 * `prepared`, the lock's transaction is prepared (two-phase): no session holds it, so no signal to a backend lets the
 * request through; `rollback prepared 'outage'` ends it.
 */
async function requestStuckOnLock({ prepared = false } = {}) {
  admin = await adminClient();
  await admin.query("begin");
  await admin.query("lock table tasks in access exclusive mode");
  if (prepared) await admin.query("prepare transaction 'outage'");
  const pending = timed("GET", "/tasks/ENG-1");
  const watcher = await adminClient();
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await watcher.query(
        "select pid from pg_stat_activity where wait_event_type = 'Lock' and backend_type = 'client backend' and pid <> pg_backend_pid()",
      );
      if (rows.length) return { pending, pid: rows[0].pid };
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("the request never reached the lock");
  } finally {
    await watcher.end();
  }
}

/** Waits until PostgreSQL has restarted after a crash at `since`: it accepts connections, and no backend older is left. */
async function restartedSince(since) {
  for (let i = 0; i < 100; i++) {
    const client = await adminClient().catch(() => null);
    const older = await client
      ?.query("select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' and backend_start < $1", [since])
      .then((r) => r.rows[0].n)
      .catch(() => null);
    await client?.end().catch(() => {});
    if (older === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("PostgreSQL did not restart after the crash");
}

async function releaseLock() {
  await admin?.end().catch(() => {});
  admin = undefined;
}

describe("database outage", () => {
  it("serves before the outage", expectServing);

  it("stopped PostgreSQL (the proxy up, the connection refused): every endpoint 503 at once; a request in flight at shutdown (57P01) too; then it recovers by itself", async () => {
    // The lock is a prepared transaction's, which the shutdown does not end: were it a session's, the postmaster could
    // end that session before the request's backend, and the request would run to its answer (seen on a loaded machine).
    const { pending } = await requestStuckOnLock({ prepared: true });
    await stack.postgres.stop(); // a fast shutdown: the backend of the request in flight gets 57P01
    await releaseLock();
    expectUnavailable(await pending);
    const answers = await Promise.all(endpoints().map(([method, pathname, opts]) => timed(method, pathname, opts)));
    for (const res of answers) expectUnavailable(res);
    // Liveness without the database still answers.
    expect((await api.call("GET", "/health")).status).toBe(200);

    await stack.postgres.start();
    // The prepared transaction outlived the restart, and its lock with it.
    const client = await adminClient();
    await client.query("rollback prepared 'outage'");
    await client.end();
    await expectServing();
    // The create refused during the outage wrote nothing.
    const titles = (await timed("GET", "/tasks?limit=50")).body.tasks.map((t) => t.title);
    expect(titles).toEqual(["Survive the outage"]);
  }, 60_000);

  it("hung PostgreSQL (accepts the connection, never answers, nor do its open connections) and a statement that never returns: 503 within the bound", async () => {
    const { pending } = await requestStuckOnLock();
    const pids = serverPids();
    // A child may end meanwhile (ESRCH): the rest still stop, and all that are left go on again.
    const each = (name) =>
      pids.forEach((pid) => {
        try {
          process.kill(pid, name);
        } catch {}
      });
    try {
      each("SIGSTOP");
      const [read, me, deep] = await Promise.all([
        timed("GET", "/tasks/ENG-1"),
        timed("GET", "/me"),
        timed("GET", "/health?deep=1", { anonymous: true }),
      ]);
      for (const res of [read, me, deep]) expectUnavailable(res);
      const stuck = await pending;
      expectUnavailable(stuck);
      expect(stuck.ms).toBeGreaterThan(4000); // cut by the query timeout, not by anything else
    } finally {
      each("SIGCONT");
      await releaseLock();
    }
    await expectServing();
  }, 60_000);

  it("the database's endpoints accept TCP and never answer the WebSocket upgrade or the HTTP query (black-holed): 503 within the bound", async () => {
    const ports = [stack.proxy.port, stack.sqlOverHttp.port];
    await Promise.all([stack.proxy.close(), stack.sqlOverHttp.close()]);
    const sockets = new Set();
    const silent = ports.map(() => net.createServer((socket) => sockets.add(socket)));
    await Promise.all(silent.map((s, i) => new Promise((resolve) => s.listen(ports[i], "127.0.0.1", resolve))));
    try {
      const answers = await Promise.all([
        timed("GET", "/tasks/ENG-1"),
        timed("GET", "/me"),
        timed("GET", "/health?deep=1", { anonymous: true }),
      ]);
      for (const res of answers) expectUnavailable(res);
    } finally {
      for (const socket of sockets) socket.destroy();
      await Promise.all(silent.map((s) => new Promise((resolve) => s.close(resolve))));
      revivedProxy = await startWsProxy({ port: ports[0] });
      revivedSqlOverHttp = await startSqlOverHttp({ port: ports[1] });
    }
    await expectServing();
  }, 60_000);

  it("a backend killed mid-request (PostgreSQL restarts its children): 503, then it recovers by itself", async () => {
    const { pending, pid } = await requestStuckOnLock();
    const killedAt = new Date();
    process.kill(pid, "SIGKILL");
    expectUnavailable(await pending);
    admin = undefined; // the crash ended every session
    // The crash's restart reaches every backend, the HTTP endpoint's warm ones too: until it has, one of those may
    // still answer, and be cut the moment after.
    await restartedSince(killedAt);
    for (let i = 0; ; i++) {
      const res = await timed("GET", "/me");
      if (res.status === 200) break;
      expectUnavailable(res); // recovery in progress (57P03) or refused, never a 500
      if (i > 50) throw new Error("no recovery after the crash");
      await new Promise((r) => setTimeout(r, 200));
    }
    await expectServing();
  }, 60_000);

  it("a backend terminated by an administrator mid-request (57P01): 503", async () => {
    const { pending, pid } = await requestStuckOnLock();
    const killer = await adminClient();
    await killer.query("select pg_terminate_backend($1)", [pid]);
    await killer.end();
    expectUnavailable(await pending);
    await releaseLock();
    await expectServing();
  }, 30_000);
});

describe("the stack's stop", () => {
  it("ends wrangler and what it started (esbuild, workerd) when wrangler does not answer its SIGTERM: killed after 5 s", async () => {
    const started = descendantsOf(stack.child.pid);
    expect(started.length, "wrangler, esbuild and workerd").toBeGreaterThanOrEqual(3);
    process.kill(stack.child.pid, "SIGSTOP"); // it can no longer answer; a SIGKILL still ends it
    await stack.stop();
    // Killed, each is gone once its parent (or init, for an orphan) has read its status.
    const running = () => started.filter((pid) => ![undefined, "Z"].includes(processStat(pid)?.state));
    const deadline = Date.now() + 5000;
    while (running().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(running()).toEqual([]);
  }, 30_000);
});
