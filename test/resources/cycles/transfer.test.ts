// Cycles in export and import (docs/api.md, "Cycles"): an export carries its team's cycles with their exported tasks'
// ids; an import makes them in the target team with the next numbers and puts the tasks in them. Through HTTP.
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

const DAY = 86_400_000;
const at = (ms: number) => new Date(ms).toISOString();

interface ExportedCycle {
  id: string;
  number: number;
  name: string;
  startsAt: string;
  endsAt: string;
  taskIds: string[];
}
type Doc = { data: { cycles: ExportedCycle[]; tasks: Array<{ id: string; title: string; cycleId: string | null }> } };

describe("cycles in export and import", () => {
  let t: Tenant;
  let team: TeamFixture;
  let cycleIds: string[];
  const exportOf = async (path: string): Promise<Doc> => {
    const res = await get(path, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    t = await newTenant("Cycles Transfer Co");
    team = await newTeam(t, { name: "Planned" });
    const now = Date.now();
    cycleIds = [];
    for (const [from, to, name] of [
      [-7, 0, "Last week"],
      [0, 7, "This week"],
    ] as const) {
      const res = await post("/cycles", { teamId: team.id, startsAt: at(now + from * DAY), endsAt: at(now + to * DAY), name }, t.owner.key);
      expect(res.status).toBe(201);
      cycleIds.push(res.body.cycle.id);
    }
    for (const title of ["A", "B"]) {
      expect((await post("/tasks", { teamId: team.id, title, cycleId: cycleIds[1] }, t.owner.key)).status).toBe(201);
    }
    expect((await post("/tasks", { teamId: team.id, title: "Unplanned" }, t.owner.key)).status).toBe(201);
  });

  it("a team export carries its cycles and their tasks; a round trip makes them anew with their tasks in them", async () => {
    const doc = await exportOf(`/teams/${team.id}/export`);
    expect(doc.data.cycles.map((c) => [c.name, c.number, c.taskIds.length])).toEqual([
      ["Last week", 1, 0],
      ["This week", 2, 2],
    ]);
    const inCycle = doc.data.tasks.filter((task) => task.cycleId === cycleIds[1]).map((task) => task.id);
    expect(doc.data.cycles[1].taskIds.sort()).toEqual(inCycle.sort());

    const copy = await newTeam(t, { name: "Copy" });
    const res = await api("POST", `/teams/${copy.id}/import`, { body: { data: doc }, key: t.owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const copied = (await get(`/cycles?filter[eq][teamId]=${copy.id}&sort[number]=asc`, t.owner.key)).body.cycles;
    expect(copied.map((c: ExportedCycle) => [c.name, c.number, c.startsAt])).toEqual(
      doc.data.cycles.map((c) => [c.name, c.number, c.startsAt]),
    );
    expect(copied.every((c: { id: string }) => !cycleIds.includes(c.id))).toBe(true);
    const planned = (await get(`/tasks?filter[eq][cycleId]=${copy.prefix}-C2`, t.owner.key)).body.tasks;
    expect(planned.map((task: { title: string }) => task.title).sort()).toEqual(["A", "B"]);
    expect((await get(`/cycles/${copy.prefix}-C2`, t.owner.key)).body.cycle.progress.scope.tasks).toBe(2);

    // The same export again into the copy: its cycles of the same dates are the copy's, which take the new tasks too.
    const again = await api("POST", `/teams/${copy.id}/import`, { body: { data: doc }, key: t.owner.key });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect((await get(`/cycles?filter[eq][teamId]=${copy.id}`, t.owner.key)).body.cycles).toHaveLength(2);
    expect((await get(`/cycles/${copy.prefix}-C2`, t.owner.key)).body.cycle.progress.scope.tasks).toBe(4);
    // A cycle overlapping one of the target's (a day later) is refused as POST /cycles refuses it; nothing is written.
    const later = (iso: string) => new Date(Date.parse(iso) + DAY).toISOString();
    const shifted = {
      ...doc,
      data: { ...doc.data, cycles: doc.data.cycles.map((c) => ({ ...c, startsAt: later(c.startsAt), endsAt: later(c.endsAt) })) },
    };
    const overlapping = await api("POST", `/teams/${copy.id}/import`, { body: { data: shifted }, key: t.owner.key });
    expect(overlapping.status).toBe(422);
    expect(overlapping.body.errors.startsAt).toBeDefined();
    expect((await get(`/tasks?filter[eq][teamId]=${copy.id}`, t.owner.key)).body.tasks).toHaveLength(6);
  });

  it("a task export carries the cycle its task is in, with that task only", async () => {
    const doc = await exportOf(`/teams/${team.id}/export`);
    const a = doc.data.tasks.find((task) => task.title === "A") as { id: string };
    const one = await exportOf(`/tasks/${a.id}/export`);
    expect(one.data.cycles.map((c) => [c.id, c.taskIds])).toEqual([[cycleIds[1], [a.id]]]);
  });

  it("a document from before cycles travelled (no `cycles`) still imports", async () => {
    const doc = await exportOf(`/teams/${team.id}/export`);
    const { cycles: _c, ...data } = doc.data;
    const target = await newTeam(t, { name: "Old doc" });
    const res = await api("POST", `/teams/${target.id}/import`, { body: { data: { ...doc, data } }, key: t.owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await get(`/tasks?filter[eq][teamId]=${target.id}&filter[eq][cycleId]=null`, t.owner.key)).body.tasks).toHaveLength(3);
  });
});
