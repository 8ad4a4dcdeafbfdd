// `npm run bench`: drives the running service with autocannon on 127.0.0.1 and prints requests/s, latency
// percentiles, errors, queries, the database's time and the Workers' CPU time per request for each scenario, next to
// two reference routes measured in the same run: a ceiling (no database) and a floor (open a connection, `select 1`).
// docs/performance.md describes the method and holds the latest tables.
//
//   npm run bench                      start the stack (as `npm start` does, on its own data) and measure
//   BASE_URL=… DATABASE_URL=… npm run bench   measure a service that is already running (no CPU columns)
//   npm run bench -- --compare a.json b.json  ratio between two result files
//   npm run bench -- --rtt 20          adds the latency tables at one connection, the database 0 and then 20 ms away
//                                      (the stack's proxy holds each message 10 ms each way), in the same run: p50 at
//                                      each distance and the round trips due to distance, (p50 at 20 − p50 at 0) ÷ 20
//                                      Every table runs on two paths: what production pays (one-shot statements over
//                                      the HTTP query, scripts/lib/sql-over-http.mjs; interactive transactions over the
//                                      WebSocket through PgBouncer in transaction mode, as Neon's pooled endpoint), then
//                                      every statement over the WebSocket, unpooled (scripts/bench/pgbouncer.mjs installs
//                                      PgBouncer when missing)
//   npm run bench -- --pooled          adds a third path: every statement over the WebSocket through PgBouncer
//   npm run bench -- --quick           the scenario tables and the file rows (fewer pairs, no heap), no edge rows,
//                                      scale check, import or transfer
//   npm run bench -- --origin-rtt 100  the edge rows' distance from the front Worker to the API Worker (default 100)
//   BENCH_ONLY=edge npm run bench      the edge rows alone (no scenarios, scale check or import)
//   BENCH_ONLY=files npm run bench     the file rows alone: a 10 MiB upload and download against a plain R2 put and get
//                                      in the same run, on each path (scripts/bench/files.mjs)
//   BENCH_ONLY=scale npm run bench     the scale check alone: 1,000 vs 1,000,000 tasks (scripts/bench/scale.mjs)
//   BENCH_ONLY=transfer npm run bench  the export and import of a 100,000-task team alone (scripts/bench/transfer.mjs)
//   BENCH_ONLY=sync npm run bench      the snapshot of a 100,000-task workspace alone (scripts/bench/sync.mjs)
//   BENCH_ONLY=cold npm run bench      the cold-start row alone: the API Worker as deploy builds it (its gzipped size) and
//                                      a fresh workerd's first request against a warm one, next to a hello-world Worker,
//                                      medians of 10 starts (scripts/bench/cold-start.mjs); every other run prints it too,
//                                      once its stack is up
//   BENCH_ONLY=delegation npm run bench  the delegation row alone: a delegated task's `agent_session.created` at a
//                                      webhook, p50 and p95 (scripts/bench/delegation.mjs)
// Knobs: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 10), BENCH_ONLY (substring filter of the scenarios, alternatives split by `|`;
// the scale check runs only without it or with `scale`), BENCH_RTT_MS (as --rtt), BENCH_ORIGIN_RTT_MS (as --origin-rtt),
// BENCH_LATENCY_REQUESTS (sequential requests per scenario and distance in the latency tables, default 100),
// BENCH_CPU_REQUESTS (sequential requests per scenario for the CPU columns, each way, default 30),
// BENCH_FILE_PAIRS (the file rows' pairs of an API request and a plain R2 one, default 10, 5 with --quick),
// BENCH_SCALE_TASKS (the scale check's large workspace, default 1,000,000), BENCH_TRANSFER_TASKS (the exported and
// imported team, default 100,000).

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { measureColdStart } from "./bench/cold-start.mjs";
import { measureDelegation } from "./bench/delegation.mjs";
import { HIT_TARGET, measureEdge } from "./bench/edge.mjs";
import { FILE_TARGET, measureFiles, seedFiles } from "./bench/files.mjs";
import { measureImport } from "./bench/import.mjs";
import { startPgBouncer } from "./bench/pgbouncer.mjs";
import { cpuOf, nextOf, percentile, probe, requestOf, sample, usePath } from "./bench/requests.mjs";
import { cursorAfter, eventOf, measureScale, newestEvent } from "./bench/scale.mjs";
import { SCENARIOS } from "./bench/scenarios.mjs";
import { seedWorkspace } from "./bench/seed.mjs";
import { measureSync } from "./bench/sync.mjs";
import { measureTransfer } from "./bench/transfer.mjs";
import { workersCpu } from "./bench/worker-cpu.mjs";
import { connectInspector, workerdCpuMs } from "./bench/worker-heap.mjs";
import { freePort } from "./lib/postgres.mjs";
import { startStack } from "./lib/stack.mjs";
import { GZIP_BUDGET_BYTES } from "./lib/worker-bundle.mjs";

