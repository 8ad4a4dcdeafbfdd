// Time tracking (docs/api.md, "Time tracking"): worklogs, the task's timeTracking and its roll-up over subtasks, the
// estimate's adjustment (also under concurrency), the rules, the events and the lists, through HTTP against the real
// database.
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { keyWith } from "../../helpers/least-privilege";

const WORKLOG_ID = /^wlg_[0-9a-z]{26}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const AT = "2026-03-02T09:00:00.000Z";

describe("worklogs", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let member: Member;
  let viewer: Member;
  let counter = 0;

  async function task(body: Record<string, unknown> = {}, team: TeamFixture = eng) {
    const res = await post("/tasks", { title: `W${counter++}`, teamId: team.id, ...body }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task as { id: string; reference: string; timeTracking: Record<string, number | null> };
  }
  const log = (taskId: string, body: Record<string, unknown>, key = t.owner.key) =>
    post(`/tasks/${taskId}/worklogs`, { startedAt: AT, ...body }, key);
  const timeOf = async (taskId: string) => (await get(`/tasks/${taskId}`, t.owner.key)).body.task.timeTracking;

  beforeAll(async () => {
    t = await newTenant("Worklogs Co");
    eng = await newTeam(t, { prefix: "WLG", name: "Engineering" });
    member = await addMember(t, "MEMBER");
    await joinTeam(eng, member, "MEMBER");
    viewer = await addMember(t, "MEMBER");
    await joinTeam(eng, viewer, "VIEWER");
  });

  it("a 1h worklog with auto lowers remainingSeconds by 3,600, the parent's totalSpentSeconds rises by 3,600, and worklog.created is in both histories", async () => {
    const parent = await task({ timeTracking: { estimateSeconds: 36_000 } });
    expect(parent.timeTracking).toEqual({ estimateSeconds: 36_000, remainingSeconds: 36_000, spentSeconds: 0, totalSpentSeconds: 0 });
    const child = await task({ parentId: parent.id, timeTracking: { estimateSeconds: 7200, remainingSeconds: 5000 } });
    const before = await timeOf(parent.reference);

    const res = await log(child.reference.toLowerCase(), { duration: "1h", note: "Fixed the login" }, member.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      worklog: {
        id: expect.stringMatching(WORKLOG_ID),
        taskId: child.id,
        userId: member.userId,
        startedAt: AT,
        durationSeconds: 3600,
        note: "Fixed the login",
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    });
    expect(res.headers.get("location")).toBe(`/worklogs/${res.body.worklog.id}`);
    // The insert, the rule and the estimate's adjustment are one statement.
    expect(res.queries).toBe(1);

    expect(await timeOf(child.id)).toEqual({ estimateSeconds: 7200, remainingSeconds: 1400, spentSeconds: 3600, totalSpentSeconds: 3600 });
    const after = await timeOf(parent.id);
    expect(after.totalSpentSeconds).toBe(before.totalSpentSeconds + 3600);
    expect(after.spentSeconds).toBe(0);

    for (const id of [child.id, parent.id]) {
      const history = await get(`/tasks/${id}/history`, t.owner.key);
      const created = history.body.events.find((e: { type: string }) => e.type === "worklog.created");
      expect(created, id).toMatchObject({ resourceId: res.body.worklog.id, data: { taskId: child.id, durationSeconds: 3600 } });
    }
  });

  it("totalSpentSeconds counts subtasks at every depth, in the task's one read", async () => {
    const top = await task();
    const mid = await task({ parentId: top.id });
    const leaf = await task({ parentId: mid.id });
    await log(top.id, { durationSeconds: 60 });
    await log(mid.id, { durationSeconds: 600 });
    await log(leaf.id, { duration: "2d" });
    const res = await get(`/tasks/${top.id}`, t.owner.key);
    expect(res.body.task.timeTracking).toEqual({
      estimateSeconds: null,
      remainingSeconds: null,
      spentSeconds: 60,
      totalSpentSeconds: 60 + 600 + 16 * 3600,
    });
    expect(res.queries).toBe(1);
    const list = await get(`/tasks?filter[eq][id]=${mid.id}&fields=id,timeTracking`, t.owner.key);
    expect(list.body.tasks[0].timeTracking).toMatchObject({ spentSeconds: 600, totalSpentSeconds: 600 + 16 * 3600 });
  });

  it("ten concurrent auto worklogs leave remainingSeconds exactly ten durations lower", async () => {
    const a = await task({ timeTracking: { estimateSeconds: 100_000 } });
    const results = await Promise.all(Array.from({ length: 10 }, () => log(a.id, { durationSeconds: 1234 })));
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(await timeOf(a.id)).toMatchObject({ remainingSeconds: 100_000 - 12_340, spentSeconds: 12_340 });
  });

  it("ten concurrent auto worklogs never take remainingSeconds below 0", async () => {
    const a = await task({ timeTracking: { estimateSeconds: 5000 } });
    const results = await Promise.all(Array.from({ length: 10 }, () => log(a.id, { durationSeconds: 1000 })));
    for (const r of results) expect(r.status).toBe(201);
    expect(await timeOf(a.id)).toMatchObject({ remainingSeconds: 0, spentSeconds: 10_000 });
  });

  it("adjustEstimate: new sets remaining (the estimate stays), manual lowers it by reduceBySeconds, leave keeps it", async () => {
    const a = await task({ timeTracking: { estimateSeconds: 10_000 } });
    expect((await log(a.id, { durationSeconds: 100, adjustEstimate: "leave" })).status).toBe(201);
    expect(await timeOf(a.id)).toMatchObject({ estimateSeconds: 10_000, remainingSeconds: 10_000 });
    expect((await log(a.id, { durationSeconds: 100, adjustEstimate: "manual", reduceBySeconds: 2500 })).status).toBe(201);
    expect(await timeOf(a.id)).toMatchObject({ remainingSeconds: 7500 });
    expect((await log(a.id, { durationSeconds: 100, adjustEstimate: "new", newEstimateSeconds: 3000 })).status).toBe(201);
    expect(await timeOf(a.id)).toMatchObject({ estimateSeconds: 10_000, remainingSeconds: 3000, spentSeconds: 300 });
    expect((await log(a.id, { durationSeconds: 100, adjustEstimate: "manual", reduceBySeconds: 99_999 })).status).toBe(201);
    expect(await timeOf(a.id)).toMatchObject({ remainingSeconds: 0 });
    // A task without a remaining estimate keeps none under auto.
    const b = await task();
    await log(b.id, { durationSeconds: 100 });
    expect(await timeOf(b.id)).toMatchObject({ remainingSeconds: null, spentSeconds: 100 });
  });

  it("timeTracking is writable in create and PATCH; an estimate alone sets what remains when nothing does", async () => {
    const a = await task();
    const set = await patch(`/tasks/${a.id}`, { timeTracking: { estimateSeconds: 900 } }, t.owner.key);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.task.timeTracking).toEqual({ estimateSeconds: 900, remainingSeconds: 900, spentSeconds: 0, totalSpentSeconds: 0 });
    const again = await patch(`/tasks/${a.id}`, { timeTracking: { estimateSeconds: 1800 } }, t.owner.key);
    expect(again.body.task.timeTracking).toMatchObject({ estimateSeconds: 1800, remainingSeconds: 900 });
    const both = await patch(`/tasks/${a.id}`, { timeTracking: { remainingSeconds: 60 } }, t.owner.key);
    expect(both.body.task.timeTracking).toMatchObject({ estimateSeconds: 1800, remainingSeconds: 60 });
    const cleared = await patch(`/tasks/${a.id}`, { timeTracking: { estimateSeconds: null, remainingSeconds: null } }, t.owner.key);
    expect(cleared.body.task.timeTracking).toMatchObject({ estimateSeconds: null, remainingSeconds: null });
    const bad = await patch(`/tasks/${a.id}`, { timeTracking: { estimateSeconds: -1, spentSeconds: 5 } }, t.owner.key);
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["timeTracking.estimateSeconds", "timeTracking.spentSeconds"]);
  });

  it("refuses what it cannot read: 422 at the field", async () => {
    const a = await task();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ duration: "an hour" }, "duration"],
      [{ duration: "90" }, "duration"],
      [{ duration: "30m 1h" }, "duration"],
      [{ durationSeconds: 0 }, "durationSeconds"],
      [{ durationSeconds: 1.5 }, "durationSeconds"],
      [{ duration: "1h", durationSeconds: 3600 }, "duration"],
      [{}, "duration"],
      [{ durationSeconds: 60, startedAt: "yesterday" }, "startedAt"],
      [{ durationSeconds: 60, adjustEstimate: "new" }, "newEstimateSeconds"],
      [{ durationSeconds: 60, reduceBySeconds: 5 }, "reduceBySeconds"],
      [{ durationSeconds: 60, adjustEstimate: "sometimes" }, "adjustEstimate"],
      [{ durationSeconds: 60, minutes: 1 }, ""],
    ];
    for (const [body, field] of cases) {
      const res = await log(a.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      if (field) expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect(await timeOf(a.id)).toMatchObject({ spentSeconds: 0 });
  });

  it("a VIEWER logs nothing; an agent's worklog shows the agent", async () => {
    const a = await task();
    const refused = await log(a.id, { durationSeconds: 60 }, viewer.key);
    expect(refused.status).toBe(403);
    const agent = await post("/agents", { name: "Timekeeper" }, member.key);
    expect(agent.status).toBe(201);
    await joinTeam(eng, { ...member, userId: agent.body.agent.id }, "MEMBER");
    const res = await log(a.id, { duration: "15m" }, agent.body.agent.apiKey);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.worklog.userId).toBe(agent.body.agent.id);
    expect(await timeOf(a.id)).toMatchObject({ spentSeconds: 900 });
  });

  it("PATCH and DELETE: its author or a workspace ADMIN/OWNER; others 403; If-Match as elsewhere", async () => {
    const a = await task();
    const other = await addMember(t, "MEMBER");
    await joinTeam(eng, other, "MEMBER");
    const mine = (await log(a.id, { durationSeconds: 600 }, member.key)).body.worklog;

    expect((await patch(`/worklogs/${mine.id}`, { note: "not mine" }, other.key)).status).toBe(403);
    expect((await del(`/worklogs/${mine.id}`, other.key)).status).toBe(403);

    const read = await get(`/worklogs/${mine.id}`, member.key);
    expect(read.status).toBe(200);
    const etag = read.headers.get("etag") as string;
    const changed = await patch(`/worklogs/${mine.id}`, { duration: "20m", note: "Reviewed" }, member.key);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.worklog).toMatchObject({ durationSeconds: 1200, note: "Reviewed", startedAt: AT });
    const stale = await api("PATCH", `/worklogs/${mine.id}`, { body: { note: "late" }, key: member.key, headers: { "if-match": etag } });
    expect(stale.status).toBe(412);
    expect(await timeOf(a.id)).toMatchObject({ spentSeconds: 1200 });

    // The workspace's OWNER may change and delete anyone's.
    expect((await patch(`/worklogs/${mine.id}`, { startedAt: "2026-03-03T10:00:00+02:00" }, t.owner.key)).body.worklog.startedAt).toBe(
      "2026-03-03T08:00:00.000Z",
    );
    expect((await del(`/worklogs/${mine.id}`, t.owner.key)).status).toBe(204);
    expect((await get(`/worklogs/${mine.id}`, member.key)).status).toBe(404);
    expect(await timeOf(a.id)).toMatchObject({ spentSeconds: 0 });

    const types = (await get(`/tasks/${a.id}/history`, t.owner.key)).body.events.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(["worklog.created", "worklog.updated", "worklog.deleted"]));
  });

  it("lists a task's worklogs and the workspace's, with filters, sorts and names", async () => {
    const ops = await newTeam(t, { prefix: "WOPS", name: "Operations" });
    const a = await task();
    const b = await task({}, ops);
    await log(a.id, { durationSeconds: 100, startedAt: "2026-04-01T08:00:00Z" }, member.key);
    await log(a.id, { durationSeconds: 200, startedAt: "2026-04-02T08:00:00Z" });
    await log(b.id, { durationSeconds: 300, startedAt: "2026-04-03T08:00:00Z" });

    const ofTask = await get(`/tasks/${a.reference}/worklogs?sort[startedAt]=desc`, t.owner.key);
    expect(ofTask.status).toBe(200);
    expect(ofTask.body.worklogs.map((w: { durationSeconds: number }) => w.durationSeconds)).toEqual([200, 100]);
    expect((await get("/tasks/WLG-99999/worklogs", t.owner.key)).status).toBe(404);

    const byUser = await get(`/worklogs?filter[eq][userId]=${member.email}&filter[eq][taskId]=${a.reference}`, t.owner.key);
    expect(byUser.body.worklogs.map((w: { durationSeconds: number }) => w.durationSeconds)).toEqual([100]);
    const byTeam = await get(`/worklogs?filter[eq][teamId]=WOPS`, t.owner.key);
    expect(byTeam.body.worklogs.map((w: { taskId: string }) => w.taskId)).toEqual([b.id]);
    const inRange = await get(
      "/worklogs?filter[gte][startedAt]=2026-04-02T00:00:00Z&filter[lt][startedAt]=2026-04-04T00:00:00Z&sort[durationSeconds]=desc",
      t.owner.key,
    );
    expect(inRange.body.worklogs.map((w: { durationSeconds: number }) => w.durationSeconds)).toEqual([300, 200]);
    const bad = await get("/worklogs?filter[eq][startedAt]=soon", t.owner.key);
    expect(bad.status).toBe(400);

    // A key bound to one team lists only that team's worklogs.
    const bound = await keyWith(t.owner.key, { teamIds: [ops.id] });
    const seen = await get("/worklogs?limit=250", bound);
    expect(seen.body.worklogs.length).toBeGreaterThan(0);
    expect(seen.body.worklogs.every((w: { taskId: string }) => w.taskId === b.id)).toBe(true);
  });

  it("another workspace's worklogs never appear: its ids are 404, its lists hold none of them", async () => {
    const a = await task();
    const mine = (await log(a.id, { durationSeconds: 60 })).body.worklog;
    const other = await newTenant("Elsewhere");
    expect((await get(`/worklogs/${mine.id}`, other.owner.key)).status).toBe(404);
    expect((await patch(`/worklogs/${mine.id}`, { note: "mine now" }, other.owner.key)).status).toBe(404);
    expect((await del(`/worklogs/${mine.id}`, other.owner.key)).status).toBe(404);
    expect((await get(`/tasks/${a.id}/worklogs`, other.owner.key)).status).toBe(404);
    expect((await post(`/tasks/${a.id}/worklogs`, { startedAt: AT, durationSeconds: 60 }, other.owner.key)).status).toBe(404);
    expect((await get("/worklogs?limit=250", other.owner.key)).body.worklogs).toEqual([]);
    expect((await get(`/worklogs?filter[eq][taskId]=${a.id}`, other.owner.key)).body.worklogs).toEqual([]);
    expect((await get(`/worklogs/${mine.id}`, t.owner.key)).status).toBe(200);
  });

  it("batch reads them as direct GETs do", async () => {
    const a = await task();
    const w = (await log(a.id, { durationSeconds: 120 })).body.worklog;
    const res = await post(
      "/batch",
      {
        requests: [
          `/worklogs/${w.id}`,
          `/tasks/${a.reference}/worklogs?fields=id,durationSeconds`,
          "/worklogs/summary?groupBy=task&from=2026-03-02&to=2026-03-03",
          "/worklogs/summary?groupBy=day",
        ],
      },
      t.owner.key,
    );
    expect(res.status).toBe(200);
    const [one, list, summary, bad] = res.body.results;
    expect(one).toEqual({ worklog: w });
    expect(list.worklogs).toEqual([{ id: w.id, durationSeconds: 120 }]);
    expect(summary.rows).toEqual(expect.arrayContaining([{ key: a.id, name: a.reference, seconds: 120 }]));
    expect(bad.error ?? bad.errors).toBeTruthy();
  });

  it("a tasks:write key logs and reads time; a read key reads it and logs nothing (403 naming tasks:write)", async () => {
    const a = await task();
    const writer = await keyWith(t.owner.key, { scopes: ["tasks:write"] });
    const logged = await log(a.id, { durationSeconds: 60 }, writer);
    expect(logged.status).toBe(201);
    expect((await get(`/worklogs/${logged.body.worklog.id}`, writer)).status).toBe(200);
    expect((await get("/worklogs/summary?groupBy=user", writer)).status).toBe(200);
    const reader = await keyWith(t.owner.key, { scopes: ["read"] });
    expect((await get(`/tasks/${a.id}/worklogs`, reader)).status).toBe(200);
    const refused = await log(a.id, { durationSeconds: 60 }, reader);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toMatchObject({ requiredScope: "tasks:write" });
    expect((await del(`/worklogs/${logged.body.worklog.id}`, reader)).status).toBe(403);
  });
});
