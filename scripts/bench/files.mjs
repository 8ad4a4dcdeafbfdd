// Attachments in the bench (docs/api.md, "Attachments"): a 10 MiB upload and download through the API, as MB/s and as a
// ratio to a plain R2 put and get of the same bytes from the same Worker in the same run (BENCH_ROUTES' /_bench/files;
// goal: 0.8 or more); `GET /tasks/{id}` of a task with 20 attachments (still one query); the API Worker's peak heap
// during a 25 MiB upload (worker-heap.mjs), which must stay far below the file: the body streams to R2.
//   node scripts/bench/files.mjs     starts its own stack (.data/bench-files, port BENCH_PORT or 8798) and prints the rows
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { freePort } from "../lib/postgres.mjs";
import { startStack } from "../lib/stack.mjs";
import { seedWorkspace } from "./seed.mjs";
import { connectInspector, withHeapPeak } from "./worker-heap.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const MiB = 1024 * 1024;
const RUNS = Number(process.env.BENCH_FILE_RUNS ?? 5);

async function send(baseUrl, apiKey, method, pathname, body, headers = {}) {
  const res = await fetch(baseUrl + pathname, {
    method,
    headers: {
      "svc-api-key": apiKey,
      ...(body ? { "content-type": "application/octet-stream", "content-length": String(body.length) } : {}),
      ...headers,
    },
    body,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${new TextDecoder().decode(bytes.slice(0, 300))}`);
  const queries = Number(/desc="(\d+) queries"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? Number.NaN);
  return { bytes, queries };
}

/** The median wall time of `RUNS` runs of `work`, in ms. */
async function medianMs(work) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await work(i);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

const json = (r) => JSON.parse(new TextDecoder().decode(r.bytes));

/** The attachment rows: upload, download, ratio to plain R2, the task read, and the heap of a 25 MiB upload. */
export async function measureFiles(baseUrl, databaseUrl, inspector) {
  const w = await seedWorkspace(databaseUrl, { tasks: 30, projects: 1, comments: 0, prefix: "FIL" });
  const [task, crowded] = w.taskIds;
  const bytes = randomBytes(10 * MiB);
  const mbps = (ms) => bytes.length / 1e6 / (ms / 1000);

  const uploaded = [];
  const upload = await medianMs(async () =>
    uploaded.push(json(await send(baseUrl, w.apiKey, "POST", `/tasks/${task}/attachments?filename=ten.bin`, bytes)).attachment.id),
  );
  const keys = [];
  const put = await medianMs(async () => keys.push(json(await send(baseUrl, w.apiKey, "POST", "/_bench/files", bytes)).key));
  const download = await medianMs((i) => send(baseUrl, w.apiKey, "GET", `/attachments/${uploaded[i]}/content`));
  const get = await medianMs((i) => send(baseUrl, w.apiKey, "GET", `/_bench/files/${keys[i].slice("bench/".length)}`));

  // A task with 20 files: its read is the same one query (the files are a list of their own).
  const small = new Uint8Array(1024);
  for (let i = 0; i < 20; i++) await send(baseUrl, w.apiKey, "POST", `/tasks/${crowded}/attachments?filename=f${i}.bin`, small);
  let queries = Number.NaN;
  const read = await medianMs(async () => {
    queries = (await send(baseUrl, w.apiKey, "GET", `/tasks/${crowded}`)).queries;
  });

  const big = randomBytes(25 * MiB);
  const { heap } = await withHeapPeak(inspector, async () => ({
    r: await send(baseUrl, w.apiKey, "POST", `/tasks/${task}/attachments?filename=big.bin`, big),
  }));
  return {
    upload: { ms: upload, mbps: mbps(upload), ratio: put / upload },
    download: { ms: download, mbps: mbps(download), ratio: get / download },
    r2: { putMs: put, getMs: get },
    taskWith20: { ms: read, queries },
    heap25MiB: heap,
  };
}

const num = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "-");

export function printFilesTable(r) {
  console.log("\nattachments (10 MiB, median of runs; ratio = plain R2 time / API time, goal >= 0.8)");
  console.log(
    `  upload    ${num(r.upload.mbps)} MB/s  (${num(r.upload.ms, 0)} ms; R2 put ${num(r.r2.putMs, 0)} ms)  ratio ${num(r.upload.ratio, 2)}`,
  );
  console.log(
    `  download  ${num(r.download.mbps)} MB/s  (${num(r.download.ms, 0)} ms; R2 get ${num(r.r2.getMs, 0)} ms)  ratio ${num(r.download.ratio, 2)}`,
  );
  console.log(`  GET /tasks/{id} with 20 attachments: ${num(r.taskWith20.ms)} ms, ${r.taskWith20.queries} queries`);
  if (r.heap25MiB)
    console.log(
      `  25 MiB upload: heap ${num(r.heap25MiB.beforeMb)} -> peak ${num(r.heap25MiB.peakMb)} MB, buffers peak ${num(r.heap25MiB.buffersMb)} MB`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const inspectorPort = await freePort();
  rmSync(path.join(root, ".data/bench-files"), { recursive: true, force: true });
  const stack = await startStack({
    dataDir: ".data/bench-files",
    port: Number(process.env.BENCH_PORT ?? 8798),
    pgPort: 0,
    benchRoutes: true,
    inspectorPort,
    quiet: true,
    log: () => {},
  });
  const inspector = await connectInspector(inspectorPort);
  try {
    const rows = await measureFiles(stack.baseUrl, stack.databaseUrl, inspector);
    printFilesTable(rows);
    console.log(JSON.stringify(rows));
  } finally {
    inspector.close();
    await stack.stop();
  }
}