const root = path.resolve(import.meta.dirname, "..");
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ONLY = process.env.BENCH_ONLY;
const rttArg = process.argv.indexOf("--rtt");
const RTT = Number(rttArg >= 0 ? process.argv[rttArg + 1] : (process.env.BENCH_RTT_MS ?? 0));
const originArg = process.argv.indexOf("--origin-rtt");
const ORIGIN_RTT = Number(originArg >= 0 ? process.argv[originArg + 1] : (process.env.BENCH_ORIGIN_RTT_MS ?? 100));
const EDGE_ONLY = ONLY === "edge";
const SCALE_ONLY = ONLY === "scale";
const TRANSFER_ONLY = ONLY === "transfer";
const FILES_ONLY = ONLY === "files";
const SYNC_ONLY = ONLY === "sync";
const SYNC_TASKS = Number(process.env.BENCH_SYNC_TASKS ?? 100_000);
const DELEGATION_ONLY = ONLY === "delegation";
const COLD_ONLY = ONLY === "cold";
const TRANSFER_TASKS = Number(process.env.BENCH_TRANSFER_TASKS ?? 100_000);
const SCALE_TASKS = Number(process.env.BENCH_SCALE_TASKS ?? 1_000_000);
const POOLED = process.argv.includes("--pooled");
const QUICK = process.argv.includes("--quick");
const LATENCY_REQUESTS = Number(process.env.BENCH_LATENCY_REQUESTS ?? 100);
const CPU_REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 30);
const FILE_PAIRS = Number(process.env.BENCH_FILE_PAIRS ?? (QUICK ? 5 : 10));

/**
 * Round trips due to distance at p50, (p50 at RTT − p50 at 0) ÷ RTT, a request may cost. Over the HTTP query:
 * one statement 1.15 (the physical limit is 1), anything else (an interactive transaction, a relation create) 2.1. Over
 * the WebSocket, whose every request opens a connection: a read 1.5, a write 2.
 */
const DISTANCE_TARGET = { read: 1.5, create: 2, write: 2 };
const HTTP_DISTANCE_TARGET = { oneStatement: 1.15, more: 2.1 };
const distanceTarget = (r) =>
  !r.kind ? null : r.http ? (r.queries === 1 ? HTTP_DISTANCE_TARGET.oneStatement : HTTP_DISTANCE_TARGET.more) : DISTANCE_TARGET[r.kind];
/** The header that keeps a request's statements on the WebSocket (src/http/request-db.ts, bench routes only). */
const SOCKET_ONLY = { "x-bench-db-path": "websocket" };
/** The Workers' CPU time per request each kind may use, in ms, for each Worker (the Free plan allows 10 ms an invocation). */
const CPU_BUDGET = { read: 5, create: 10, write: 10 };

/** Whether the scenario's CPU time per request is within its budget, each Worker apart. */
function cpuVerdict(r) {
  const budget = r.kind && CPU_BUDGET[r.kind];
  if (!budget || r.cpuApi === null || r.cpuApi === undefined) return { cpuBudget: null, cpuMet: null };
  return { cpuBudget: budget, cpuMet: r.cpuApi <= budget && r.cpuFront <= budget };
}

/**
 * Whether each row's database time is within its budget over the floor's in the same table (`dbOverFloor`, production
 * path only: its one-shot statements run on warm backends, as the floor's `select 1` does).
 */
function withDbVerdicts(rows, http) {
  const floorDb = rows.find((r) => r.ref === "floor")?.dbMs;
  return rows.map((r) => {
    if (!http || !r.dbOverFloor || floorDb === null || floorDb === undefined || r.dbMs === null || r.dbMs === undefined) return r;
    const dbOver = r.dbMs - floorDb;
    return { ...r, dbOver, dbMet: dbOver <= r.dbOverFloor };
  });
}

