// The file rows of `npm run bench` (docs/performance.md, "Files"): a 10 MiB upload and download through the API, as
// MB/s and as a ratio to a plain R2 put and get of the same bytes (BENCH_ROUTES' /_bench/files: no database, no
// digest), sent the same way (the public port: the front Worker, then the API Worker over the Service Binding) in the
// same run; `GET /tasks/{id}` of a task with 20 attachments (still one query); outside --quick, the API Worker's peak
// heap during a 25 MiB upload (worker-heap.mjs), which must stay far below the file: the body streams to R2.
// The two sides run in pairs, in alternating order (A B, then B A), so a busier moment weighs on both alike; a row's
// ratio is the median of its pairs' (plain R2 ms ÷ API ms).
import { randomBytes } from "node:crypto";
import { sleep } from "./requests.mjs";
import { withHeapPeak } from "./worker-heap.mjs";

const MiB = 1024 * 1024;
const FILE_BYTES = 10 * MiB;
/** The goal: the API moves a file at 0.8 or more of a plain R2 put or get's speed. */
export const FILE_TARGET = 0.8;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The small workspace the file rows use (its own, so the main table's workspace keeps its size). */
export async function seedFiles(seedWorkspace, databaseUrl) {
  return seedWorkspace(databaseUrl, { tasks: 30, projects: 1, comments: 0, prefix: "FIL" });
}

/**
 * One request: its wall time and the time to its answer's first byte (its headers), the database's time and queries (Server-Timing) and, with `clock` (worker-cpu.mjs), both
 * Workers' CPU time for it (what runs after the answer included: the pool's close).
 */
async function send(baseUrl, apiKey, clock, method, pathname, body) {
  const cpuBefore = clock?.cpuMs();
  const started = performance.now();
  const res = await fetch(baseUrl + pathname, {
    method,
    headers: {
      "svc-api-key": apiKey,
      ...(body ? { "content-type": "application/octet-stream", "content-length": String(body.length) } : {}),
    },
    body,
  });
  const firstByteMs = performance.now() - started;
  const bytes = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${new TextDecoder().decode(bytes.slice(0, 300))}`);
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
  const [task, crowded] = w.taskIds;
  const bytes = randomBytes(FILE_BYTES);
  const call = (method, pathname, body) => send(baseUrl, w.apiKey, clock, method, pathname, body);
  const sides = {
    upload: () => call("POST", `/tasks/${task}/attachments?filename=ten.bin`, bytes),
    put: () => call("POST", "/_bench/files", bytes),
    download: (id) => call("GET", `/attachments/${id}/content`),
    get: (key) => call("GET", `/_bench/files/${key.slice("bench/".length)}`),
  };
  const runs = { upload: [], put: [], download: [], get: [] };
  for (let i = 0; i <= pairs; i++) {
    const warmUp = i === 0;
    const keep = (side, r) => {
      if (!warmUp) runs[side].push(r);
      return r;
    };
    const uploadFirst = i % 2 === 1;
    let id;
    let key;
    for (const side of uploadFirst ? ["upload", "put"] : ["put", "upload"]) {
      const r = keep(side, await sides[side]());
      if (side === "upload") id = json(r).attachment.id;
      else key = json(r).key;
    }
    for (const side of uploadFirst ? ["download", "get"] : ["get", "download"]) {
      const r = keep(side, await sides[side](side === "download" ? id : key));
      if (r.bytes.length !== FILE_BYTES) throw new Error(`${side}: ${r.bytes.length} bytes, not ${FILE_BYTES}`);
    }
  }

  // A task with 20 files: its read is still one query (the files are a list of their own).
  const small = new Uint8Array(1024);
  for (let i = 0; i < 20; i++) await call("POST", `/tasks/${crowded}/attachments?filename=f${i}.bin`, small);
  const reads = [];
  for (let i = 0; i < 10; i++) reads.push(await call("GET", `/tasks/${crowded}`));

  // A full collection before each sample: the peak is what the upload holds, not the garbage of the rows before it.
  const big = randomBytes(25 * MiB);
  const heap25MiB = inspector
    ? (
        await withHeapPeak(inspector, async () => ({ r: await call("POST", `/tasks/${task}/attachments?filename=big.bin`, big) }), {
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
