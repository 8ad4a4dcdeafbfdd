// Bulk writes (docs/api.md "Bulk writes"): many tasks changed or deleted in one request, all or nothing,
// each task held to its own PATCH's or DELETE's rule, with a dry run, per-task changes, one event per changed task and
// Idempotency-Key, through HTTP against the real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, expectAtomicWrite, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { keyWith, ok } from "../../helpers/least-privilege";

describe("POST /tasks/bulk", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ops: TeamFixture;
  let member: Member;
  let counter = 0;

  async function task(team: TeamFixture = eng, body: Record<string, unknown> = {}) {
    const res = await post("/tasks", { title: `B${counter++}`, teamId: team.id, ...body }, t.owner.key);
    return ok(res, 201).task as { id: string; reference: string; priority: string; status: string; updatedAt: string };
  }
  const bulk = (body: unknown, key = t.owner.key, headers: Record<string, string> = {}) =>
    api("POST", "/tasks/bulk", { body, key, headers });
  const eventsOf = async (id: string) =>
    ok(await get(`/events?resourceId=${id}&types=task.updated,task.deleted&limit=50`, t.owner.key), 200).events as Array<{
      type: string;
      requestId: string;
      changes?: Record<string, unknown>;
    }>;

  beforeAll(async () => {
    t = await newTenant("Bulk Co");
    eng = await newTeam(t, { prefix: "BLK", name: "Engineering" });
    ops = await newTeam(t, { prefix: "BLKOPS", name: "Operations" });
    member = await addMember(t, "MEMBER");
    await joinTeam(eng, member, "MEMBER");
    await joinTeam(ops, member, "VIEWER");
  }, 120_000);
  afterAll(() => {});

  it("sets three tasks' priority (one by reference): one statement, one event each with the request's id, PM-Position = position", async () => {
    const [a, b, c] = [await task(), await task(), await task()];
    const res = await bulk({ ids: [a.id, b.reference.toLowerCase(), c.id], set: { priority: "HIGH" } }, member.key, {
      "x-request-id": "bulk-three",
    });
    const body = ok(res, 200);
    expect(body).toMatchObject({ matched: 3, changed: 3 });
    expectAtomicWrite(res);
    expect(res.transactions).toBe(1);
    expect(body.tasks.map((x: { id: string }) => x.id).sort()).toEqual([a.id, b.id, c.id].sort());
    for (const x of body.tasks) expect(x.changes).toEqual({ priority: { from: "NONE", to: "HIGH" } });
    expect(body.position).toMatch(/^evt_/);
    expect(res.headers.get("pm-position")).toBe(body.position);
    for (const x of [a, b, c]) {
      const events = await eventsOf(x.id);
      expect(events.map((e) => [e.type, e.requestId])).toEqual([["task.updated", "bulk-three"]]);
      expect(ok(await get(`/tasks/${x.id}`, t.owner.key), 200).task.priority).toBe("HIGH");
    }
    // Again: each already as asked, so nothing is written (no event, updatedAt kept).
    const before = ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.updatedAt;
    expect(ok(await bulk({ ids: [a.id, b.id, c.id], set: { priority: "HIGH" } }), 200)).toMatchObject({ matched: 3, changed: 0 });
    expect(await eventsOf(a.id)).toHaveLength(1);
    expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.updatedAt).toBe(before);
  });

  it("refuses the whole write for one task the caller may only read (403 naming it), a bad status (422 keyed by its task) or an unknown id", async () => {
    const [a, readOnly] = [await task(eng), await task(ops)];
    const forbidden = await bulk({ ids: [a.id, readOnly.id], set: { priority: "URGENT" } }, member.key);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ code: "FORBIDDEN", details: { tasks: [readOnly.id] } });
    expect(forbidden.body.error.message).toContain(readOnly.reference);
    // A state only ENG has: the OPS task cannot take it.
    ok(await post(`/teams/${eng.id}/states`, { key: "QA", name: "QA", category: "started" }, t.owner.key), 201);
    const badStatus = await bulk({ ids: [a.id, readOnly.id], set: { status: "QA" } });
    expect(badStatus.status).toBe(422);
    expect(Object.keys(badStatus.body.errors)).toEqual([`tasks[${readOnly.reference}].status`]);
    const unknown = await bulk({ ids: [a.id, "BLK-99999"], set: { priority: "URGENT" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.ids[0]).toContain("BLK-99999");
    // Another workspace's task is unknown here too.
    const other = await newTenant("Bulk Other");
    const theirs = ok(
      await post("/tasks", { title: "theirs", teamId: (await newTeam(other, { prefix: "BLKX" })).id }, other.owner.key),
      201,
    ).task;
    expect((await bulk({ ids: [a.id, theirs.id], set: { priority: "URGENT" } })).body.errors).toHaveProperty("ids");
    for (const x of [a, readOnly]) {
      const now = ok(await get(`/tasks/${x.id}`, t.owner.key), 200).task;
      expect([now.priority, now.status]).toEqual(["NONE", "TODO"]);
      expect(await eventsOf(x.id)).toEqual([]);
    }
    // A key bound to ENG does not reach OPS's task: unknown, not forbidden.
    const bound = await keyWith(t.owner.key, { teamIds: [eng.id] });
    expect((await bulk({ ids: [readOnly.id], set: { priority: "LOW" } }, bound)).body.errors).toHaveProperty("ids");
    // A bad value for every task: PATCH's schema's 422.
    expect((await bulk({ ids: [a.id], set: { priority: "SOON" } })).body.errors).toHaveProperty(["set.priority"]);
    expect((await bulk({ ids: [a.id], set: { title: "x" } })).status).toBe(422);
    expect((await bulk({ ids: [a.id], filter: {}, set: { priority: "LOW" } })).body.errors).toHaveProperty("ids");
  });

  it("by filter: a dry run answers the same and writes nothing; more matches than limit is 422 naming filter", async () => {
    const team = await newTeam(t, { prefix: "BLKF" });
    const made = [await task(team), await task(team), await task(team, { status: "DONE" })];
    const body = {
      filter: { eq: { teamId: "BLKF" }, in: { status: ["TODO", "BACKLOG"] } },
      set: { status: "in progress" },
      addLabelIds: [],
    };
    const dry = ok(await bulk({ ...body, dryRun: true }), 200);
    expect(dry).toMatchObject({ matched: 2, changed: 2 });
    expect(dry.tasks[0].changes.status).toEqual({ from: "TODO", to: "IN_PROGRESS" });
    for (const x of made) expect(await eventsOf(x.id)).toEqual([]);
    expect(ok(await get(`/tasks/${made[0].id}`, t.owner.key), 200).task.status).toBe("TODO");
    const real = ok(await bulk(body), 200);
    // The same answer but for the moment a state was entered.
    const statuses = (answer: typeof dry) =>
      answer.tasks.map((x: { id: string; changes: Record<string, unknown> }) => [x.id, x.changes.status, Object.keys(x.changes)]);
    expect([real.matched, real.changed, statuses(real)]).toEqual([dry.matched, dry.changed, statuses(dry)]);
    expect(ok(await get(`/tasks/${made[0].id}`, t.owner.key), 200).task.status).toBe("IN_PROGRESS");
    const over = await bulk({ filter: { eq: { teamId: "BLKF" } }, limit: 2, set: { priority: "LOW" } });
    expect(over.status).toBe(422);
    expect(over.body.errors).toHaveProperty("filter");
    expect((await bulk({ filter: { eq: { nope: 1 } }, set: { priority: "LOW" } })).status).toBe(400);
  });

  it("adds and removes labels, sets links checked per task's team (422 keyed by each task that cannot take them)", async () => {
    const [bug, old] = [
      ok(await post("/labels", { name: "bulk-bug", color: "#ff0000" }, t.owner.key), 201).label,
      ok(await post("/labels", { name: "bulk-old", color: "#00ff00" }, t.owner.key), 201).label,
    ];
    const [a, b] = [await task(eng, { labelIds: [old.id] }), await task(eng)];
    const res = ok(await bulk({ ids: [a.reference, b.reference], addLabelIds: ["BULK-BUG"], removeLabelIds: [old.id] }), 200);
    expect(res).toMatchObject({ matched: 2, changed: 2 });
    expect(res.tasks.find((x: { id: string }) => x.id === a.id).changes.labelIds).toEqual({ from: [old.id], to: [bug.id] });
    expect(ok(await get(`/tasks/${b.id}`, t.owner.key), 200).task.labels.map((l: { id: string }) => l.id)).toEqual([bug.id]);
    expect((await bulk({ ids: [a.id], addLabelIds: ["no-such-label"] })).status).toBe(404);

    const project = ok(await post("/projects", { name: "Bulk P", teamId: eng.id }, t.owner.key), 201).project;
    const c = await task(ops);
    const misfit = await bulk({ ids: [a.id, c.id], set: { projectId: project.id, assigneeId: member.userId } });
    expect(misfit.status).toBe(422);
    expect(Object.keys(misfit.body.errors)).toEqual([`tasks[${c.reference}].projectId`]);
    const linked = ok(await bulk({ ids: [a.id, b.id], set: { projectId: project.id, assigneeId: member.email } }), 200);
    expect(linked.changed).toBe(2);
    expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task).toMatchObject({ projectId: project.id, assigneeId: member.userId });
    // PATCH's own rule, for comparison: the same misfit.
    expect((await patch(`/tasks/${c.id}`, { projectId: project.id }, t.owner.key)).body.errors).toHaveProperty("projectId");
  });

  it("deletes by ids once under an Idempotency-Key, answering the same body twice", async () => {
    const [a, b] = [await task(), await task()];
    const headers = { "idempotency-key": `bulk-del-${a.id}` };
    const first = await bulk({ ids: [a.id, b.id], delete: true }, t.owner.key, headers);
    const body = ok(first, 200);
    expect(body).toMatchObject({ matched: 2, changed: 2 });
    const again = await bulk({ ids: [a.id, b.id], delete: true }, t.owner.key, headers);
    expect(ok(again, 200)).toEqual(body);
    expect((await get(`/tasks/${a.id}`, t.owner.key)).status).toBe(404);
    expect((await eventsOf(a.id)).map((e) => e.type)).toEqual(["task.deleted"]);
    // Without the key, the ids now name nothing.
    expect((await bulk({ ids: [a.id], delete: true })).status).toBe(422);
  });
});
