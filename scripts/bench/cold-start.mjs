// The cold-start row (docs/performance.md, "Cold start"): the API Worker as deploy builds it, started in a new workerd
// (Miniflare) each time, next to a hello-world Worker in the same run. For each start: how long until the runtime is
// ready (the script loaded, parsed and its top level run), the first request, then a second (warm) one; the medians of
// `runs` starts. No database: the request is GET /health, which reads none.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Miniflare } from "miniflare";
import { buildWorker } from "../lib/worker-bundle.mjs";

const HELLO = 'export default { fetch() { return new Response("hello"); } };\n';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function start(scriptPath, url) {
  const begun = performance.now();
  const mf = new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot: path.dirname(scriptPath),
    compatibilityDate: "2026-04-20",
    compatibilityFlags: ["nodejs_compat"],
  });
  try {
    await mf.ready;
    const ready = performance.now() - begun;
    const time = async () => {
      const t = performance.now();
      await (await mf.dispatchFetch(url)).arrayBuffer();
      return performance.now() - t;
    };
    const first = await time();
    return { ready, first, warm: await time() };
  } finally {
    await mf.dispose();
  }
}

async function startsOf(scriptPath, url, runs) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await start(scriptPath, url));
  const ready = median(all.map((s) => s.ready));
  const first = median(all.map((s) => s.first));
  const warm = median(all.map((s) => s.warm));
  return { ready, first, warm, firstOverWarm: median(all.map((s) => s.first - s.warm)) };
}

/** `{ bundle: {bytes, gzipBytes}, hello, api }`, each start's medians in ms. */
export async function measureColdStart(runs = 10) {
  const bundle = buildWorker();
  const helloDir = mkdtempSync(path.join(tmpdir(), "pm-api-hello-"));
  writeFileSync(path.join(helloDir, "index.js"), HELLO);
  const hello = await startsOf(path.join(helloDir, "index.js"), "http://localhost/", runs);
  const api = await startsOf(bundle.script, "http://localhost/health", runs);
  return { bundle: { bytes: bundle.bytes, gzipBytes: bundle.gzipBytes, total: bundle.total }, hello, api, runs };
}
