// Cycles (docs/api.md, "Cycles"): numbered per team and named `ENG-C3`, never overlapping, their progress by category,
// tasks' cycleId, the rollover by the system once a cycle ends, the history from the stored events, the burn-up picture
// and the team's velocity. Through HTTP against the real database.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { rollOverCycles } from "../../../src/resources/cycles/rollover";
import { del, expectAtomicWrite, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

const DAY = 86_400_000;
const at = (ms: number) => new Date(ms).toISOString();

let t: Tenant;

async function cycle(team: TeamFixture, startsAt: number, endsAt: number, extra: Record<string, unknown> = {}) {
  const res = await post("/cycles", { teamId: team.prefix, startsAt: at(startsAt), endsAt: at(endsAt), ...extra }, t.owner.key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.queries).toBe(1); // one statement: the team's counter, the insert, the answer
  expect(res.headers.get("location")).toBe(`/cycles/${res.body.cycle.id}`);
  return res.body.cycle;
}
async function task(team: TeamFixture, body: Record<string, unknown>) {
  const res = await post("/tasks", { title: "Plan me", teamId: team.id, ...body }, t.owner.key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task;
}
async function runScheduled() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

beforeAll(async () => {
  t = await newTenant("Cycles Co");
});

describe("cycles", () => {
  it("numbers a team's cycles from 1, names them ENG-C<n>, and refuses an overlap, a backwards or too long span", async () => {
    const team = await newTeam(t);
    const now = Date.now();
    const first = await cycle(team, now + 10 * DAY, now + 17 * DAY);
    const second = await cycle(team, now + 17 * DAY, now + 24 * DAY, { name: "Launch week" });
    expect([first.number, second.number]).toEqual([1, 2]);
    expect(first).toMatchObject({ name: "Cycle 1", teamId: team.id, state: "upcoming", description: "", reference: `${team.prefix}-C1` });
    expect(first.id).toMatch(/^cyc_/);
    expect(second.name).toBe("Launch week");

    const byName = await get(`/cycles/${team.prefix.toLowerCase()}-c2`, t.owner.key);
    expect(byName.status).toBe(200);
    expect(byName.body.cycle.id).toBe(second.id);

    const overlap = await post("/cycles", { teamId: team.id, startsAt: at(now + 20 * DAY), endsAt: at(now + 30 * DAY) }, t.owner.key);
    expect(overlap.status).toBe(422);
    expect(overlap.body.errors.startsAt).toBeDefined();
    const backwards = await post("/cycles", { teamId: team.id, startsAt: at(now + 40 * DAY), endsAt: at(now + 39 * DAY) }, t.owner.key);
    expect(backwards.status).toBe(422);
    expect(backwards.body.errors.endsAt).toBeDefined();
    const long = await post(
      "/cycles",
      { teamId: team.id, startsAt: at(now + 40 * DAY), endsAt: at(now + 40 * DAY + 183 * DAY) },
      t.owner.key,
    );
    expect(long.status).toBe(422);
    expect(long.body.errors.endsAt).toBeDefined();
    // The refused ones took no number.
    const third = await cycle(team, now + 24 * DAY, now + 31 * DAY);
    expect(third.number).toBe(3);

    // Concurrent creates of overlapping cycles: one wins, the other is 422.
    const racers = await Promise.all(
      [0, 1].map(() => post("/cycles", { teamId: team.id, startsAt: at(now + 50 * DAY), endsAt: at(now + 57 * DAY) }, t.owner.key)),
    );
    expect(racers.map((r) => r.status).sort()).toEqual([201, 422]);

    const listed = await get(`/cycles?filter[eq][teamId]=${team.prefix}&filter[eq][state]=upcoming&sort[number]=desc`, t.owner.key);
    expect(listed.status).toBe(200);
    expect(listed.body.cycles.map((c: { number: number }) => c.number)).toEqual([4, 3, 2, 1]);

    const renamed = await patch(`/cycles/${team.prefix}-C1`, { name: "Warm-up", startsAt: at(now + 9 * DAY) }, t.owner.key);
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expectAtomicWrite(renamed, "PATCH /cycles/{id}");
    expect(renamed.body.cycle).toMatchObject({ name: "Warm-up", startsAt: at(now + 9 * DAY) });
    const intoNext = await patch(`/cycles/${first.id}`, { endsAt: at(now + 18 * DAY) }, t.owner.key);
    expect(intoNext.status).toBe(422);
    expect(intoNext.body.errors.startsAt).toBeDefined();

    const events = await get(`/events?resourceId=${second.id}`, t.owner.key);
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual(["cycle.created"]);
    expect(events.body.events[0].reference).toBe(`${team.prefix}-C2`);
  });

  it("counts progress by category with estimates, and takes tasks of its team's cycles that have not ended", async () => {
    const team = await newTeam(t);
    const other = await newTeam(t);
    const now = Date.now();
    const c = await cycle(team, now - DAY, now + 6 * DAY);
    const ref = `${team.prefix}-C1`;
    await task(team, { cycleId: ref, status: "TODO", estimate: 1 });
    await task(team, { cycleId: ref, status: "IN_PROGRESS", estimate: 2 });
    await task(team, { cycleId: c.id, status: "DONE", estimate: 3 });
    const canceled = await task(team, { status: "CANCELED", estimate: 5 });
    expect((await patch(`/tasks/${canceled.id}`, { cycleId: ref }, t.owner.key)).body.task.cycleId).toBe(c.id);
    await task(team, { status: "TODO", estimate: 8 }); // not in the cycle

    const read = await get(`/cycles/${c.id}`, t.owner.key);
    expect(read.status).toBe(200);
    expect(read.queries).toBe(1);
    expect(read.body.cycle.state).toBe("active");
    expect(read.body.cycle.progress).toEqual({
      scope: { tasks: 4, estimate: 11 },
      started: { tasks: 1, estimate: 2 },
      completed: { tasks: 1, estimate: 3 },
      canceled: { tasks: 1, estimate: 5 },
    });

    const inCycle = await get(`/tasks?filter[eq][cycleId]=${ref}&sort[cycleId]=asc`, t.owner.key);
    expect(inCycle.status).toBe(200);
    expect(inCycle.body.tasks).toHaveLength(4);
    // A claim's filter takes the list's names: the first open task of the cycle, by its name.
    const claimed = await post("/tasks/claim", { filter: { eq: { cycleId: ref, status: "TODO" } } }, t.owner.key);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body.task).toMatchObject({ cycleId: c.id, status: "TODO" });

    // Another team's cycle, an ended one, a name naming nothing.
    const foreign = await cycle(other, now, now + DAY);
    const wrongTeam = await post("/tasks", { title: "x", teamId: team.id, cycleId: foreign.id }, t.owner.key);
    expect(wrongTeam.status).toBe(422);
    expect(wrongTeam.body.errors.cycleId).toBeDefined();
    const past = await cycle(team, now - 10 * DAY, now - 3 * DAY);
    const ended = await post("/tasks", { title: "x", teamId: team.id, cycleId: past.id }, t.owner.key);
    expect(ended.status).toBe(422);
    expect(ended.body.errors.cycleId).toBeDefined();
    expect((await post("/tasks", { title: "x", teamId: team.id, cycleId: `${team.prefix}-C99` }, t.owner.key)).status).toBe(404);
    expect((await post("/tasks", { title: "x", teamId: team.id, cycleId: "not a cycle" }, t.owner.key)).status).toBe(422);

    // An ended cycle's dates are fixed.
    expect((await patch(`/cycles/${past.id}`, { endsAt: at(now - 2 * DAY) }, t.owner.key)).status).toBe(409);

    // Deleting a cycle clears its tasks' cycleId.
    const gone = await cycle(team, now + 30 * DAY, now + 31 * DAY);
    const planned = await task(team, { cycleId: gone.id });
    expect((await del(`/cycles/${gone.id}`, t.owner.key)).status).toBe(204);
    expect((await get(`/tasks/${planned.id}`, t.owner.key)).body.task.cycleId).toBeNull();
    expect((await get(`/cycles/${gone.id}`, t.owner.key)).status).toBe(404);
  });

  it("rolls an ended cycle's open tasks over to the next cycle, by the system, once, and freezes its progress", async () => {
    const team = await newTeam(t);
    const now = Date.now();
    const ending = await cycle(team, now - 7 * DAY, now + 3_600_000);
    const next = await cycle(team, now + 2 * 3_600_000, now + 7 * DAY);
    const open1 = await task(team, { cycleId: ending.id, status: "TODO", estimate: 2 });
    const open2 = await task(team, { cycleId: ending.id, status: "IN_PROGRESS" });
    const done = await task(team, { cycleId: ending.id, status: "DONE", estimate: 3 });
    // The cycle ends now (its end moved into the past, as the clock would).
    const ended = await patch(`/cycles/${ending.id}`, { endsAt: at(Date.now() - 1000) }, t.owner.key);
    expect(ended.body.cycle.state).toBe("ended");

    // Two schedulers at once (the Cron Trigger and a late one): each task moves once.
    await Promise.all([runScheduled(), withDb((db) => rollOverCycles(db)), withDb((db) => rollOverCycles(db))]);
    for (const open of [open1, open2]) {
      expect((await get(`/tasks/${open.id}`, t.owner.key)).body.task.cycleId).toBe(next.id);
      const history = await get(`/tasks/${open.id}/history`, t.owner.key);
      const moves = history.body.events.filter((e: { changes?: Record<string, unknown> }) => e.changes?.cycleId);
      expect(moves).toHaveLength(1);
      expect(moves[0].type).toBe("task.updated");
      expect(moves[0].actor).toEqual({ id: null, name: "system", type: "SYSTEM", via: "system" });
      expect(moves[0].changes.cycleId).toEqual({ from: ending.id, to: next.id });
    }
    expect((await get(`/tasks/${done.id}`, t.owner.key)).body.task.cycleId).toBe(ending.id);

    const frozen = (await get(`/cycles/${ending.id}`, t.owner.key)).body.cycle;
    expect(frozen.progress.scope).toEqual({ tasks: 3, estimate: 5 });
    expect(frozen.progress.completed).toEqual({ tasks: 1, estimate: 3 });
    expect((await get(`/cycles/${next.id}`, t.owner.key)).body.cycle.progress.scope).toEqual({ tasks: 2, estimate: 2 });
    // Frozen: a later change of its remaining task does not change it.
    await patch(`/tasks/${done.id}`, { status: "CANCELED" }, t.owner.key);
    expect((await get(`/cycles/${ending.id}`, t.owner.key)).body.cycle.progress).toEqual(frozen.progress);
    // No event for the freezing itself.
    const cycleEvents = await get(`/events?resourceId=${ending.id}`, t.owner.key);
    expect(cycleEvents.body.events.map((e: { type: string }) => e.type)).toEqual(["cycle.created", "cycle.updated"]);

    const velocity = await get(`/teams/${team.prefix}/velocity`, t.owner.key);
    expect(velocity.status, JSON.stringify(velocity.body)).toBe(200);
    expect(velocity.body.cycles).toEqual([{ id: ending.id, number: 1, completed: { tasks: 1, estimate: 3 } }]);
    expect(velocity.body.average).toEqual({ tasks: 1, estimate: 3 });
    expect((await get(`/teams/${team.prefix}/velocity?cycles=13`, t.owner.key)).status).toBe(422);
  });

  it("keeps a day-by-day history from the stored events and draws it as an accessible SVG", async () => {
    const team = await newTeam(t, { name: "Ops <&> Co" });
    const now = Date.now();
    const c = await cycle(team, now - 2 * DAY, now + 5 * DAY, { name: 'Sprint "A" <b>' });
    const a = await task(team, { cycleId: c.id, estimate: 2 });
    await task(team, { cycleId: c.id, status: "DONE", estimate: 1 });
    await patch(`/tasks/${a.id}`, { status: "IN_PROGRESS" }, t.owner.key);

    const history = await get(`/cycles/${team.prefix}-C1/history`, t.owner.key);
    expect(history.status, JSON.stringify(history.body)).toBe(200);
    expect(history.queries).toBe(1);
    const days = history.body.days;
    expect(days).toHaveLength(3);
    expect(days[0].date).toBe(at(now - 2 * DAY).slice(0, 10));
    expect(days[2].date).toBe(at(now).slice(0, 10));
    const zero = { tasks: 0, estimate: 0 };
    expect(days[0]).toMatchObject({ scope: zero, started: zero, completed: zero, canceled: zero });
    const current = (await get(`/cycles/${c.id}`, t.owner.key)).body.cycle.progress;
    const { date: _date, ...last } = days[2];
    expect(last).toEqual(current);

    const svg = await get(`/cycles/${c.id}/burnup.svg`, t.owner.key);
    expect(svg.status).toBe(200);
    expect(svg.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    const text = svg.body as string;
    expect(text).not.toMatch(/<script/i);
    expect(text).toContain(`<title id="title">Burn-up of ${team.prefix}-C1 Sprint &quot;A&quot; &lt;b&gt;</title>`);
    const desc = /<desc[^>]*>([^<]*)<\/desc>/.exec(text)?.[1] ?? "";
    expect(desc).toContain(`${days[2].date}: scope 2, completed 1`);
    expect(desc).toContain(`${days[0].date}: scope 0, completed 0`);
  });
});

describe("who plans cycles", () => {
  it("a team VIEWER is 403, another workspace's cycle is 404, a MEMBER plans", async () => {
    const team = await newTeam(t);
    const now = Date.now();
    const viewer = await addMember(t);
    await joinTeam(team, viewer, "VIEWER");
    const member = await addMember(t);
    await joinTeam(team, member, "MEMBER");
    const body = { teamId: team.id, startsAt: at(now), endsAt: at(now + DAY) };
    expect((await post("/cycles", body, viewer.key)).status).toBe(403);
    const made = await post("/cycles", body, member.key);
    expect(made.status).toBe(201);
    const other = await newTenant("Elsewhere");
    expect((await get(`/cycles/${made.body.cycle.id}`, other.owner.key)).status).toBe(404);
    expect((await patch(`/cycles/${made.body.cycle.id}`, { name: "Mine" }, other.owner.key)).status).toBe(404);
    expect((await get(`/cycles/${made.body.cycle.id}`, viewer.key)).status).toBe(200);
  });
});

describe("cycles in the sync snapshot", () => {
  it("are records of the snapshot as their events' data has them, named ENG-C<n>", async () => {
    const team = await newTeam(t);
    const now = Date.now();
    const c = await cycle(team, now + 100 * DAY, now + 107 * DAY);
    const snapshot = await get(`/sync/snapshot?types=cycle&teamIds=${team.prefix}`, t.owner.key);
    expect(snapshot.status).toBe(200);
    const lines = (snapshot.body as string)
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const records = lines.filter((l) => l.type === "cycle").map((l) => l.record);
    expect(records).toHaveLength(1);
    const [event] = (await get(`/events?resourceId=${team.prefix}-C1`, t.owner.key)).body.events;
    expect(records[0]).toEqual(event.data);
    expect(records[0]).toMatchObject({ id: c.id, reference: `${team.prefix}-C1`, number: 1 });
  });
});
