// A rename of a team of 100,000 tasks (docs/sync.md, "A team renamed"): one PATCH through the API, one event per
// task, all in its transaction. How long it takes is logged (and in docs/performance.md), not bounded here: a busy
// machine makes any bound a flake.
import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { tasks } from "../../../drizzle/schema";
import { taskMatch } from "../../../src/records/names";
import { get, patch } from "../../helpers/api";
import { insertTasksInSql, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

const COUNT = 100_000;
let tenant: Tenant;
let team: TeamFixture;

beforeAll(async () => {
  tenant = await newTenant("Rename 100k");
  team = await newTeam(tenant, { prefix: "HUGE" });
  await insertTasksInSql(team, COUNT);
}, 300_000);

it("renames a team of 100,000 tasks through the API: a task.updated each, with the new reference", async () => {
  // PATCH /teams/{id} declares a longer write bound than a write's 5 s (writeSeconds), which a team this size outlasts.
  const started = performance.now();
  const renamed = await patch(`/teams/${team.id}`, { prefix: "VAST" }, tenant.owner.key);
  console.log(`rename of a team of ${COUNT} tasks: ${(performance.now() - started).toFixed(0)} ms`);
  expect(renamed.status).toBe(200);
  expect(renamed.body.team.prefix).toBe("VAST");
  const { rows } = await withDb((db) =>
    db.execute<{ events: number; renamed: number }>(sql`select count(*)::int as events,
      count(*) filter (where reference = 'VAST-' || (new_image->>'number') and old_image->>'reference' = 'HUGE-' || (new_image->>'number'))::int as renamed
      from events where workspace_id = ${tenant.workspaceId} and type = 'task.updated'`),
  );
  expect(rows[0]).toEqual({ events: COUNT, renamed: COUNT });
  expect((await get("/tasks/HUGE-100000", tenant.owner.key)).body.task.reference).toBe("VAST-100000");
  // How a reference is found: the team by its (workspace, prefix) index, the former prefixes only when no team has it.
  for (const name of ["VAST-50000", "HUGE-50000"]) {
    const plan = await withDb((db) =>
      db.execute<{ "QUERY PLAN": string }>(
        sql`explain (analyze, costs off, timing off, summary off) select ${tasks.id} from ${tasks} where ${tasks.workspaceId} = ${tenant.workspaceId} and ${taskMatch(name, tenant.workspaceId)}`,
      ),
    );
    const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
    console.log(`${name}:\n${text}`);
    // One probe of the tasks' (team, number) index either way; the current prefix never reads the former ones.
    expect(text).toMatch(/Index Scan using tasks_team_number_key/);
    if (name.startsWith("VAST")) expect(text).toMatch(/on team_former_prefixes \(never executed\)/);
  }
}, 300_000);