/** The main table's row of scenario `s`: autocannon at CONNECTIONS, then the CPU and database columns, sequentially. */
async function measure(baseUrl, apiKey, s, fixture, connections = CONNECTIONS, target) {
  const request = requestOf(baseUrl, apiKey, s, fixture, s.fresh ? nextOf(s) : 0);
  const first = await probe(request);
  // A fresh scenario's probe used its first target; every later request takes the next one.
  const fresh = s.fresh && {
    requests: [{ setupRequest: (req) => ({ ...req, path: new URL(s.path(fixture, nextOf(s)), baseUrl).pathname }) }],
  };
  const result = await autocannon({ ...request, ...fresh, connections, duration: DURATION });
  const row = {
    name: s.name,
    ref: s.ref ?? null,
    target: s.target ?? null,
    kind: s.kind ?? null,
    dbOverFloor: s.dbOverFloor ?? null,
    status: first.status,
    queries: first.queries,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
  if (!target) return row;
  const cpu = await cpuOf(target, s, fixture, CPU_REQUESTS);
  const withCpu = { ...row, ...cpu };
  return { ...withCpu, ...cpuVerdict(withCpu) };
}

const pad = (s, n) => String(s).padEnd(n);
const num = (v, d = 0) => (v === null || v === undefined || Number.isNaN(v) ? "-" : Number(v).toFixed(d));
const dbBudget = (r) => (r.dbMet === undefined ? "" : `+${num(r.dbOver, 1)} ≤ +${r.dbOverFloor} ${r.dbMet ? "met" : "MISSED"}`);
const cpuCells = (r) =>
  `${pad(num(r.dbMs, 1), 7)}${pad(dbBudget(r), 20)}${pad(num(r.cpuFront, 1), 7)}${pad(num(r.cpuApi, 1), 7)}${pad(r.cpuBudget ? `≤ ${r.cpuBudget} ${r.cpuMet ? "met" : "MISSED"}` : "", 14)}`;
const CPU_HEADER = `${pad("db ms", 7)}${pad("db over floor", 20)}${pad("CPU F", 7)}${pad("CPU A", 7)}${pad("CPU budget", 14)}`;

function printTable(title, rows, floor, ceiling) {
  console.log(
    `\n${title}\n${pad("scenario", 38)}${pad("req/s", 8)}${pad("p50 ms", 8)}${pad("p99 ms", 8)}${pad("errors", 7)}${pad("queries", 8)}${CPU_HEADER}${pad("×floor", 7)}${pad("×ceiling", 9)}target`,
  );
  for (const r of rows) {
    const vsFloor = floor ? r.rps / floor : null;
    const verdict = r.target ? `${r.target} ${vsFloor >= r.target ? "met" : "MISSED"}` : "";
    console.log(
      `${pad(r.name, 38)}${pad(num(r.rps), 8)}${pad(num(r.p50), 8)}${pad(num(r.p99), 8)}${pad(r.errors, 7)}${pad(r.queries ?? "-", 8)}${cpuCells(r)}${pad(num(vsFloor, 2), 7)}${pad(num(ceiling ? r.rps / ceiling : null, 3), 9)}${verdict}`,
    );
  }
}

/**
 * The latency table of one path: p50 of each scenario at one connection with the database 0 and RTT ms away, in
 * the same run, the round trips due to distance ((p50 at RTT − p50 at 0) ÷ RTT) against their target, and the CPU
 * and database columns.
 */
function printLatencyTable(title, rows) {
  console.log(
    `\n${title}: latency at 1 connection, the database 0 and ${RTT} ms away (${LATENCY_REQUESTS} requests each)\n${pad("scenario", 48)}${pad("p50 @0", 8)}${pad(`p50 @${RTT}`, 9)}${pad(`p99 @${RTT}`, 9)}${pad("errors", 7)}${pad("queries", 8)}${CPU_HEADER}${pad("RT dist.", 9)}target`,
  );
  for (const r of rows) {
    const limit = distanceTarget(r);
    const verdict = limit
      ? `≤ ${limit} ${r.distanceRoundTrips <= limit ? "met" : `MISSED by ${num(r.distanceRoundTrips - limit, 2)}`}`
      : "";
    console.log(
      `${pad(r.name, 48)}${pad(num(r.near.p50, 1), 8)}${pad(num(r.far.p50, 1), 9)}${pad(num(r.far.p99, 1), 9)}${pad(r.near.errors + r.far.errors, 7)}${pad(r.queries ?? "-", 8)}${cpuCells(r)}${pad(num(r.distanceRoundTrips, 2), 9)}${verdict}`,
    );
  }
}

/**
 * `count` requests at 0 ms and `count` at RTT, alternated one by one, so whatever drifts during the row weighs on both
 * alike: a busier minute, or the tables a write scenario grows (a bulk write of 1,000 tasks leaves 1,000 dead rows a
 * request, and the far half, measured after the near one, took 90 ms more of the database's own time).
 */
async function alternated(target, s, fixture, count) {
  const runs = { near: [], far: [] };
  for (let i = 0; i < count; i++) {
    for (const [side, delay] of Object.entries({ near: 0, far: RTT / 2 })) {
      target.setDelay?.(delay);
      runs[side].push(await sample(target.baseUrl, fixture.apiKey, s, fixture, 1));
    }
  }
  target.setDelay?.(0);
  const merged = (one) => {
    const [latencies, dbMs] = [one.map((r) => r.p50), one.flatMap((r) => (r.dbMs == null ? [] : [r.dbMs]))];
    const errors = one.reduce((n, r) => n + r.errors, 0);
    return { ...one[0], p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), dbMs: percentile(dbMs, 0.5), errors };
  };
  return { near: merged(runs.near), far: merged(runs.far) };
}

