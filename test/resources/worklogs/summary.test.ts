// GET /worklogs/summary (docs/api.md, "Time tracking"): sums by user, team, project and task between two instants, in one
// statement, within the caller's workspace and teams, through HTTP against the real database.
import { beforeAll, describe, expect, it } from "vitest";
import { get, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { keyWith } from "../../helpers/least-privilege";

interface Row {
  key: string | null;
  name: string | null;
  seconds: number;
}

describe("worklog summary", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ops: TeamFixture;
  let ada: Member;
  let bob: Member;
  let project: { id: string; name: string };
  // Every worklog this file logs: [who, team, project?, task, startedAt, seconds].
  const logged: Array<{ user: string; team: string; project: string | null; task: string; startedAt: string; seconds: number }> = [];

  async function task(team: TeamFixture, projectId?: string) {
    const res = await post("/tasks", { title: "Sum me", teamId: team.id, ...(projectId ? { projectId } : {}) }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task as { id: string; reference: string; projectId: string | null; teamId: string };
  }
  async function log(who: Member, on: { id: string; projectId: string | null; teamId: string }, startedAt: string, seconds: number) {
    const res = await post(`/tasks/${on.id}/worklogs`, { startedAt, durationSeconds: seconds }, who.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    logged.push({ user: who.userId, team: on.teamId, project: on.projectId, task: on.id, startedAt, seconds });
  }
  const summary = (query: string, key = t.owner.key) => get(`/worklogs/summary?${query}`, key);
  /** The expected rows: the sums of the logged worklogs in [from, to), by `by`. */
  function expected(by: "user" | "team" | "project" | "task", from: string, to: string, teams?: string[]) {
    const sums = new Map<string | null, number>();
    for (const w of logged) {
      if (w.startedAt < from || w.startedAt >= to || (teams && !teams.includes(w.team))) continue;
      sums.set(w[by], (sums.get(w[by]) ?? 0) + w.seconds);
    }
    return sums;
  }
  const asMap = (rows: Row[]) => new Map(rows.map((r) => [r.key, r.seconds]));

  beforeAll(async () => {
    t = await newTenant("Timesheets Co");
    eng = await newTeam(t, { prefix: "SUME", name: "Engineering" });
    ops = await newTeam(t, { prefix: "SUMO", name: "Operations" });
    ada = await addMember(t, "MEMBER");
    bob = await addMember(t, "MEMBER");
    for (const m of [ada, bob]) {
      await joinTeam(eng, m, "MEMBER");
      await joinTeam(ops, m, "MEMBER");
    }
    const p = await post("/projects", { name: "Launch", teamId: eng.id }, t.owner.key);
    project = p.body.project;
    const [e1, e2, o1] = [await task(eng, project.id), await task(eng), await task(ops)];
    // The week of 2026-03-02 (Monday) to 2026-03-09, its edges, and the weeks around it.
    await log(ada, e1, "2026-03-02T00:00:00.000Z", 3600);
    await log(ada, e2, "2026-03-04T12:30:00.000Z", 1800);
    await log(bob, e1, "2026-03-05T09:00:00.000Z", 7200);
    await log(bob, o1, "2026-03-08T23:59:59.000Z", 600);
    await log(ada, o1, "2026-03-09T00:00:00.000Z", 999);
    await log(bob, e2, "2026-03-01T23:59:59.000Z", 444);

    // Another workspace's worklogs in the same week never appear.
    const other = await newTenant("Elsewhere");
    const team = await newTeam(other, { prefix: "SUMX" });
    const foreign = await post("/tasks", { title: "Not yours", teamId: team.id }, other.owner.key);
    await post(`/tasks/${foreign.body.task.id}/worklogs`, { startedAt: "2026-03-03T10:00:00Z", durationSeconds: 50_000 }, other.owner.key);
  });

  it("by user for a week equals the sum of that week's worklogs (from inclusive, to exclusive), in one statement", async () => {
    const res = await summary("groupBy=user&from=2026-03-02&to=2026-03-09");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(asMap(res.body.rows)).toEqual(expected("user", "2026-03-02T00:00:00.000Z", "2026-03-09T00:00:00.000Z"));
    expect(res.body.totalSeconds).toBe(3600 + 1800 + 7200 + 600);
    const names = Object.fromEntries(res.body.rows.map((r: Row) => [r.key, r.name]));
    expect(names).toEqual({ [ada.userId]: ada.name, [bob.userId]: bob.name });
    // Most first.
    expect(res.body.rows.map((r: Row) => r.key)).toEqual([bob.userId, ada.userId]);
    expect(res.queries).toBe(1);
  });

  it("by team, project and task; date-times with offsets bound it too", async () => {
    const [from, to] = ["2026-03-02T00:00:00.000Z", "2026-03-09T00:00:00.000Z"];
    for (const by of ["team", "project", "task"] as const) {
      const res = await summary(`groupBy=${by}&from=2026-03-02T01:00:00%2B01:00&to=2026-03-09`);
      expect(res.status).toBe(200);
      expect(asMap(res.body.rows), by).toEqual(expected(by, from, to));
    }
    const byProject = (await summary("groupBy=project&from=2026-03-02&to=2026-03-09")).body.rows as Row[];
    expect(byProject.find((r) => r.key === project.id)?.name).toBe("Launch");
    expect(byProject.find((r) => r.key === null)).toMatchObject({ name: null });
    const byTask = (await summary("groupBy=task&from=2026-03-02&to=2026-03-09")).body.rows as Row[];
    for (const row of byTask) expect(row.name).toMatch(/^SUM[EO]-\d+$/);
    // No bounds: everything the workspace logged.
    expect((await summary("groupBy=team")).body.totalSeconds).toBe(logged.reduce((s, w) => s + w.seconds, 0));
    // An empty range is no rows.
    expect((await summary("groupBy=user&from=2030-01-01&to=2030-01-02")).body).toEqual({ rows: [], totalSeconds: 0 });
  });

  it("a team-bound key sums only its teams", async () => {
    const bound = await keyWith(t.owner.key, { teamIds: [ops.id] });
    const res = await summary("groupBy=user&from=2026-03-02&to=2026-03-10", bound);
    expect(res.status).toBe(200);
    expect(asMap(res.body.rows)).toEqual(expected("user", "2026-03-02T00:00:00.000Z", "2026-03-10T00:00:00.000Z", [ops.id]));
    expect(res.body.totalSeconds).toBe(600 + 999);
  });

  it("refuses what it does not read: 422 naming the parameter; 401 without a credential", async () => {
    for (const [query, field] of [
      ["groupBy=week", "groupBy"],
      ["from=2026-03-02", "groupBy"],
      ["groupBy=user&from=last monday", "from"],
      ["groupBy=user&to=2026-02-31", "to"],
      ["groupBy=user&from=2026-03-09&to=2026-03-02", "to"],
    ]) {
      const res = await summary(query);
      expect(res.status, query).toBe(422);
      expect(Object.keys(res.body.errors), query).toContain(field);
    }
    expect((await summary("groupBy=user", "pmk_not-a-key-0000000000000000000000000000000")).status).toBe(401);
  });
});
