// A team's prefix renamed (docs/api.md "Ids and names", docs/sync.md "A team renamed"): every task and project of the
// team gets its `*.updated` event with the new reference, in the rename's transaction; the old prefix keeps naming the
// same records (paths, bodies, filters, batch, events' resourceId) until another team takes it.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { api, eventually, get, patch, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, whileLocked, withDb } from "../../helpers/fixtures";
import { eventsAfter } from "../sync/sync-helpers";

let tenant: Tenant;
let team: TeamFixture;
let task: { id: string; reference: string };
let sub: { id: string; reference: string };
let project: { id: string; reference: string };
let renamedAt: string;

beforeAll(async () => {
  tenant = await newTenant("Rename");
  team = await newTeam(tenant, { prefix: "RNA" });
  const key = tenant.owner.key;
  project = (await post("/projects", { teamId: team.id, name: "Roadmap" }, key)).body.project;
  task = (await post("/tasks", { teamId: team.id, title: "first", projectId: project.id }, key)).body.task;
  sub = (await post("/tasks", { teamId: team.id, title: "second", parentId: task.id }, key)).body.task;
  expect([task.reference, sub.reference, project.reference]).toEqual(["RNA-1", "RNA-2", "RNA-P1"]);
  const renamed = await patch(`/teams/RNA`, { prefix: "RNB" }, key);
  expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
  expect(renamed.body.team.prefix).toBe("RNB");
  renamedAt = renamed.headers.get("pm-position") as string;
});

