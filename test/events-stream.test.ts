// GET /events under concurrent writers (docs/events.md, "Positions"): transactions commit out of the order in which
// they took their positions (slow ones hold theirs open while quick ones commit), and a reader polls throughout,
// resuming after the last event it got. Its sequence must equal the committed set, in position order: nothing
// skipped, nothing repeated.
import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { get, patch, post } from "./helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "./helpers/fixtures";

let tenant: Tenant;
let team: TeamFixture;

beforeAll(async () => {
  tenant = await newTenant("Stream");
  team = await newTeam(tenant, { prefix: "STR" });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("a reader polling while many transactions commit out of order gets every committed event once, in order", async () => {
  const tasks: any[] = [];
  for (let i = 0; i < 4; i++) tasks.push((await post("/tasks", { teamId: team.id, title: `seed ${i}` }, tenant.owner.key)).body.task);
  // The stream is read from the last seed's creation on.
  const start = (await get(`/events?limit=1&types=task.created&resourceId=${tasks[3].id}`, tenant.owner.key)).body.events[0];
  expect(start).toBeDefined();

  // 4 slow updates, 48 creates, 48 updates (each folded into one event per record and transaction).
  const expected = 4 + 48 + 48;
  let writing = true;
  const read: any[] = [];
  let after = start.id as string;
  let polls = 0;
  const poll = async () => {
    const res = await get(`/events?limit=250&after=${after}`, tenant.owner.key);
    expect(res.status).toBe(200);
    read.push(...res.body.events);
    if (res.body.events.length) after = res.body.events.at(-1).id;
    polls++;
  };
  // Polls while the writers write, then until it has caught up (another test file's open transaction may hold the
  // stream back a moment: an event shows only once every transaction that began before it has ended), then once more.
  const reader = (async () => {
    const deadline = Date.now() + 20_000;
    while (writing || (read.length < expected && Date.now() < deadline)) {
      await poll();
      await sleep(5);
    }
    await poll();
  })();

  // Quick writers through the API, each its own transaction.
  const quick = Array.from({ length: 6 }, async (_, w) => {
    for (let n = 0; n < 8; n++) {
      const res = await post("/tasks", { teamId: team.id, title: `w${w} n${n}` }, tenant.owner.key);
      expect(res.status).toBe(201);
      await patch(`/tasks/${res.body.task.id}`, { status: "IN_PROGRESS" }, tenant.owner.key);
    }
  });
  // Slow writers: take a position (the update's event) and hold the transaction open while the quick ones commit.
  const slow = tasks.map((task, i) =>
    withDb((db) =>
      db.transaction(async (tx) => {
        for (let round = 0; round < 3; round++) {
          await tx.execute(sql`update tasks set title = ${`slow ${i}.${round}`} where id = ${task.id}`);
          await tx.execute(sql`select pg_sleep(${0.05 + 0.05 * i})`);
        }
      }),
    ),
  );
  await Promise.all([...quick, ...slow]);
  writing = false;
  await reader;

  const { rows: committed } = await withDb((db) =>
    db.execute<{ id: string }>(
      sql`select id from events where workspace_id = ${tenant.workspaceId} and position > (select position from events where id = ${start.id}) order by position`,
    ),
  );
  const ids = read.map((e) => e.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(committed.map((r) => r.id));
  expect(ids.length).toBe(expected);
  expect(polls).toBeGreaterThan(5);
  // 100 writes in 10 lanes and a reader polling throughout: 6 s at load 15, so several times that on a busier machine.
}, 90_000);
