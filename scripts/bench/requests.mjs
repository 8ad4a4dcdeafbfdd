// Requests of a scenario (scripts/bench/scenarios.mjs), one at a time, with what the bench reads of each: its latency,
// the database's time and queries (Server-Timing) and the Workers' CPU time (worker-cpu.mjs).

export function queriesOf(res) {
  const m = /desc="(\d+) queries"/.exec(res.headers.get("server-timing") ?? "");
  return m ? Number(m[1]) : null;
}

/** The database's time for the request (Server-Timing's `db;dur`: its statements from sent to answered), in ms. */
export function dbMsOf(res) {
  const m = /(?:^|,)\s*db;dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "");
  return m ? Number(m[1]) : null;
}

/**
 * The `n` a `fresh` scenario's next request uses (each consumes its target): counted across every table of the run,
 * so no two requests take the same target.
 */
const used = new Map();
export const nextOf = (s) => {
  const n = used.get(s.name) ?? 0;
  used.set(s.name, n + 1);
  return n;
};

/** The headers of the path being measured (bench.mjs sets them per table: the WebSocket tables' switch), on every request. */
let pathHeaders = {};
export const usePath = (headers) => {
  pathHeaders = headers;
};

/**
 * The one request a scenario sends (its `n`th, for `fresh` ones), in the shape both fetch and autocannon take: a JSON
 * `body`, or `raw` bytes (the file rows, scripts/bench/files.mjs).
 */
export function requestOf(baseUrl, apiKey, s, fixture, n = 0, headers = {}) {
  return {
    url: baseUrl + s.path(fixture, n),
    method: s.method ?? "GET",
    headers: { "svc-api-key": apiKey, "content-type": "application/json", ...pathHeaders, ...s.headers, ...headers },
    body: s.raw ? s.raw(fixture) : s.body ? JSON.stringify(s.body(fixture, n)) : undefined,
  };
}

/** How long a request may go unanswered: a run once waited twelve minutes on one, silently (docs/performance.md, "Cold start"). */
const ANSWER_MS = 60_000;

/** `request` sent and its body read, within ANSWER_MS; past it the run fails naming the request. */
async function answerTo(request) {
  try {
    const res = await fetch(request.url, { ...request, signal: AbortSignal.timeout(ANSWER_MS) });
    await res.arrayBuffer();
    return res;
  } catch (err) {
    if (err?.name === "TimeoutError") throw new Error(`${request.method} ${request.url}: no answer within ${ANSWER_MS / 1000} s`);
    throw err;
  }
}

export async function probe(request) {
  const res = await answerTo(request);
  return { status: res.status, queries: queriesOf(res) };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const percentile = (values, q) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

/**
 * `count` sequential requests of scenario `s` at `url` (the stack's public port, or the API Worker directly with
 * `headers`): p50 and p99 in ms, the database's median time per request, errors, and, with `clock` (worker-cpu.mjs),
 * the Workers' CPU time per request, counted from idle (`settle: false`: from now, for a profiler that never lets it
 * idle).
 */
export async function sample(url, apiKey, s, fixture, count, { clock, headers, settle = true } = {}) {
  const latencies = [];
  const dbMs = [];
  let errors = 0;
  let first;
  if (settle) await clock?.settle();
  const cpuBefore = clock?.cpuMs();
  for (let i = 0; i < count; i++) {
    const request = requestOf(url, apiKey, s, fixture, s.fresh ? nextOf(s) : 0, headers);
    const started = performance.now();
    const res = await answerTo(request);
    latencies.push(performance.now() - started);
    if (res.status >= 400) errors++;
    const db = dbMsOf(res);
    if (db !== null) dbMs.push(db);
    first ??= { status: res.status, queries: queriesOf(res) };
  }
  // What the last request runs after its answer (waitUntil: the pool's end) is its CPU time too.
  if (clock) await sleep(50);
  return {
    ...first,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    dbMs: percentile(dbMs, 0.5),
    errors,
    cpuMs: clock ? (clock.cpuMs() - cpuBefore) / count : null,
  };
}

/**
 * The Workers' CPU time per request for scenario `s`, each Worker apart: the requests through the front Worker (both
 * Workers' time), then the same straight to the API Worker; the front's is the difference (worker-cpu.mjs).
 */
export async function cpuOf(target, s, fixture, count) {
  if (!target.clock) return { cpuFront: null, cpuApi: null };
  const both = await sample(target.baseUrl, fixture.apiKey, s, fixture, count, { clock: target.clock });
  const api = await sample(target.clock.apiUrl, fixture.apiKey, s, fixture, count, {
    clock: target.clock,
    headers: target.clock.apiHeaders,
  });
  return { cpuFront: Math.max(0, both.cpuMs - api.cpuMs), cpuApi: api.cpuMs, dbMs: api.dbMs };
}
