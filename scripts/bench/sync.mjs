// The snapshot row of `npm run bench` (docs/performance.md, "Sync"; docs/sync.md): a workspace of BENCH_SYNC_TASKS tasks
// (100,000 by default) seeded in SQL, then GET /sync/snapshot?types=task read to the end: the time to its first line and
// to its last, and the API Worker's peak heap while it streams (worker-heap.mjs, a full collection every 250 ms).
import { seedWorkspace } from "./seed.mjs";
import { withHeapPeak } from "./worker-heap.mjs";

/** The snapshot read to its end: when its first line came, how many lines, how many bytes. */
async function readSnapshot(baseUrl, apiKey) {
  const begun = performance.now();
  const res = await fetch(`${baseUrl}/sync/snapshot?types=task`, { headers: { "svc-api-key": apiKey } });
  if (!res.ok) throw new Error(`snapshot: ${res.status} ${await res.text()}`);
  let firstLineMs;
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    for (const byte of chunk) if (byte === 10) lines++;
    if (lines > 0) firstLineMs ??= performance.now() - begun;
  }
  return { firstLineMs, ms: performance.now() - begun, lines, bytes };
}

export async function measureSync(baseUrl, databaseUrl, inspector, { tasks }) {
  const f = await seedWorkspace(databaseUrl, { tasks, projects: 20, comments: 0, prefix: "SYN", taskIds: false });
  const timed = await readSnapshot(baseUrl, f.apiKey);
  if (timed.lines !== tasks + 1) throw new Error(`snapshot: ${timed.lines} lines for ${tasks} tasks`);
  const wake = () => fetch(`${baseUrl}/health`).then((res) => res.arrayBuffer());
  const sampled = await withHeapPeak(inspector, () => readSnapshot(baseUrl, f.apiKey), { collect: true, everyMs: 250, wake });
  return { tasks, ...timed, heap: sampled.heap };
}