/** One scenario's latency row: at 0 ms and at RTT, alternated request by request, then its CPU time. */
async function latencyRow(target, s, fixture) {
  const { near, far } = await alternated(target, s, fixture, LATENCY_REQUESTS);
  const cpu = await cpuOf(target, s, fixture, CPU_REQUESTS);
  const row = {
    name: s.name,
    kind: s.kind ?? null,
    ref: s.ref ?? null,
    dbOverFloor: s.dbOverFloor ?? null,
    http: target.http,
    queries: near.queries,
    near,
    far,
    distanceRoundTrips: (far.p50 - near.p50) / RTT,
    ...cpu,
    dbMs: near.dbMs,
  };
  return { ...row, ...cpuVerdict(row) };
}

/** The edge rows: p50 in ms and in origin round trips, and the hit's share of a miss's p50 against its target. */
function printEdgeTable(edge) {
  console.log(
    `\nedge reads, the API Worker ${edge.originRttMs} ms from the front Worker, 1 connection\n${pad("scenario", 32)}${pad("p50 ms", 8)}${pad("p99 ms", 8)}${pad("errors", 8)}${pad("origin RT", 11)}Cache-Status`,
  );
  for (const r of edge.rows) {
    console.log(
      `${pad(r.name, 32)}${pad(num(r.p50), 8)}${pad(num(r.p99), 8)}${pad(r.errors, 8)}${pad(num(r.originRoundTrips, 2), 11)}${r.cacheStatus}`,
    );
  }
  console.log(
    `  hit p50 / miss p50 = ${num(edge.hitToMiss, 3)} (target ≤ ${HIT_TARGET} and 0 origin round trips: ${edge.met ? "met" : "MISSED"})`,
  );
}

/** The file rows of one path: the API's side and the plain R2 side, MB/s and the ratio against its goal. */
function printFilesTable(title, f) {
  console.log(
    `\n${title}: files of ${f.bytes / 2 ** 20} MiB, ${f.pairs} pairs (API, plain R2) in alternating order\n${pad("row", 40)}${pad("ms (1st byte)", 15)}${pad("MB/s", 7)}${pad("CPU ms", 8)}${pad("db ms", 7)}${pad("R2 ms (1st byte)", 18)}${pad("R2 MB/s", 9)}${pad("R2 CPU", 8)}${pad("ratio", 7)}target`,
  );
  const line = (name, r) =>
    console.log(
      `${pad(name, 40)}${pad(`${num(r.ms)} (${num(r.firstByteMs)})`, 15)}${pad(num(r.mbps), 7)}${pad(num(r.cpuMs, 1), 8)}${pad(num(r.dbMs, 1), 7)}${pad(`${num(r.plain.ms)} (${num(r.plain.firstByteMs)})`, 18)}${pad(num(r.plain.mbps), 9)}${pad(num(r.plain.cpuMs, 1), 8)}${pad(num(r.ratio, 2), 7)}≥ ${FILE_TARGET} ${r.met ? "met" : "MISSED"}`,
    );
  line("upload: POST /tasks/{id}/attachments", f.upload);
  line("download: GET /attachments/{id}/content", f.download);
  const t = f.taskWith20;
  console.log(
    `GET /tasks/{id} with 20 attachments: p50 ${num(t.ms, 1)} ms, ${t.queries} queries (1: ${t.queries === 1 ? "met" : "MISSED"})`,
  );
  if (f.heap25MiB)
    console.log(
      `25 MiB upload: the API Worker's heap ${num(f.heap25MiB.beforeMb, 1)} → peak ${num(f.heap25MiB.peakMb, 1)} MB, buffers peak ${num(f.heap25MiB.buffersMb, 1)} MB`,
    );
}

