// Where a scenario's time goes in the API Worker: `node scripts/bench/profile.mjs "GET /tasks/{reference}" [requests]`
// starts the bench's stack and seed, sends the scenario's requests (scripts/bench/scenarios.mjs) straight to the API
// Worker while V8's sampling profiler runs in its isolate (through wrangler's DevTools proxy), and prints the functions by self and by inclusive share of the samples in JavaScript, with the
// Workers' CPU time per request beside it (worker-cpu.mjs). The samples are wall-clock intervals (worker-cpu.mjs), so
// read shares, not milliseconds. The whole profile goes to /tmp/<scenario>.cpuprofile (Chrome DevTools opens it).
// The file rows' requests are scenarios too (scripts/bench/files.mjs: "files: upload", "files: download", and their plain
// R2 twins); give them a count of 30 or so (each upload stores 10 MiB, and the workspace holds 1 GiB).
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "../lib/postgres.mjs";
import { startStack } from "../lib/stack.mjs";
import { FILE_SCENARIOS, seedFiles } from "./files.mjs";
import { sample } from "./requests.mjs";
import { cursorAfter, eventOf } from "./scale.mjs";
import { SCENARIOS } from "./scenarios.mjs";
import { seedWorkspace } from "./seed.mjs";
import { workersCpu } from "./worker-cpu.mjs";
import { connectInspector } from "./worker-heap.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const [name, count = "200"] = process.argv.slice(2);
const FILES = Object.values(FILE_SCENARIOS);
const scenario = [...SCENARIOS, ...FILES].find((s) => s.name === name);
if (!scenario)
  throw new Error(`no scenario named ${JSON.stringify(name)}; one of:\n${[...SCENARIOS, ...FILES].map((s) => s.name).join("\n")}`);

/** Functions by self and inclusive share of the samples that were in JavaScript (not idle, GC or the runtime). */
function shares(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (/^\((idle|program|garbage collector|root)\)$/.test(node.callFrame.functionName)) return;
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    self.set(label(node), (self.get(label(node)) ?? 0) + dt);
    const seen = new Set();
    for (let n = node; n; n = byId.get(parent.get(n.id))) {
      const l = label(n);
      if (seen.has(l) || n.callFrame.functionName === "(root)") continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + dt);
    }
  });
  const top = (m, k) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([l, t]) => `${((100 * t) / total).toFixed(1).padStart(5)} %  ${l}`);
  return { self: top(self, 25), inclusive: top(inclusive, 40) };
}

rmSync(path.join(root, ".data/profile"), { recursive: true, force: true });
const inspectorPort = await freePort();
const stack = await startStack({
  dataDir: ".data/profile",
  port: Number(process.env.BENCH_PORT ?? 8798),
  pgPort: 0,
  benchRoutes: true,
  inspectorPort,
  quiet: true,
  log: () => {},
});
try {
  let f;
  if (FILES.includes(scenario)) f = await seedFiles(stack.baseUrl, stack.databaseUrl);
  else {
    f = await seedWorkspace(stack.databaseUrl, { tasks: 10_000, projects: 200, comments: 2_000 });
    f.deepCursor = await cursorAfter(stack.baseUrl, f, 8_000);
    f.deepEvent = await eventOf(stack.baseUrl, f, 8_000);
  }
  const clock = await workersCpu(stack.child.pid);
  const direct = { clock, headers: clock.apiHeaders };
  await sample(clock.apiUrl, f.apiKey, scenario, f, 20, direct); // warm
  // wrangler's DevTools proxy, attached to the API Worker's isolate (as for the transfer check's heap; workerd serves
  // one session per isolate, so the proxy's must be the one). The isolate reads the inspector's messages only while it
  // runs: requests go on until the answer comes.
  const inspector = await connectInspector(inspectorPort);
  const poke = () => sample(stack.baseUrl, f.apiKey, scenario, f, 1);
  async function answered(call) {
    let done = false;
    const result = call.finally(() => {
      done = true;
    });
    while (!done) await Promise.race([poke(), result]);
    return result;
  }
  await answered(inspector.call("Profiler.enable"));
  await answered(inspector.call("Profiler.setSamplingInterval", { interval: 200 }));
  await answered(inspector.call("Profiler.start"));
  // No wait for idle here: with the profiler on the isolate never idles, and the wait's 60 s became one sample's time,
  // charged to whatever function that sample caught (94 % of a profile to the router's #pushHandlerSets).
  const run = await sample(clock.apiUrl, f.apiKey, scenario, f, Number(count), { ...direct, settle: false });
  const { profile } = await answered(inspector.call("Profiler.stop"));
  inspector.close();
  const file = path.join("/tmp", `${name.replace(/[^a-z0-9]+/gi, "-")}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const { self, inclusive } = shares(profile);
  console.log(
    `${name}: ${count} requests to the API Worker, p50 ${run.p50.toFixed(1)} ms, database ${run.dbMs} ms, Workers' CPU ${run.cpuMs.toFixed(2)} ms a request`,
  );
  console.log(`\nself, share of the samples in JavaScript\n${self.join("\n")}\n\ninclusive\n${inclusive.join("\n")}\n\nprofile: ${file}`);
} finally {
  await stack.stop();
}
