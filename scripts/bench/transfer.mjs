// The export and import check of `npm run bench` (docs/performance.md, "Export and import at scale"): a team of
// BENCH_TRANSFER_TASKS tasks (100,000 by default) with a comment each, seeded in SQL, exported (GET /teams/{id}/export,
// streamed) and imported into a new team in parts of at most PART_BYTES, cut as `pm import` cuts them (client/transfer.js:
// POST /imports, PUT /imports/{id}/parts/{n}, POST /imports/{id}/commit), each timed end to end with the workers' CPU
// time and the API Worker's peak heap (worker-heap.mjs, a full collection every 250 ms so the peak is what the request
// held, not garbage V8 had no reason to collect yet).
import pg from "pg";
import { fetchWithoutTimeout } from "../../client/node-fetch.js";
import { MAX_REQUEST_BYTES, PART_BYTES, splitExport } from "../../client/transfer.js";
import { seedWorkspace } from "./seed.mjs";
import { withHeapPeak } from "./worker-heap.mjs";

// A commit of 300,000 tasks answers after more than the 300 s Node's fetch waits for headers.
async function call(baseUrl, apiKey, method, path, body) {
  const res = await fetchWithoutTimeout(
    new Request(baseUrl + path, {
      method,
      headers: { "svc-api-key": apiKey, "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  const queries = Number(/desc="(\d+) queries"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? Number.NaN);
  return { body: text ? JSON.parse(text) : null, queries };
}

/** A request the API Worker runs: lets a pending collection happen (worker-heap.mjs). */
const waker = (baseUrl) => () => fetch(`${baseUrl}/health`).then((res) => res.arrayBuffer());

/** `work` with its wall time and the workers' CPU time while it ran (`cpu`, see worker-heap.mjs's workerdCpuMs). */
const timed = async (work, cpu) => {
  const [started, cpuBefore] = [performance.now(), cpu()];
  const result = await work();
  return { ...result, ms: performance.now() - started, cpuMs: cpu() - cpuBefore };
};

/** Every task and comment of the export is in team `teamId`. */
async function expectImported(databaseUrl, teamId, tasks) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query(
    "select (select count(*) from tasks where team_id = $1)::int as tasks, (select count(*) from comments c join tasks t on t.id = c.task_id where t.team_id = $1)::int as comments",
    [teamId],
  );
  await client.end();
  if (rows[0].tasks !== tasks || rows[0].comments !== tasks) throw new Error(`imported ${JSON.stringify(rows[0])} of ${tasks} each`);
}

/** Each step's numbers as it ends (a long run that fails later keeps them), on stderr. */
const progress = (step, numbers) =>
  process.stderr.write(`  transfer, ${step}: ${JSON.stringify(numbers, (k, v) => (k === "text" || k === "body" ? undefined : v))}\n`);

/**
 * Seeds the team, exports it, imports the export in parts into a new team; the rows of the check. Times and CPU come
 * from runs without the heap sampled (its full collections cost CPU), the heap from runs of their own.
 */
export async function measureTransfer(baseUrl, databaseUrl, inspector, { tasks, cpuMs = () => Number.NaN }) {
  const started = Date.now();
  const f = await seedWorkspace(databaseUrl, { tasks, projects: 20, comments: tasks, prefix: "XFR", taskIds: false });
  const seedSeconds = (Date.now() - started) / 1000;
  progress("seed", { seconds: seedSeconds });

  // The export, twice: timed alone, then with the heap sampled (the collections slow it).
  const exportOnce = async () => {
    const begun = performance.now();
    const res = await fetch(`${baseUrl}/teams/${f.teamId}/export`, { headers: { "svc-api-key": f.apiKey } });
    if (!res.ok) throw new Error(`export: ${res.status} ${await res.text()}`);
    const chunks = [];
    let firstByteMs;
    for await (const chunk of res.body) {
      firstByteMs ??= performance.now() - begun;
      chunks.push(chunk);
    }
    return { text: Buffer.concat(chunks).toString("utf8"), firstByteMs };
  };
  const exported = await timed(exportOnce, cpuMs);
  progress("export", exported);
  const exportHeap = await withHeapPeak(inspector, async () => ({ bytes: (await exportOnce()).text.length }), {
    collect: true,
    everyMs: 250,
    wake: waker(baseUrl),
  });
  progress("export's heap", exportHeap.heap);
  const doc = JSON.parse(exported.text);

  // The import in parts, twice, each into a new team of the workspace: timed alone, then with the heap sampled.
  const parts = splitExport(doc);
  const importInParts = async (prefix, sampled) => {
    const heapOf = (work) => (sampled ? withHeapPeak(inspector, work, { collect: true, everyMs: 250, wake: waker(baseUrl) }) : work());
    const target = (await call(baseUrl, f.apiKey, "POST", "/teams", { name: `Copy ${prefix}`, prefix })).body.team;
    const { id } = (await call(baseUrl, f.apiKey, "POST", "/imports", { teamId: target.id })).body.import;
    const sent = await timed(async () => {
      let peakMb = 0;
      for (const [i, part] of parts.entries()) {
        const body = JSON.stringify({ data: part });
        const { heap } = await heapOf(() => call(baseUrl, f.apiKey, "PUT", `/imports/${id}/parts/${i + 1}`, body));
        if (heap) peakMb = Math.max(peakMb, heap.peakMb - heap.beforeMb);
      }
      return { peakMb };
    }, cpuMs);
    const committed = await timed(() => heapOf(() => call(baseUrl, f.apiKey, "POST", `/imports/${id}/commit`)), cpuMs);
    await expectImported(databaseUrl, target.id, tasks);
    return { sent, committed };
  };
  const alone = await importInParts("XFA", false);
  progress("import", { parts: alone.sent, commit: alone.committed });
  const sampled = inspector ? await importInParts("XFB", true) : null;
  progress("import's heap", sampled && { parts: sampled.sent, commit: sampled.committed.heap });

  // The largest import one request may carry (32 MiB): as many of the export's tasks, with their comments, as fit.
  const whole = (() => {
    let bytes = 0;
    const taken = new Set();
    for (const t of doc.data.tasks) {
      bytes += JSON.stringify(t).length * 2; // the task and, about as long, its comment
      if (bytes > MAX_REQUEST_BYTES - 1024 * 1024) break;
      taken.add(t.id);
    }
    const data = {
      ...doc.data,
      tasks: doc.data.tasks.filter((t) => taken.has(t.id)),
      comments: doc.data.comments.filter((c) => taken.has(c.taskId)),
    };
    return JSON.stringify({ data: { ...doc, data }, update: false });
  })();
  const single = await (async () => {
    const target = (await call(baseUrl, f.apiKey, "POST", "/teams", { name: "Copy whole", prefix: "XFW" })).body.team;
    return timed(
      () =>
        withHeapPeak(inspector, () => call(baseUrl, f.apiKey, "POST", `/teams/${target.id}/import`, whole), {
          collect: true,
          everyMs: 250,
          wake: waker(baseUrl),
        }),
      cpuMs,
    );
  })();
  progress("one request", { ms: single.ms, cpuMs: single.cpuMs, heap: single.heap });

  return {
    tasks,
    comments: tasks,
    seedSeconds,
    export: {
      bytes: exported.text.length,
      ms: exported.ms,
      cpuMs: exported.cpuMs,
      firstByteMs: exported.firstByteMs,
      heapMb: exportHeap.heap && exportHeap.heap.peakMb - exportHeap.heap.beforeMb,
      buffersMb: exportHeap.heap?.buffersMb,
    },
    parts: { count: parts.length, maxBytes: PART_BYTES, ms: alone.sent.ms, cpuMs: alone.sent.cpuMs, heapMb: sampled?.sent.peakMb ?? null },
    single: {
      bytes: whole.length,
      tasks: JSON.parse(whole).data.data.tasks.length,
      ms: single.ms,
      heapMb: single.heap && single.heap.peakMb - single.heap.beforeMb,
      buffersMb: single.heap?.buffersMb,
    },
    commit: {
      ms: alone.committed.ms,
      cpuMs: alone.committed.cpuMs,
      queries: alone.committed.queries,
      heapMb: sampled && sampled.committed.heap.peakMb - sampled.committed.heap.beforeMb,
      buffersMb: sampled?.committed.heap.buffersMb,
    },
  };
}
