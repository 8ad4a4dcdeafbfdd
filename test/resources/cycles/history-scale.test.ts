// A cycle's history at the size the issue names (docs/api.md, "Cycles"): 500 tasks and 5,000 of their events answer in
// ONE statement, and the last day is the cycle's progress. The rows are written in bulk through SQL (the triggers write
// their events as for any write); the read goes through HTTP against the real database.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { get, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

const DAY = 86_400_000;
const TASKS = 500;
const ROUNDS = 9; // a create and 9 updates each: 5,000 events

describe("a cycle's history at scale", () => {
  let t: Tenant;
  let team: TeamFixture;
  let cycleId: string;

  beforeAll(async () => {
    t = await newTenant("Cycle scale");
    team = await newTeam(t);
    const now = Date.now();
    const res = await post(
      "/cycles",
      { teamId: team.id, startsAt: new Date(now - 6 * DAY).toISOString(), endsAt: new Date(now + DAY).toISOString() },
      t.owner.key,
    );
    expect(res.status).toBe(201);
    cycleId = res.body.cycle.id;
    await withDb(async (db) => {
      await db.execute(sql`insert into tasks (id, workspace_id, team_id, number, title, cycle_id, estimate, status)
        select pm_typeid('task'), ${t.workspaceId}, ${team.id}, n, 'Scaled ' || n, ${cycleId}, n % 5, 'BACKLOG' from generate_series(1, ${TASKS}) as n`);
      await db.execute(sql`update teams set task_counter = ${TASKS} where id = ${team.id}`);
      const statuses = ["IN_PROGRESS", "IN_REVIEW", "TODO", "DONE", "CANCELED"];
      for (let round = 0; round < ROUNDS; round++) {
        // Each its own transaction, so each is an event per task.
        await db.execute(
          sql`update tasks set status = (array[${sql.join(
            statuses.map((s) => sql`${s}`),
            sql`, `,
          )}]::text[])[1 + (number + ${round}) % 5], updated_at = now() where cycle_id = ${cycleId}`,
        );
      }
    });
  }, 120_000);

  it("answers in one statement, the last day equal to the progress", async () => {
    const events = await withDb(async (db) => {
      const { rows } = await db.execute<{ n: number }>(
        sql`select count(*)::int as n from events where resource_type = 'task' and team_id = ${team.id}`,
      );
      return rows[0].n;
    });
    expect(events).toBe(TASKS * (ROUNDS + 1));
    const started = Date.now();
    const history = await get(`/cycles/${cycleId}/history`, t.owner.key);
    console.info(`history of ${TASKS} tasks and ${events} events: ${Date.now() - started} ms`);
    expect(history.status).toBe(200);
    expect(history.queries).toBe(1);
    expect(history.body.days).toHaveLength(7);
    const progress = (await get(`/cycles/${cycleId}`, t.owner.key)).body.cycle.progress;
    const { date: _d, ...last } = history.body.days.at(-1);
    expect(last).toEqual(progress);
    expect(progress.scope.tasks).toBe(TASKS);
    // The days before today had none of them.
    expect(history.body.days[0].scope).toEqual({ tasks: 0, estimate: 0 });
  });
});
