// The event and inbox triggers' plans on a reused connection (docs/performance.md, "Bulk writes"). A backend keeps each
// trigger statement's plan from its first use, and through a pooler (Neon's, PgBouncer, the SQL-over-HTTP stand-in's
// pool) that first use is most often a one-row write: a plan made for one row joined a bulk write's thousand rows to a
// thousand, row by row (1.5 s instead of 0.2). Here one connection writes one row first, then many, and the many's
// trigger statements (auto_explain, nested statements) never join the transition tables with a nested loop. Runs in Node
// on its own PostgreSQL, with the bench's seed.
import { rmSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedWorkspace } from "../../scripts/bench/seed.mjs";
import { startPostgres } from "../../scripts/lib/postgres.mjs";
import { migratedDataDir } from "../helpers/pg-template.mjs";

let dir;
let db;
let seeded;
let client;
beforeAll(async () => {
  dir = await migratedDataDir("trigger-plans");
  db = await startPostgres({ dataDir: path.join(dir, "pg") });
  seeded = await seedWorkspace(db.url, { tasks: 1000, projects: 4, comments: 10, labels: 3, members: 2 });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query("load 'auto_explain'");
}, 120_000);
afterAll(async () => {
  await client?.end();
  await db?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Whether the plan node joins rows of a transition table on both sides with a nested loop, anywhere below it. */
function nestedOverTransitions(node) {
  const reads = (n) => n["Node Type"] === "Named Tuplestore Scan" || (n.Plans ?? []).some(reads);
  if (node["Node Type"] === "Nested Loop" && node.Plans?.length === 2 && node.Plans.every(reads)) return true;
  return (node.Plans ?? []).some(nestedOverTransitions);
}

/**
 * `statement` in a transaction of this one connection, rolled back: the plans of the statements its triggers ran, and
 * the events it wrote. With `explain`, auto_explain hands each plan over as a notice.
 */
async function run(statement, params, { explain = false } = {}) {
  const plans = [];
  const collect = (notice) => {
    const json = notice.message.slice(notice.message.indexOf("{"));
    if (notice.message.includes("plan:")) plans.push(JSON.parse(json).Plan);
  };
  client.on("notice", collect);
  await client.query("begin");
  try {
    await client.query("select set_config('pm.ctx', $1, true)", [JSON.stringify({ actor: seeded.userIds[0] })]);
    if (explain) {
      await client.query(`set local auto_explain.log_min_duration = 0; set local auto_explain.log_nested_statements = on;
        set local auto_explain.log_format = json; set local auto_explain.log_level = notice`);
    }
    await client.query(statement, params);
    const { rows } = await client.query("select count(*)::int as n from events where xact = pg_current_xact_id()::text::bigint");
    return { plans, events: rows[0].n };
  } finally {
    await client.query("rollback");
    client.off("notice", collect);
  }
}

describe("trigger plans made for one row", () => {
  it("do not join a thousand updated tasks row by row", async () => {
    const one = "update tasks set due_date = '2098-01-01' where id = (select id from tasks where team_id = $1 order by number limit 1)";
    expect((await run(one, [seeded.teamId])).events).toBe(1);
    const all = await run("update tasks set due_date = '2099-01-01' where team_id = $1", [seeded.teamId], { explain: true });
    expect(all.events).toBe(1000);
    // The event trigger's and the inbox trigger's statements both read the transition tables.
    expect(all.plans.filter((p) => JSON.stringify(p).includes("Named Tuplestore Scan")).length).toBeGreaterThanOrEqual(2);
    expect(all.plans.filter(nestedOverTransitions)).toEqual([]);
  });

  it("do not join a project's tasks row by row when its delete updates each of them twice", async () => {
    // A project's delete clears its tasks' project and milestone by two foreign keys: each task updated twice in one
    // statement, the event trigger's other way of pairing versions. One project keeps one task, the other the rest.
    const [small, large] = seeded.projectIds;
    await client.query(
      `update tasks set project_id = case when id = (select min(id) from tasks where project_id = $1) then $1 else $2 end
       where project_id in ($1, $2)`,
      [small, large],
    );
    await client.query(
      "update tasks t set milestone_id = m.id from milestones m where m.project_id = t.project_id and t.project_id in ($1, $2)",
      [small, large],
    );
    const { rows } = await client.query("select count(*)::int as n from tasks where project_id = $1 and milestone_id is not null", [large]);
    expect(rows[0].n).toBeGreaterThan(100);
    expect((await run("delete from projects where id = $1", [small])).events).toBe(3); // the project, its milestone, its task
    const deleted = await run("delete from projects where id = $1", [large], { explain: true });
    expect(deleted.events).toBe(rows[0].n + 2);
    expect(deleted.plans.filter(nestedOverTransitions)).toEqual([]);
  });
});
