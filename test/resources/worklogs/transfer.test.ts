// Worklogs in export and import (docs/api.md, "Time tracking"): an export carries its tasks' worklogs and estimates; an
// import writes them in its one transaction, so the summary of the import is the summary of the original.
import { beforeAll, describe, expect, it } from "vitest";
import { joinWorkspaceWithKey } from "../../../src/auth/accounts/membership";
import { api, get, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

type Row = { key: string | null; name: string | null; seconds: number };
type Worklog = { id: string; taskId: string; userId: string | null; startedAt: string; durationSeconds: number; note: string | null };
type Doc = { type: string; data: { tasks: Array<{ id: string; title: string; estimateSeconds: number | null }>; worklogs: Worklog[] } };

/** The summary's rows by name (ids differ between the original and the import; names do not). */
const byName = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.name, r.seconds]));

describe("worklogs in export and import", () => {
  let t: Tenant;
  let team: TeamFixture;
  let member: Member;
  let tasks: Record<"a" | "b" | "sub" | "x", { id: string; reference: string }>;
  const summary = async (key: string, groupBy: string) => {
    const res = await get(`/worklogs/summary?groupBy=${groupBy}&from=2026-05-04&to=2026-05-11`, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { rows: Row[]; totalSeconds: number };
  };

  beforeAll(async () => {
    t = await newTenant("Timesheet Transfer Co");
    team = await newTeam(t, { name: "Timed", prefix: "TIMED" });
    const elsewhere = await newTeam(t, { name: "Untimed" });
    member = await addMember(t, "MEMBER");
    await joinTeam(team, member, "MEMBER");
    const project = (await post("/projects", { teamId: team.id, name: "Sprint" }, t.owner.key)).body.project;
    const create = async (body: Record<string, unknown>) => (await post("/tasks", body, t.owner.key)).body.task;
    const a = await create({ teamId: team.id, title: "A", projectId: project.id, timeTracking: { estimateSeconds: 36_000 } });
    tasks = {
      a,
      b: await create({ teamId: team.id, title: "B" }),
      sub: await create({ teamId: team.id, title: "Sub", parentId: a.id }),
      x: await create({ teamId: elsewhere.id, title: "X" }),
    };
    for (const [task, who, startedAt, durationSeconds, note] of [
      ["a", t.owner, "2026-05-04T09:00:00Z", 3600, "Kick-off"],
      ["a", t.owner, "2026-05-05T09:00:00Z", 1800, null],
      ["b", t.owner, "2026-05-06T09:00:00Z", 900, "Review"],
      ["sub", t.owner, "2026-05-07T09:00:00Z", 7200, null],
      ["sub", member, "2026-05-08T09:00:00Z", 600, null],
      ["x", t.owner, "2026-05-06T10:00:00Z", 5000, null],
    ] as const) {
      const res = await post(`/tasks/${tasks[task].id}/worklogs`, { startedAt, durationSeconds, note }, who.key);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });

  it("a team export carries its tasks' worklogs (not another team's) and estimates", async () => {
    const doc = (await get(`/teams/${team.id}/export`, t.owner.key)).body as Doc;
    expect(doc.data.worklogs.map((w) => w.durationSeconds).sort((x, y) => x - y)).toEqual([600, 900, 1800, 3600, 7200]);
    expect(doc.data.worklogs.find((w) => w.durationSeconds === 3600)).toEqual({
      id: expect.stringMatching(/^wlg_/),
      taskId: tasks.a.id,
      userId: t.owner.userId,
      startedAt: "2026-05-04T09:00:00.000Z",
      durationSeconds: 3600,
      note: "Kick-off",
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const a = doc.data.tasks.find((task) => task.id === tasks.a.id);
    expect(a).toMatchObject({ estimateSeconds: 36_000, remainingSeconds: 36_000 - 5400 });
    // A task export carries its subtree's.
    const taskDoc = (await get(`/tasks/${tasks.sub.id}/export`, t.owner.key)).body as Doc;
    expect(taskDoc.data.worklogs.map((w) => w.durationSeconds).sort((x, y) => x - y)).toEqual([600, 7200]);
  });

  it("an import of a workspace export reproduces the same summary", async () => {
    const original = {
      team: await summary(t.owner.key, "team"),
      project: await summary(t.owner.key, "project"),
      user: await summary(t.owner.key, "user"),
    };
    const doc = (await get(`/workspaces/${t.workspaceId}/export`, t.owner.key)).body;
    const res = await api("POST", "/workspaces/import", { body: { data: doc, update: false }, key: t.owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // A key of the importer, the new workspace's OWNER.
    const key = await withDb((db) =>
      joinWorkspaceWithKey(db, { workspaceId: res.body.workspace.id, userId: t.owner.userId, role: "OWNER", keyName: "test" }),
    );

    for (const by of ["team", "project"] as const) {
      const copy = await summary(key, by);
      expect(byName(copy.rows), by).toEqual(byName(original[by].rows));
      expect(copy.totalSeconds).toBe(original[by].totalSeconds);
    }
    // The importer's own time stays theirs; a member who is not in the new workspace is no one there.
    const users = await summary(key, "user");
    expect(users.totalSeconds).toBe(original.user.totalSeconds);
    const mine = (s: { rows: Row[] }) => s.rows.find((r) => r.key === t.owner.userId)?.seconds;
    expect(mine(users)).toBe(mine(original.user));
    expect(users.rows.find((r) => r.key === null)?.seconds).toBe(600);

    // The task's timeTracking is the original's, its spent time summed from the imported worklogs.
    const a = (await get(`/tasks?filter[eq][title]=A&fields=timeTracking`, key)).body.tasks[0];
    expect(a.timeTracking).toEqual({
      estimateSeconds: 36_000,
      remainingSeconds: 36_000 - 5400,
      spentSeconds: 5400,
      totalSpentSeconds: 5400 + 7800,
    });
  });

  it("a team import (update: false) copies the worklogs onto the copies of the tasks; a bad one refuses the whole import", async () => {
    const target = await newTeam(t, { name: "Copy" });
    const doc = (await get(`/teams/${team.id}/export`, t.owner.key)).body as Doc;
    const res = await api("POST", `/teams/${target.id}/import`, { body: { data: doc, update: false }, key: t.owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const copied = (await get(`/worklogs?filter[eq][teamId]=${target.id}&limit=250`, t.owner.key)).body.worklogs as Worklog[];
    expect(copied.map((w) => w.durationSeconds).sort((x, y) => x - y)).toEqual([600, 900, 1800, 3600, 7200]);
    expect(copied.find((w) => w.durationSeconds === 600)?.userId).toBe(member.userId);

    const bad = structuredClone(doc);
    bad.data.worklogs[0].durationSeconds = 0;
    bad.data.worklogs[1].taskId = "task_not_in_the_export";
    const refused = await api("POST", `/teams/${(await newTeam(t)).id}/import`, { body: { data: bad, update: false }, key: t.owner.key });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors).join(" ")).toMatch(/worklogs\.0\.durationSeconds/);
  });

  it("re-importing a team's export into it with update: true keeps each worklog (its id), not a copy of it", async () => {
    const own = await newTeam(t, { name: "Reimported" });
    const task = (await post("/tasks", { teamId: own.id, title: "Logged" }, t.owner.key)).body.task;
    const logged = await post(`/tasks/${task.id}/worklogs`, { startedAt: "2026-05-04T09:00:00Z", durationSeconds: 1200 }, t.owner.key);
    expect(logged.status, JSON.stringify(logged.body)).toBe(201);
    const doc = (await get(`/teams/${own.id}/export`, t.owner.key)).body as Doc;
    for (const _ of [1, 2]) {
      const res = await api("POST", `/teams/${own.id}/import`, { body: { data: doc, update: true }, key: t.owner.key });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const after = (await get(`/worklogs?filter[eq][teamId]=${own.id}&limit=250`, t.owner.key)).body.worklogs as Worklog[];
    expect(after.map((w) => w.id)).toEqual([logged.body.worklog.id]);
    const spent = (await get(`/tasks/${task.id}?fields=timeTracking`, t.owner.key)).body.task.timeTracking.spentSeconds;
    expect(spent).toBe(1200);
  });
});