/** Each pair of the scale check: both workspaces' req/s and p50, the ratios, and the verdict against its target. */
function printScaleTable(scale) {
  const [small, large] = [scale.tasks.small, scale.tasks.large].map((n) => n.toLocaleString("en-US"));
  console.log(`\nscale: ${small} vs ${large} tasks (the large workspace seeded in ${num(scale.seedSeconds, 1)} s)`);
  console.log(
    `${pad("pair", 28)}${pad(`req/s @ ${small}`, 16)}${pad("p50 ms", 8)}${pad(`req/s @ ${large}`, 20)}${pad("p50 ms", 8)}${pad("p50 ×", 8)}${pad("req/s ÷", 9)}target`,
  );
  for (const p of scale.pairs) {
    console.log(
      `${pad(p.name, 28)}${pad(num(p.small.rps), 16)}${pad(num(p.small.p50), 8)}${pad(num(p.large.rps), 20)}${pad(num(p.large.p50), 8)}${pad(num(p.p50Ratio, 2), 8)}${pad(num(p.rpsRatio, 2), 9)}≤ ${p.target} ${p.met ? "met" : "MISSED"}`,
    );
  }
}

/** The export and import of a large team: time, size and the API Worker's peak heap above idle (128 MB is a Worker's limit). */
function printTransferTable(x) {
  const n = x.tasks.toLocaleString("en-US");
  console.log(`\nexport and import of a team of ${n} tasks and ${n} comments (seeded in ${num(x.seedSeconds, 1)} s)`);
  console.log(`${pad("step", 44)}${pad("ms", 9)}${pad("CPU ms", 9)}${pad("MB", 8)}heap MB (+ buffers)`);
  const mb = (heap, buffers) => (heap === null || heap === undefined ? "-" : `${num(heap, 1)} (+ ${num(buffers, 1)})`);
  const row = (step, r, mbytes, memory) =>
    console.log(`${pad(step, 44)}${pad(num(r.ms), 9)}${pad(num(r.cpuMs), 9)}${pad(mbytes, 8)}${memory}`);
  row("GET /teams/{id}/export (streamed)", x.export, num(x.export.bytes / 1e6, 1), mb(x.export.heapMb, x.export.buffersMb));
  row(`PUT …/parts/{n}: ${x.parts.count} parts of ≤ ${x.parts.maxBytes / 2 ** 20} MiB`, x.parts, "", mb(x.parts.heapMb, 0));
  row(`POST …/commit (${x.commit.queries} queries)`, x.commit, "", mb(x.commit.heapMb, x.commit.buffersMb));
  const s = x.single;
  row(`POST …/import: ${s.tasks} tasks, heap sampled`, s, num(s.bytes / 1e6, 1), mb(s.heapMb, s.buffersMb));
}

/**
 * The 10,000-task workspace, with the cursor 8,000 rows deep, the event of task 8,000 and the newest event
 * (scripts/bench/scale.mjs).
 */
