// The write rows of `npm run bench` on their own, and what creates in one team cost against creates spread over ten
// (docs/performance.md, "Writes and search"): `node scripts/bench/writes.mjs` starts the stack as the bench does (or
// measures BASE_URL with DATABASE_URL), seeds a workspace, then measures the floor, POST /tasks, PATCH /tasks/{id} and
// POST /comments at 10 connections, and 10 clients of one connection each creating tasks, first all in one team, then
// each in a team of its own. WRITES_DURATION (s, default 10), WRITES_ROUNDS (default 1: rounds alternate the rows, so
// a busy machine's swings fall on both sides of every ratio).

import autocannon from "autocannon";
import { freePort } from "../lib/postgres.mjs";
import { startStack } from "../lib/stack.mjs";
import { seedWorkspace } from "./seed.mjs";

const DURATION = Number(process.env.WRITES_DURATION ?? 10);
const ROUNDS = Number(process.env.WRITES_ROUNDS ?? 1);
const TEAMS = 10;

const headers = (key) => ({ "svc-api-key": key, "content-type": "application/json" });

async function post(baseUrl, key, path, body) {
  const res = await fetch(baseUrl + path, { method: "POST", headers: headers(key), body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

/** One autocannon run: requests/s and p50. */
async function run(baseUrl, key, { method = "GET", path, body }, connections) {
  const r = await autocannon({
    url: baseUrl + path,
    method,
    headers: headers(key),
    body: body && JSON.stringify(body),
    connections,
    duration: DURATION,
  });
  const errors = r.errors + r.timeouts + r.non2xx;
  if (errors) throw new Error(`${method} ${path}: ${errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50 };
}

/** `clients` runs of one connection at once, the i-th creating in `teamOf(i)`: their summed requests/s. */
async function creates(baseUrl, f, teamOf) {
  const runs = await Promise.all(
    Array.from({ length: TEAMS }, (_, i) =>
      run(baseUrl, f.apiKey, { method: "POST", path: "/tasks", body: { teamId: teamOf(i), title: "Bench task" } }, 1),
    ),
  );
  return { rps: runs.reduce((s, r) => s + r.rps, 0), p50: runs.map((r) => r.p50).sort((a, b) => a - b)[TEAMS / 2] };
}

async function main() {
  let stack;
  let { BASE_URL: baseUrl, DATABASE_URL: databaseUrl } = process.env;
  if (!baseUrl) {
    stack = await startStack({ dataDir: ".data/bench-writes", port: await freePort(8798), pgPort: 0, benchRoutes: true, quiet: true });
    ({ baseUrl, databaseUrl } = stack);
  }
  try {
    const f = await seedWorkspace(databaseUrl, { tasks: 10_000, projects: 200, comments: 2_000, prefix: "WRT" });
    const teams = [];
    for (let i = 0; i < TEAMS; i++) teams.push((await post(baseUrl, f.apiKey, "/teams", { name: `Team ${i}`, prefix: `WT${i}` })).team.id);
    const rows = {
      floor: () => run(baseUrl, f.apiKey, { path: "/_bench/floor" }, 10),
      "POST /tasks (2 labels)": () =>
        run(
          baseUrl,
          f.apiKey,
          { method: "POST", path: "/tasks", body: { teamId: f.teamId, title: "Bench task", labelIds: f.labelIds.slice(0, 2) } },
          10,
        ),
      "PATCH /tasks/{id}": () =>
        run(baseUrl, f.apiKey, { method: "PATCH", path: `/tasks/${f.taskIds[10]}`, body: { status: "IN_PROGRESS", priority: "HIGH" } }, 10),
      "POST /comments": () =>
        run(baseUrl, f.apiKey, { method: "POST", path: "/comments", body: { taskId: f.taskIds[20], content: "Bench comment" } }, 10),
      "creates, 10 clients, one team": () => creates(baseUrl, f, () => teams[0]),
      "creates, 10 clients, ten teams": () => creates(baseUrl, f, (i) => teams[i]),
    };
    const sums = Object.fromEntries(Object.keys(rows).map((k) => [k, { rps: 0, p50: 0 }]));
    for (let round = 0; round < ROUNDS; round++) {
      const names = Object.keys(rows);
      for (const name of round % 2 ? names.reverse() : names) {
        const r = await rows[name]();
        sums[name].rps += r.rps / ROUNDS;
        sums[name].p50 += r.p50 / ROUNDS;
      }
    }
    const floor = sums.floor.rps;
    console.log(`\n${"row".padEnd(34)}${"req/s".padEnd(9)}${"p50 ms".padEnd(9)}× floor`);
    for (const [name, r] of Object.entries(sums)) {
      console.log(`${name.padEnd(34)}${r.rps.toFixed(1).padEnd(9)}${r.p50.toFixed(0).padEnd(9)}${(r.rps / floor).toFixed(2)}`);
    }
    const one = sums["creates, 10 clients, one team"].rps;
    const ten = sums["creates, 10 clients, ten teams"].rps;
    console.log(`one team ÷ ten teams: ${(one / ten).toFixed(2)} (target ≥ 0.8)`);
    console.log(JSON.stringify({ sums, oneOverTen: one / ten }));
  } finally {
    await stack?.stop();
  }
}

await main();