describe("PATCH /teams/{id} {prefix}", () => {
  it("writes a task.updated or project.updated for each record named after the team, with `reference` from the old name to the new", async () => {
    const events = await eventsAfter(tenant.owner.key, null);
    const rename = events.filter((e) => e.type !== "task.created" && e.type !== "project.created" && e.type !== "team.created");
    const of = (id: string) => rename.find((e) => e.resourceId === id);
    for (const [record, from, to] of [
      [task, "RNA-1", "RNB-1"],
      [sub, "RNA-2", "RNB-2"],
      [project, "RNA-P1", "RNB-P1"],
    ] as const) {
      const event = of(record.id);
      expect(event, record.id).toMatchObject({
        reference: to,
        changes: { reference: { from, to } },
        data: { id: record.id, reference: to },
      });
      expect(Object.keys(event.changes)).toEqual(["reference"]);
    }
    expect(of(team.id)).toMatchObject({ type: "team.updated", changes: { prefix: { from: "RNA", to: "RNB" } } });
    // All of them in the rename's transaction: PM-Position is the last of them.
    expect(rename.at(-1).id).toBe(renamedAt);
    // A fresh read of the task says what its event says.
    expect((await get(`/tasks/${task.id}`, tenant.owner.key)).body.task.reference).toBe("RNB-1");
  });

  it("keeps the old prefix naming the same records in paths, bodies, filters, batch items and the stream", async () => {
    const key = tenant.owner.key;
    for (const name of ["RNA-1", "rna-1", "RNB-1"]) expect((await get(`/tasks/${name}`, key)).body.task?.id, name).toBe(task.id);
    expect((await get("/projects/RNA-P1", key)).body.project.id).toBe(project.id);
    expect((await get("/teams/RNA", key)).body.team.id).toBe(team.id);
    expect((await get("/tasks/RNA-2/history", key)).status).toBe(200);

    const created = await post("/tasks", { teamId: "RNA", title: "by old names", parentId: "RNA-1", projectId: "RNA-P1" }, key);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.task).toMatchObject({ reference: "RNB-3", parentId: task.id, projectId: project.id, team: { id: team.id } });
    expect((await patch("/tasks/RNA-3", { title: "renamed by its old name" }, key)).body.task.id).toBe(created.body.task.id);

    const listed = await get("/tasks?filter[eq][teamId]=RNA&filter[in][reference]=RNA-1&filter[in][reference]=RNB-2", key);
    expect(listed.body.tasks.map((t: { id: string }) => t.id).sort()).toEqual([task.id, sub.id].sort());
    expect((await get("/tasks?filter[eq][projectId]=RNA-P1", key)).body.tasks.map((t: { id: string }) => t.id).sort()).toEqual(
      [task.id, created.body.task.id].sort(),
    );

    const batch = await post("/batch", { requests: ["/tasks/RNA-1", "/tasks/RNB-1", "/projects/rna-p1"] }, key);
    expect(batch.status).toBe(200);
    expect(batch.body.results.map((r: any) => r.task?.id ?? r.project?.id)).toEqual([task.id, task.id, project.id]);
    // The stream's resourceId by the old reference: the record's events before and after the rename.
    const stream = await get("/events?resourceId=RNA-1", key);
    expect(stream.body.events.map((e: { type: string }) => e.type)).toEqual(["task.created", "task.updated"]);

    // Another workspace's RNA names nothing of this one.
    const stranger = await newTenant("Rename stranger");
    expect((await get("/tasks/RNA-1", stranger.owner.key)).status).toBe(404);
    expect((await get("/teams/RNA", stranger.owner.key)).status).toBe(404);
  });

  it("the old prefix names the records of the team that takes it next, and a second rename keeps both old prefixes", async () => {
    const key = tenant.owner.key;
    const first = await newTeam(tenant, { prefix: "RNC" });
    const firstTask = (await post("/tasks", { teamId: first.id, title: "C1" }, key)).body.task;
    expect((await patch(`/teams/${first.id}`, { prefix: "RND" }, key)).status).toBe(200);
    expect((await patch(`/teams/${first.id}`, { prefix: "RNE" }, key)).status).toBe(200);
    expect((await get("/tasks/RNC-1", key)).body.task.id).toBe(firstTask.id);
    expect((await get("/tasks/RND-1", key)).body.task.id).toBe(firstTask.id);
    expect((await get("/tasks/RNE-1", key)).body.task.reference).toBe("RNE-1");

    // Another team takes RNC: from then on RNC is that team, and RNC-1 its task (or nothing while it has none).
    const taker = await post("/teams", { name: "Taker", prefix: "RNC" }, key);
    expect(taker.status).toBe(201);
    expect((await get("/teams/RNC", key)).body.team.id).toBe(taker.body.team.id);
    expect((await get("/tasks/RNC-1", key)).status).toBe(404);
    const theirs = (await post("/tasks", { teamId: "RNC", title: "theirs" }, key)).body.task;
    expect(theirs.reference).toBe("RNC-1");
    expect((await get("/tasks/RNC-1", key)).body.task.id).toBe(theirs.id);
    expect((await get("/tasks?filter[eq][teamId]=RNC", key)).body.tasks.map((t: { id: string }) => t.id)).toEqual([theirs.id]);
    // RND still names the first team, which may take its own old prefix back.
    expect((await get("/teams/RND", key)).body.team.id).toBe(first.id);
    expect((await patch("/teams/RND", { prefix: "RND" }, key)).body.team.prefix).toBe("RND");
    expect((await get("/tasks/RND-1", key)).body.task.id).toBe(firstTask.id);
    expect((await get("/tasks/RNE-1", key)).body.task.id).toBe(firstTask.id);
  });

  it("a task, project or cycle created, or an import, while a rename holds the team's lock waits for it (the team's row alone did not)", async () => {
    // The rename's lock without its row: the moment a rename has taken its lock and not yet written the team.
    const other = await newTeam(tenant, { prefix: "RNW" });
    const key = tenant.owner.key;
    const source = await newTeam(tenant, { prefix: "RNX" });
    expect((await post("/tasks", { teamId: source.id, title: "imported during a rename" }, key)).status).toBe(201);
    const doc = (await get(`/teams/${source.id}/export`, key)).body;
    const waitingOnLock = (count: number) => async () => {
      const { rows } = await withDb((db) =>
        db.execute<{ n: number }>(sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted`),
      );
      return rows[0].n >= count && "waiting";
    };
    const creates = await whileLocked(sql`select pg_advisory_xact_lock(pm_team_key(${other.id}))`, async () => {
      const sent = [];
      for (const create of [
        () => post("/tasks", { teamId: other.id, title: "during a rename" }, key),
        () => post("/projects", { teamId: other.id, name: "During a rename" }, key),
        () => post("/cycles", { teamId: other.id, startsAt: "2030-01-01T00:00:00Z", endsAt: "2030-01-15T00:00:00Z" }, key),
        () => post(`/teams/${other.id}/import`, { data: doc }, key),
      ]) {
        const answer = create();
        sent.push(answer);
        const first = await Promise.race([answer.then((r) => `answered ${r.status}`), eventually(waitingOnLock(sent.length))]);
        expect(first).toBe("waiting");
      }
      return sent;
    });
    const answers = await Promise.all(creates);
    for (const res of answers.slice(0, 3)) expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(answers[3].status, JSON.stringify(answers[3].body)).toBe(200);
  });

  it("a prefix another team has now is 409, old or not", async () => {
    const res = await api("PATCH", `/teams/${team.id}`, { body: { prefix: "RNC" }, key: tenant.owner.key });
    expect(res.status).toBe(409);
  });
});