async function seedFixture(baseUrl, databaseUrl) {
  const started = Date.now();
  // 4,000 comments: the OWNER, whose comments DELETE /comments/{id} consumes, writes 500 of them, enough for both paths.
  const fixture = await seedWorkspace(databaseUrl, { tasks: 10_000, projects: 200, comments: 4_000 });
  console.log(`seeded 10,000 tasks, 200 projects, 4,000 comments in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  fixture.deepCursor = await cursorAfter(baseUrl, fixture, 8_000);
  fixture.deepEvent = await eventOf(baseUrl, fixture, 8_000);
  fixture.newestEvent = await newestEvent(baseUrl, fixture);
  fixture.cycleId = await seedCycle(baseUrl, databaseUrl, fixture);
  return fixture;
}

/** The team's current cycle with 200 of its tasks (GET /cycles's progress sums them), for the cycles row. */
async function seedCycle(baseUrl, databaseUrl, fixture) {
  const day = 86_400_000;
  const res = await fetch(`${baseUrl}/cycles`, {
    method: "POST",
    headers: { "svc-api-key": fixture.apiKey, "content-type": "application/json" },
    body: JSON.stringify({
      teamId: fixture.teamId,
      startsAt: new Date(Date.now() - day).toISOString(),
      endsAt: new Date(Date.now() + 6 * day).toISOString(),
    }),
  });
  if (res.status !== 201) throw new Error(`POST /cycles: ${res.status} ${await res.text()}`);
  const cycle = await res.json();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("update tasks set cycle_id = $1 where team_id = $2 and number between 101 and 300", [cycle.id, fixture.teamId]);
  } finally {
    await client.end();
  }
  return cycle.id;
}

function compare(a, b) {
  const A = JSON.parse(readFileSync(a, "utf8"));
  const B = JSON.parse(readFileSync(b, "utf8"));
  console.log(`${pad("scenario", 38)}${pad("A req/s", 10)}${pad("B req/s", 10)}B/A`);
  for (const r of B.scenarios) {
    const old = A.scenarios.find((x) => x.name === r.name);
    console.log(`${pad(r.name, 38)}${pad(num(old?.rps), 10)}${pad(num(r.rps), 10)}${old ? num(r.rps / old.rps, 2) : "-"}`);
  }
}

/** The cold-start row: the bundle against its budget, and the API's first request over a warm one against hello-world's. */
function printColdStart({ bundle, hello, api, runs }) {
  const kb = (b) => `${num(b / 1024)} KB`;
  const budget = 2 * hello.firstOverWarm;
  console.log(`\nCold start: a new workerd per start, medians of ${runs} (no database; GET /health)`);
  console.log(
    `  API Worker upload ${kb(bundle.total.bytes)}, gzipped ${kb(bundle.total.gzipBytes)} (budget ${kb(GZIP_BUDGET_BYTES)}: ${bundle.total.gzipBytes <= GZIP_BUDGET_BYTES ? "ok" : "MISSED"})`,
  );
  console.log(`  ${pad("worker", 14)}${pad("ready ms", 10)}${pad("first ms", 10)}${pad("warm ms", 10)}first − warm ms`);
  for (const [name, r] of [
    ["hello-world", hello],
    ["API", api],
  ])
    console.log(
      `  ${pad(name, 14)}${pad(num(r.ready, 1), 10)}${pad(num(r.first, 1), 10)}${pad(num(r.warm, 1), 10)}${num(r.firstOverWarm, 1)}`,
    );
  const verdict = api.firstOverWarm <= budget ? "ok" : "MISSED";
  console.log(
    `  API first − warm ${num(api.firstOverWarm / hello.firstOverWarm, 1)}× hello-world's (budget 2×: ${verdict}); ready ${num(api.ready / hello.ready, 1)}× hello-world's`,
  );
}

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "--compare") return compare(args[1], args[2]);
  // Needs no stack: the bundle is built and started on its own. Alone, or once the stack and PgBouncer are up: a run that
  // cannot start them fails at once, not after twenty Workers' starts.
  const coldStartMeasured = async () => {
    const measured = await measureColdStart();
    printColdStart(measured);
    return measured;
  };
  if (COLD_ONLY) return void (await coldStartMeasured());

  let baseUrl = process.env.BASE_URL;
  let databaseUrl = process.env.DATABASE_URL;
  if (baseUrl && (RTT > 0 || POOLED)) throw new Error("--rtt and --pooled need the stack the bench starts (without BASE_URL)");
  if (baseUrl && !databaseUrl) throw new Error("BASE_URL needs DATABASE_URL too (the seed writes directly to the database)");
  // The API Worker's heap, for the export and import rows: through wrangler's DevTools proxy of the stack started here.
  const inspectorPort = baseUrl ? undefined : await freePort();
  // Everything the bench starts is stopped by the one finally below, whatever fails after it started (PgBouncer's
  // install included): nothing is started outside the try.
  let stack;
  let bouncer;
  // Ctrl-C (or a kill) stops what was started too, as the finally below does when the run ends.
  const stopOnSignal = async (signal) => {
    try {
      await bouncer?.stop();
    } finally {
      await stack?.stop();
      process.exit(signal === "SIGINT" ? 130 : 143);
    }
  };
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    if (!baseUrl) {
      rmSync(path.join(root, ".data/bench"), { recursive: true, force: true });
      stack = await startStack({
        dataDir: ".data/bench",
        port: Number(process.env.BENCH_PORT ?? 8799),
        pgPort: 0,
        benchRoutes: true,
        inspectorPort,
        quiet: true,
        log: () => {},
      });
      baseUrl = stack.baseUrl;
      databaseUrl = stack.databaseUrl;
    }
    // PgBouncer behind the production path's transactions (and --pooled's WebSocket path).
    bouncer = stack ? await startPgBouncer(databaseUrl) : undefined;
    const coldStart = await coldStartMeasured();
    // The workspace of the main table, the edge rows and the import (the scale check alone seeds its own two).
    const fixture = SCALE_ONLY || TRANSFER_ONLY || FILES_ONLY || SYNC_ONLY ? undefined : await seedFixture(baseUrl, databaseUrl);
    const filesFixture = !ONLY || FILES_ONLY ? await seedFiles(baseUrl, databaseUrl) : undefined;
    const clock = stack ? await workersCpu(stack.child.pid) : undefined;
    // Each path the tables run on: what production pays first (the HTTP query for one-shot statements, PgBouncer behind
    // the WebSocket's transactions), then every statement over the WebSocket, straight to PostgreSQL or (--pooled)
    // through PgBouncer.
    const paths = [
      {
        name: "production: HTTP query, transactions over the WebSocket through PgBouncer",
        through: bouncer?.port ?? null,
        http: true,
        headers: {},
      },
      { name: "WebSocket, unpooled", through: null, http: false, headers: SOCKET_ONLY },
      ...(POOLED
        ? [{ name: "WebSocket through PgBouncer (transaction mode)", through: bouncer.port, http: false, headers: SOCKET_ONLY }]
        : []),
    ];
    const setDelay = stack
      ? (ms) => {
          stack.proxy.setDelay(ms);
          stack.sqlOverHttp.setDelay(ms);
        }
      : undefined;
    const dbPort = Number(new URL(databaseUrl).port);
    const chosen =
      EDGE_ONLY || SCALE_ONLY || TRANSFER_ONLY || FILES_ONLY || SYNC_ONLY || DELEGATION_ONLY
        ? []
        : SCENARIOS.filter((s) => !ONLY || s.ref || ONLY.split("|").some((o) => s.name.includes(o)));
    const results = [];
    // The waiting read's `after` is the newest event when its table starts, so it waits for what comes next instead of
    // paging through what the tables before it wrote (docs/events.md, "Reading").
    const newestNow = async () => {
      if (fixture) fixture.newestEvent = await newestEvent(baseUrl, fixture);
    };
    for (const p of paths) {
      stack?.proxy.redirect(dbPort, p.through);
      usePath(p.headers);
      await newestNow();
      const target = { baseUrl, clock, setDelay, http: p.http };
      const measured = [];
      for (const s of chosen) {
        if (s.latencyOnly) continue;
        const r = await measure(baseUrl, fixture.apiKey, s, fixture, CONNECTIONS, target);
        measured.push(r);
        process.stdout.write(`  ${p.name}, ${s.name}: ${num(r.rps)} req/s\n`);
      }
      const rows = withDbVerdicts(measured, p.http);
      const floor = rows.find((r) => r.ref === "floor")?.rps;
      const ceiling = rows.find((r) => r.ref === "ceiling")?.rps;
      if (chosen.length > 0) printTable(`${p.name}: ${CONNECTIONS} connections, ${DURATION} s each`, rows, floor, ceiling);
      // The file rows on this path; the heap of a 25 MiB upload once (unpooled), outside --quick.
      const inspector = !QUICK && inspectorPort && p.through === null ? await connectInspector(inspectorPort) : null;
      let files;
      try {
        files = filesFixture && (await measureFiles(baseUrl, filesFixture, { pairs: FILE_PAIRS, clock, inspector }));
      } finally {
        inspector?.close();
      }
      if (files) printFilesTable(p.name, files);
      results.push({ path: p.name, http: p.http, scenarios: rows, floor, ceiling, files });
    }
    // At a distance, one connection shows what a single caller waits: the round trips, not the queueing.
    if (RTT > 0 && fixture) {
      for (const [i, p] of paths.entries()) {
        stack.proxy.redirect(dbPort, p.through);
        usePath(p.headers);
        const target = { baseUrl, clock, setDelay, http: p.http };
        await newestNow();
        const latency = [];
        for (const s of chosen) {
          if (s.ref === "ceiling") continue;
          const r = await latencyRow(target, s, fixture);
          latency.push(r);
          process.stdout.write(`  ${p.name}, ${s.name}: p50 ${num(r.near.p50, 1)} → ${num(r.far.p50, 1)} ms\n`);
        }
        results[i].latency = withDbVerdicts(latency, p.http);
      }
      for (const r of results) printLatencyTable(r.path, r.latency);
    }
    stack?.proxy.redirect(dbPort, null);
    usePath({});
    if (chosen.length > 0 && paths.length > 1) printPathRatios(results);

    // The rest runs as production would (the HTTP query), straight to PostgreSQL.
    const rest = QUICK ? {} : await heavyChecks(baseUrl, databaseUrl, fixture, stack, inspectorPort);

    const [production, unpooled, pooled] = results;
    const result = {
      date: new Date().toISOString(),
      node: process.version,
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      rttMs: RTT,
      latencyRequests: LATENCY_REQUESTS,
      cpuRequests: CPU_REQUESTS,
      scenarios: production.scenarios,
      floor: production.floor,
      ceiling: production.ceiling,
      latency: production.latency,
      files: production.files,
      unpooled,
      pooled,
      coldStart,
      ...rest,
    };
    mkdirSync(path.join(root, "bench/results"), { recursive: true });
    const file = path.join(root, "bench/results", `${result.date.replace(/[:.]/g, "-")}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2));
    console.log(`\nresults written to ${path.relative(root, file)}`);
  } catch (error) {
    // What the stack's wrangler last said, which a quiet stack otherwise keeps to itself.
    if (stack?.errors()) console.error(`the stack's last errors:\n${stack.errors()}`);
    throw error;
  } finally {
    try {
      await bouncer?.stop();
    } finally {
      await stack?.stop();
    }
  }
}

