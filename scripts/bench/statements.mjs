// Where a request's database time goes (docs/performance.md, "Database time of a write"): the bench's stack and seed,
// PostgreSQL restarted with pg_stat_statements (track = all: the triggers' statements too, with their planning), then
// N sequential requests of each scenario named: the median `db ms` (Server-Timing), each statement's execution and
// planning time per request, and each statement the API sent once more under EXPLAIN ANALYZE (rolled back).
//
//   node scripts/bench/statements.mjs                   the floor, a task read, a create, an update and a comment
//   ONLY="POST /tasks|floor" N=40 node scripts/bench/statements.mjs
//   HOLD=1 …                                            keep the stack: SIGUSR2 measures again, SIGTERM stops
//   PAIRED=4 …                                          that many rounds of A B B A: A with the trigger functions'
//                                                       custom plans (their plan_cache_mode reset), B as committed
import { writeFileSync } from "node:fs";
import pg from "pg";
import { startStack } from "../lib/stack.mjs";
import { dbMsOf, nextOf, queriesOf, requestOf } from "./requests.mjs";
import { SCENARIOS } from "./scenarios.mjs";
import { seedWorkspace } from "./seed.mjs";

const N = Number(process.env.N ?? 40);
const TOP = Number(process.env.TOP ?? 12);
const OUT = process.env.OUT ?? "/tmp/statements.json";
const names = (process.env.ONLY ?? "floor|GET /tasks/{reference}|POST /tasks|PATCH /tasks/{id}|POST /comments").split("|");

// Every statement the stack's SQL-over-HTTP stand-in sends (it runs in this process, on this `pg`): text and values.
const sent = [];
let capture = false;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (q, ...rest) {
  if (capture && q && typeof q === "object" && q.text) sent.push({ text: q.text, values: q.values });
  return query.call(this, q, ...rest);
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Each distinct statement under EXPLAIN ANALYZE in a transaction rolled back, 10 times: median planning and execution. */
async function explain(c, q) {
  const plan = [];
  const exec = [];
  let last;
  for (let i = 0; i < 10; i++) {
    await c.query("begin");
    try {
      const { rows } = await c.query({ text: `explain (analyze, summary, format json) ${q.text}`, values: q.values });
      last = rows[0]["QUERY PLAN"][0];
      plan.push(last["Planning Time"]);
      exec.push(last["Execution Time"]);
    } catch (e) {
      return { error: e.message };
    } finally {
      await c.query("rollback");
    }
  }
  return { planMs: median(plan), execMs: median(exec), plan: last };
}

async function measureAll(c, base, fixture) {
  const out = [];
  for (const s of SCENARIOS.filter((x) => names.some((n) => x.name === n || (n === "floor" && x.ref === "floor")))) {
    const send = async () => {
      // A fresh scenario's next request writes anew (a new date, a new task), as the bench's do.
      const r = requestOf(base, fixture.apiKey, s, fixture, s.fresh ? nextOf(s) : 0);
      const res = await fetch(r.url, r);
      await res.arrayBuffer();
      return res;
    };
    for (let i = 0; i < 20; i++) await send(); // the pool's backends warm
    await c.query("select pg_stat_statements_reset()");
    sent.length = 0;
    capture = true;
    const db = [];
    let queries;
    for (let i = 0; i < N; i++) {
      const res = await send();
      db.push(dbMsOf(res));
      queries = queriesOf(res);
    }
    capture = false;
    const { rows } = await c.query(
      `select calls, round(total_exec_time::numeric / $1, 3) as exec_ms, round(total_plan_time::numeric / $1, 3) as plan_ms, toplevel,
         left(regexp_replace(query, '\\s+', ' ', 'g'), 150) as query
       from pg_stat_statements where query not ilike '%pg_stat_statements%' order by total_exec_time + total_plan_time desc limit 40`,
      [N],
    );
    console.log(`\n== ${s.name}: db ms p50 ${median(db)}, ${queries} queries; per request: calls, exec ms, plan ms (T: top level)`);
    for (const r of rows.slice(0, TOP))
      console.log(
        `${r.toplevel ? "T" : " "} ${String(r.calls / N).padStart(4)} ${String(r.exec_ms).padStart(7)} ${String(r.plan_ms).padStart(7)}  ${r.query}`,
      );
    const distinct = new Map();
    for (const q of sent) if (!/^\s*(begin|commit|rollback)/i.test(q.text)) distinct.set(q.text, q);
    const explained = [];
    for (const q of distinct.values()) {
      const e = await explain(c, q);
      explained.push({ query: q.text, values: q.values, ...e });
      console.log(
        `  explain: ${e.error ?? `plan ${e.planMs} ms, exec ${e.execMs} ms`}: ${q.text.replace(/\s+/g, " ").trim().slice(0, 90)}`,
      );
    }
    out.push({ name: s.name, queries, dbMsP50: median(db), statements: rows, explained });
  }
  writeFileSync(OUT, JSON.stringify(out, null, 2));
  return out;
}

const stack = await startStack({
  dataDir: process.env.DATA_DIR ?? ".data/statements",
  port: Number(process.env.PORT ?? 8798),
  pgPort: 0,
  benchRoutes: true,
  quiet: true,
  log: () => {},
});
try {
  let c = new pg.Client({ connectionString: stack.databaseUrl });
  await c.connect();
  await c.query("alter system set shared_preload_libraries = pg_stat_statements");
  await c.query("alter system set pg_stat_statements.track = 'all'");
  await c.query("alter system set pg_stat_statements.track_planning = on");
  await c.end();
  await stack.postgres.stop();
  await stack.postgres.start();
  c = new pg.Client({ connectionString: stack.databaseUrl });
  await c.connect();
  await c.query("create extension if not exists pg_stat_statements");
  const fixture = await seedWorkspace(stack.databaseUrl, { tasks: 10_000, projects: 200, comments: 4_000 });
  if (process.env.PAIRED) {
    const generic = ["pm_emit(text, text, pm_change[])", "pm_record_events()", "pm_notify(text, jsonb)"];
    const use = (b) =>
      Promise.all(
        generic.map((f) => c.query(`alter function ${f} ${b ? "set plan_cache_mode = force_generic_plan" : "reset plan_cache_mode"}`)),
      );
    const all = { A: [], B: [] };
    for (let i = 0; i < Number(process.env.PAIRED); i++)
      for (const side of ["A", "B", "B", "A"]) {
        await use(side === "B");
        console.log(`\n######## ${side} (${side === "A" ? "custom plans" : "generic plans"})`);
        all[side].push(await measureAll(c, stack.baseUrl, fixture));
      }
    for (const side of ["A", "B"]) {
      const byName = {};
      for (const run of all[side]) for (const r of run) byName[r.name] = [...(byName[r.name] ?? []), r.dbMsP50];
      console.log(
        `${side}: ${Object.entries(byName)
          .map(([n, v]) => `${n} ${median(v)} (${v.join(", ")})`)
          .join("; ")}`,
      );
    }
  } else await measureAll(c, stack.baseUrl, fixture);
  if (process.env.HOLD) {
    console.log(`holding (pid ${process.pid}): ${stack.databaseUrl} ${stack.baseUrl}`);
    let running = Promise.resolve();
    process.on("SIGUSR2", () => {
      running = running.then(() => measureAll(c, stack.baseUrl, fixture)).then(() => console.log("measured again"));
    });
    await new Promise((r) => process.once("SIGTERM", r));
    await running;
  }
  await c.end();
} finally {
  await stack.stop();
}
