// What one million requests of a realistic mix cost at list prices (docs/performance.md, "A price"), from a bench
// result file's latency rows: the Workers' CPU per request (front + API Worker) and the database's time (`db ms`) on
// each path the run measured.
//
//   node scripts/bench/price.mjs bench/results/<date>.json
//
// Prices (USD), read 29 November 2026:
// - Cloudflare Workers, Standard usage model (developers.cloudflare.com/workers/platform/pricing): $0.30 per million
//   requests and $0.02 per million CPU ms beyond the Paid plan's included 10 million requests and 30 million CPU ms a
//   month ($5 a month). A call through a Service Binding (front → API Worker) is not billed as a request; both Workers'
//   CPU is.
// - Neon, Launch plan (neon.com/faqs/managed-postgres-services-pay-active-compute): $0.106 per CU-hour (the plans page,
//   neon.com/docs/introduction/plans, has shown $0.14; both are printed). A CU is 1 vCPU (4 GB); the database's time is
//   priced as if the compute were busy with these requests only: 1,000 ms of statement time = 1 CU-second. That is a
//   floor: a compute bills every second it runs, busy or not (down to 0.25 CU, suspended after 5 idle minutes).
import { readFileSync } from "node:fs";

const WORKERS_PER_MILLION_REQUESTS = 0.3;
const WORKERS_PER_MILLION_CPU_MS = 0.02;
const NEON_PER_CU_HOUR = [0.106, 0.14];

/** The mix: a share of requests per bench row (reads 55 %, lists 25 %, writes 20 %). */
export const MIX = {
  "GET /tasks/{reference}": 0.35,
  "GET /notifications (inbox)": 0.1,
  "GET /teams/{id}/states": 0.05,
  "GET /worklogs/summary": 0.05,
  "GET /tasks?limit=50 filter+sort": 0.12,
  "GET /events?limit=50": 0.08,
  "GET /cycles with progress": 0.05,
  "POST /tasks": 0.05,
  "PATCH /tasks/{id}": 0.08,
  "POST /comments": 0.04,
  "POST /tasks/{id}/worklogs": 0.02,
  "POST /tasks/claim by filter": 0.01,
};

const result = JSON.parse(readFileSync(process.argv[2], "utf8"));
const paths = [
  ["production (HTTP query)", result.latency],
  ["WebSocket unpooled", result.unpooled?.latency],
  ["WebSocket through PgBouncer", result.pooled?.latency],
];
const usd = (x) => `$${x.toFixed(3)}`;
for (const [name, rows] of paths) {
  if (!rows) continue;
  let cpu = 0;
  let db = 0;
  let share = 0;
  for (const [row, w] of Object.entries(MIX)) {
    const r = rows.find((x) => x.name === row);
    if (!r) {
      console.log(`  (${name}: no row ${row})`);
      continue;
    }
    cpu += w * ((r.cpuApi ?? 0) + (r.cpuFront ?? 0));
    db += w * (r.dbMs ?? 0);
    share += w;
  }
  cpu /= share;
  db /= share;
  const workers = WORKERS_PER_MILLION_REQUESTS + cpu * WORKERS_PER_MILLION_CPU_MS;
  const neon = NEON_PER_CU_HOUR.map((p) => ((db * 1e6) / 3.6e6) * p);
  console.log(
    `${name}: per request ${cpu.toFixed(2)} CPU ms, ${db.toFixed(1)} db ms; a million: Workers ${usd(workers)} ` +
      `(requests ${usd(WORKERS_PER_MILLION_REQUESTS)}, CPU ${usd(cpu * WORKERS_PER_MILLION_CPU_MS)}), ` +
      `Neon ${neon.map(usd).join(" / ")} (${((db * 1e6) / 3.6e6).toFixed(2)} CU-hours at $${NEON_PER_CU_HOUR.join(" / $")}), ` +
      `total ${usd(workers + neon[0])} / ${usd(workers + neon[1])}`,
  );
}
