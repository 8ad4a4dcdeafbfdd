// The file rows of `npm run bench` (docs/performance.md, "Files"): a 10 MiB upload and download through the API, as
// MB/s and as a ratio to a plain R2 put and get of the same bytes (BENCH_ROUTES' /_bench/files: no database, no
// digest), sent the same way (the public port: the front Worker, then the API Worker over the Service Binding) in the
// same run; `GET /tasks/{id}` of a task with 20 attachments (still one query); outside --quick, the API Worker's peak
// heap during a 25 MiB upload (worker-heap.mjs), which must stay far below the file: the body streams to R2.
// The two sides run in pairs, in alternating order (A B, then B A), so a busier moment weighs on both alike; a row's
// ratio is the median of its pairs' (plain R2 ms ÷ API ms).
import { randomBytes } from "node:crypto";
import { requestOf, sleep } from "./requests.mjs";
import { seedWorkspace } from "./seed.mjs";
import { withHeapPeak } from "./worker-heap.mjs";

const MiB = 1024 * 1024;
const FILE_BYTES = 10 * MiB;
/** The goal: the API moves a file at 0.8 or more of a plain R2 put or get's speed. */
export const FILE_TARGET = 0.8;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const RAW = { "content-type": "application/octet-stream" };
/**
 * The four requests of the rows, as scenarios (scripts/bench/scenarios.mjs's shape, `raw` for a body of bytes), so
 * `node scripts/bench/profile.mjs "files: upload"` profiles them too. `f` is seedFiles's fixture (the attachment and
 * object the reads fetch: the stored ones, unless the call names others).
 */
export const FILE_SCENARIOS = {
  upload: {
    name: "files: upload",
    method: "POST",
    path: (f) => `/tasks/${f.taskIds[0]}/attachments?filename=ten.bin`,
    headers: RAW,
    raw: (f) => f.fileBytes,
  },
  put: { name: "files: plain R2 put", method: "POST", path: () => "/_bench/files", headers: RAW, raw: (f) => f.fileBytes },
  download: { name: "files: download", path: (f) => `/attachments/${f.attachmentId}/content` },
  get: { name: "files: plain R2 get", path: (f) => `/_bench/files/${f.objectKey.slice("bench/".length)}` },
};

/**
 * The small workspace the file rows use (its own, so the main table's workspace keeps its size), the file's bytes, and
 * one copy of them stored each way.
 */
export async function seedFiles(baseUrl, databaseUrl) {
  const f = await seedWorkspace(databaseUrl, { tasks: 30, projects: 1, comments: 0, prefix: "FIL" });
  f.fileBytes = randomBytes(FILE_BYTES);
  f.attachmentId = json(await send({ baseUrl }, f, FILE_SCENARIOS.upload)).attachment.id;
  f.objectKey = json(await send({ baseUrl }, f, FILE_SCENARIOS.put)).key;
  return f;
}

/**
 * One request: its wall time and the time to its answer's first byte (its headers), the database's time and queries (Server-Timing) and, with `clock` (worker-cpu.mjs), both
 * Workers' CPU time for it (what runs after the answer included: the pool's close).
 */
async function send({ baseUrl, clock }, f, s, n = 0) {
  const request = requestOf(baseUrl, f.apiKey, s, f, n);
  const cpuBefore = clock?.cpuMs();
  const started = performance.now();
  const res = await fetch(request.url, request);
  const firstByteMs = performance.now() - started;
  const bytes = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${s.name}: ${res.status} ${new TextDecoder().decode(bytes.slice(0, 300))}`);
  if (clock) await sleep(30);
  const timing = res.headers.get("server-timing") ?? "";
  return {
    ms,
    firstByteMs,
    bytes,
    cpuMs: clock ? clock.cpuMs() - cpuBefore : null,
    dbMs: Number(/(?:^|,)\s*db;dur=([\d.]+)/.exec(timing)?.[1] ?? 0),
    queries: Number(/desc="(\d+) queries"/.exec(timing)?.[1] ?? Number.NaN),
  };
}

const json = (r) => JSON.parse(new TextDecoder().decode(r.bytes));

/** A row's summary: medians of its runs, and the median of its pairs' ratios to the plain R2 side. */
function row(api, plain, bytes) {
  const mid = (runs, key) => median(runs.map((r) => r[key]));
  const ms = mid(api, "ms");
  const ratio = median(api.map((r, i) => plain[i].ms / r.ms));
  return {
    ms,
    firstByteMs: mid(api, "firstByteMs"),
    mbps: bytes / 1e6 / (ms / 1000),
    cpuMs: mid(api, "cpuMs"),
    dbMs: mid(api, "dbMs"),
    plain: {
      ms: mid(plain, "ms"),
      firstByteMs: mid(plain, "firstByteMs"),
      mbps: bytes / 1e6 / (mid(plain, "ms") / 1000),
      cpuMs: mid(plain, "cpuMs"),
    },
    ratio,
    met: ratio >= FILE_TARGET,
  };
}

/**
 * The file rows at `baseUrl` for the workspace `w` (seedFiles): `pairs` pairs of each side after one pair of warm-up.
 * `inspector` (worker-heap.mjs) adds the 25 MiB upload's heap.
 */
export async function measureFiles(baseUrl, w, { pairs, clock, inspector }) {
  const call = (s, n, f = w) => send({ baseUrl, clock }, f, s, n);
  const runs = { upload: [], put: [], download: [], get: [] };
  for (let i = 0; i <= pairs; i++) {
    const warmUp = i === 0;
    const keep = (side, r) => {
      if (!warmUp) runs[side].push(r);
      return r;
    };
    const uploadFirst = i % 2 === 1;
    // Each pair reads back the copies it stored.
    const stored = { ...w };
    for (const side of uploadFirst ? ["upload", "put"] : ["put", "upload"]) {
      const r = keep(side, await call(FILE_SCENARIOS[side]));
      if (side === "upload") stored.attachmentId = json(r).attachment.id;
      else stored.objectKey = json(r).key;
    }
    for (const side of uploadFirst ? ["download", "get"] : ["get", "download"]) {
      const r = keep(side, await call(FILE_SCENARIOS[side], 0, stored));
      if (r.bytes.length !== FILE_BYTES) throw new Error(`${side}: ${r.bytes.length} bytes, not ${FILE_BYTES}`);
    }
  }

  // A task with 20 files: its read is still one query (the files are a list of their own).
  const small = new Uint8Array(1024);
  const crowded = {
    name: "files: 1 KiB upload",
    method: "POST",
    path: (f, i) => `/tasks/${f.taskIds[1]}/attachments?filename=f${i}.bin`,
    headers: RAW,
    raw: () => small,
  };
  for (let i = 0; i < 20; i++) await call(crowded, i);
  const reads = [];
  for (let i = 0; i < 10; i++)
    reads.push(await call({ name: "GET /tasks/{id} with 20 attachments", path: (f) => `/tasks/${f.taskIds[1]}` }));

  // A full collection before each sample: the peak is what the upload holds, not the garbage of the rows before it.
  const big = randomBytes(25 * MiB);
  const heap25MiB = inspector
    ? (
        await withHeapPeak(inspector, async () => ({ r: await call({ ...FILE_SCENARIOS.upload, raw: () => big }) }), {
          collect: true,
        })
      ).heap
    : null;
  return {
    bytes: FILE_BYTES,
    pairs,
    upload: row(runs.upload, runs.put, FILE_BYTES),
    download: row(runs.download, runs.get, FILE_BYTES),
    taskWith20: { ms: median(reads.map((r) => r.ms)), queries: reads[0].queries },
    heap25MiB,
  };
}
