// Paired runs between two trees of this repository (`node scripts/bench/paired.mjs /tmp/old`; the other tree is this
// one): what grew. Each tree runs its own stack (its scripts/lib/stack.mjs) on its own seed (its scripts/bench/seed.mjs,
// the same workspace's shape), both at once, and the same harness (requests.mjs) measures them scenario by scenario,
// one tree then the other, so a busier minute weighs on both: p50 of PAIRED_REQUESTS sequential requests, the
// database's time and each Worker's CPU time (worker-cpu.mjs), the database 0 ms away. The old tree's node_modules may
// be hard links of this one's (`git worktree add /tmp/old <commit> && cp -al node_modules /tmp/old/`).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cpuOf, sample } from "./requests.mjs";
import { SCENARIOS } from "./scenarios.mjs";
import { workersCpu } from "./worker-cpu.mjs";

const here = path.resolve(import.meta.dirname, "../..");
const REQUESTS = Number(process.env.PAIRED_REQUESTS ?? 100);
const CPU_REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 30);
/** Over the floor at 0 ms, in ms, each kind may cost. */
const OVER_FLOOR_TARGET = { read: 6, create: 15, write: 15 };
const PAIRED = [
  "floor: connect + select 1",
  "GET /tasks/{reference}",
  "GET /tasks?limit=50 filter+sort",
  "POST /tasks",
  "PATCH /tasks/{id}",
  "POST /comments",
];

async function startTree(tree, port) {
  const { startStack } = await import(path.join(tree, "scripts/lib/stack.mjs"));
  const { seedWorkspace } = await import(path.join(tree, "scripts/bench/seed.mjs"));
  rmSync(path.join(tree, ".data/paired"), { recursive: true, force: true });
  const stack = await startStack({ dataDir: ".data/paired", port, pgPort: 0, benchRoutes: true, quiet: true, log: () => {} });
  try {
    const fixture = await seedWorkspace(stack.databaseUrl, { tasks: 10_000, projects: 200, comments: 2_000 });
    return { tree, stack, fixture, target: { baseUrl: stack.baseUrl, clock: await workersCpu(stack.child.pid) } };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}

const pad = (s, n) => String(s).padEnd(n);
const num = (v, d = 1) => (v === null || v === undefined || Number.isNaN(v) ? "-" : Number(v).toFixed(d));

async function main() {
  const old = path.resolve(process.argv[2] ?? "/tmp/old");
  const trees = [await startTree(old, 8871), await startTree(here, 8872)];
  try {
    const rows = [];
    for (const name of PAIRED) {
      const s = SCENARIOS.find((x) => x.name === name);
      const row = { name, kind: s.kind ?? null };
      for (const [i, t] of trees.entries()) {
        const r = await sample(t.stack.baseUrl, t.fixture.apiKey, s, t.fixture, REQUESTS);
        const cpu = await cpuOf(t.target, s, t.fixture, CPU_REQUESTS);
        row[i === 0 ? "old" : "now"] = { ...cpu, p50: r.p50, p99: r.p99, errors: r.errors, queries: r.queries, dbMs: r.dbMs };
        process.stdout.write(`  ${path.basename(t.tree)}, ${name}: p50 ${num(r.p50)} ms\n`);
      }
      rows.push(row);
    }
    const floor = rows[0];
    console.log(
      `\npaired: ${old} (old) and ${here} (now), ${REQUESTS} sequential requests each, 0 ms\n${pad("scenario", 34)}${pad("p50 old", 9)}${pad("p50 now", 9)}${pad("over floor old", 16)}${pad("now", 7)}${pad("db ms old/now", 15)}${pad("CPU F old/now", 15)}${pad("CPU A old/now", 15)}${pad("queries", 9)}target (over floor, now)`,
    );
    for (const r of rows) {
      const over = (k) => r[k].p50 - floor[k].p50;
      const limit = r.kind && OVER_FLOOR_TARGET[r.kind];
      const verdict = limit && r !== floor ? `≤ ${limit} ${over("now") <= limit ? "met" : "MISSED"}` : "";
      console.log(
        `${pad(r.name, 34)}${pad(num(r.old.p50), 9)}${pad(num(r.now.p50), 9)}${pad(num(over("old")), 16)}${pad(num(over("now")), 7)}${pad(`${num(r.old.dbMs)}/${num(r.now.dbMs)}`, 15)}${pad(`${num(r.old.cpuFront)}/${num(r.now.cpuFront)}`, 15)}${pad(`${num(r.old.cpuApi)}/${num(r.now.cpuApi)}`, 15)}${pad(`${r.old.queries}/${r.now.queries}`, 9)}${verdict}`,
      );
    }
    const date = new Date().toISOString();
    const file = path.join(here, "bench/results", `paired-${date.replace(/[:.]/g, "-")}.json`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ date, old, now: here, requests: REQUESTS, cpuRequests: CPU_REQUESTS, rows }, null, 2));
    console.log(`\nresults written to ${path.relative(here, file)}`);
  } finally {
    for (const t of trees) await t.stack.stop();
  }
}

await main();