/** Each scenario's req/s as a share of its path's floor on each path, and production's req/s over the unpooled WebSocket's. */
function printPathRatios([production, ...others]) {
  const names = ["production", "WebSocket unpooled", "WebSocket pooled"].slice(0, others.length + 1);
  console.log(`\n${pad("scenario", 38)}${names.map((n) => pad(`×floor ${n}`, 28)).join("")}production ÷ unpooled req/s`);
  for (const r of production.scenarios) {
    if (r.ref) continue;
    const same = others.map((p) => p.scenarios.find((x) => x.name === r.name));
    const shares = [r, ...same].map((x, i) => pad(num(x ? x.rps / [production, ...others][i].floor : null, 2), 28)).join("");
    console.log(`${pad(r.name, 38)}${shares}${num(same[0] ? r.rps / same[0].rps : null, 2)}`);
  }
}

/** The edge rows, the scale check, the import and the export/import at scale (all but --quick runs). */
async function heavyChecks(baseUrl, databaseUrl, fixture, stack, inspectorPort) {
  // Delegation: from a delegating write to its agent's webhook delivery of `agent_session.created`.
  const delegation = fixture && (!ONLY || DELEGATION_ONLY) ? await measureDelegation(baseUrl, fixture) : undefined;
  if (delegation)
    console.log(
      `\ndelegation → webhook delivery of agent_session.created (${delegation.runs} runs, one at a time): p50 ${num(delegation.p50)} ms, p95 ${num(delegation.p95)} ms, max ${num(delegation.max)} ms (target: p95 at most ${delegation.targetMs} ms)`,
    );
  if (DELEGATION_ONLY) return { delegation };

  // Reads at the edge: through the front Worker with the API Worker ORIGIN_RTT ms away.
  const edge = fixture && (await measureEdge(baseUrl, fixture, { originRttMs: ORIGIN_RTT, durationSeconds: DURATION }));
  if (edge) printEdgeTable(edge);
  if (EDGE_ONLY) return { edge };

  // Scale: the same reads in a workspace of 1,000 tasks and in one of SCALE_TASKS.
  const scale = !ONLY || SCALE_ONLY ? await measureScale(baseUrl, databaseUrl, measure, { tasks: SCALE_TASKS }) : undefined;
  if (scale) printScaleTable(scale);

  // Import: 5,000 tasks and their comments in one request, timed end to end (after the scenarios: it grows the team).
  const imported = fixture && (!ONLY || "import".includes(ONLY)) ? await measureImport(baseUrl, fixture) : undefined;
  if (imported)
    console.log(
      `\nimport of ${imported.tasks} tasks + ${imported.comments} comments (${num(imported.bytes / 1e6, 1)} MB, ${imported.queries} queries): median ${num(imported.medianMs)} ms, max ${num(imported.maxMs)} ms of ${imported.runs} (target: under ${imported.targetMs} ms)`,
    );

  // The sync snapshot of SYNC_TASKS tasks: its first line, its end, and the Worker's heap while it streams.
  let sync;
  if (!ONLY || SYNC_ONLY) {
    const inspector = inspectorPort ? await connectInspector(inspectorPort) : null;
    try {
      sync = await measureSync(baseUrl, databaseUrl, inspector, { tasks: SYNC_TASKS });
    } finally {
      inspector?.close();
    }
    const heap = sync.heap
      ? `${num(sync.heap.peakMb - sync.heap.beforeMb, 1)} MB over ${num(sync.heap.beforeMb, 1)} (+ ${num(sync.heap.buffersMb, 1)} buffers)`
      : "-";
    console.log(
      `
GET /sync/snapshot of ${sync.tasks.toLocaleString("en-US")} tasks (${num(sync.bytes / 1e6, 1)} MB): first line ${num(sync.firstLineMs)} ms, all ${num(sync.ms)} ms, Worker heap peak ${heap}`,
    );
  }
  if (SYNC_ONLY) return { edge, scale, sync };

  // Export and import at scale: a team of TRANSFER_TASKS tasks out (streamed) and back in (in parts), with the Worker's heap.
  let transfer;
  if (!ONLY || TRANSFER_ONLY) {
    const inspector = inspectorPort ? await connectInspector(inspectorPort) : null;
    try {
      const cpuMs = stack ? () => workerdCpuMs(stack.child.pid) : undefined;
      transfer = await measureTransfer(baseUrl, databaseUrl, inspector, { tasks: TRANSFER_TASKS, cpuMs });
    } finally {
      inspector?.close();
    }
    printTransferTable(transfer);
  }
  return { delegation, edge, scale, import: imported, sync, transfer };
}

await main();
