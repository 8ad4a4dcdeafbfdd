// Task relations (docs/api.md "Task relations"): the resource, its rules, and what tasks gain, through
// HTTP against the real database.
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, post, testEnv } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { keyWith } from "../../helpers/least-privilege";

const REL_ID = /^rel_[0-9a-z]{26}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("task relations", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ops: TeamFixture;
  let member: Member;
  let viewer: Member;
  let counter = 0;

  async function task(team: TeamFixture = eng, extra: Record<string, unknown> = {}) {
    const res = await post("/tasks", { title: `T${counter++}`, teamId: team.id, ...extra }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task as { id: string; reference: string; title: string; status: string };
  }
  const relate = (from: string, type: string, to: string, key = t.owner.key) => post(`/tasks/${from}/relations`, { type, taskId: to }, key);

  beforeAll(async () => {
    t = await newTenant("Relations Co");
    eng = await newTeam(t, { prefix: "REL", name: "Engineering" });
    ops = await newTeam(t, { prefix: "ROPS", name: "Operations" });
    member = await addMember(t, "MEMBER");
    await joinTeam(eng, member, "MEMBER");
    viewer = await addMember(t, "MEMBER");
    await joinTeam(eng, viewer, "VIEWER");
  });

  describe("create", () => {
    it("answers 201 with the relation as seen from the path's task; ids and references both work", async () => {
      const [a, b] = [await task(), await task()];
      const res = await relate(a.reference.toLowerCase(), "blocks", b.reference, member.key);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual({
        relation: {
          id: expect.stringMatching(REL_ID),
          type: "blocks",
          task: { id: b.id, reference: b.reference, title: b.title, status: "TODO" },
          createdAt: expect.stringMatching(ISO),
          createdBy: member.userId,
        },
      });
      // From the other side it is `blocked_by`, the same stored edge.
      const list = await get(`/tasks/${b.id}/relations`, member.key);
      expect(list.status).toBe(200);
      expect(list.body.relations).toEqual([
        { ...res.body.relation, type: "blocked_by", task: { id: a.id, reference: a.reference, title: a.title, status: "TODO" } },
      ]);
      expect(list.body.pagination).toEqual({ limit: expect.any(Number), nextCursor: null });
    });

    it("stores one edge per pair and meaning: blocked_by is blocks from the other side, related is symmetric (409 the second time)", async () => {
      const [a, b] = [await task(), await task()];
      expect((await relate(a.id, "blocked_by", b.id)).status).toBe(201);
      const again = await relate(b.id, "blocks", a.id);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("CONFLICT");
      expect((await relate(a.id, "related", b.id)).status).toBe(201);
      expect((await relate(b.id, "related", a.id)).status).toBe(409);
      const listed = (await get(`/tasks/${a.id}/relations`, t.owner.key)).body.relations.map((r: { type: string }) => r.type);
      expect(listed.sort()).toEqual(["blocked_by", "related"]);
    });

    it("refuses the task itself (422 at taskId), an unknown type (422), an unknown or foreign task (404)", async () => {
      const a = await task();
      const self = await relate(a.id, "related", a.reference);
      expect(self.status).toBe(422);
      expect(self.body.errors.taskId).toBeDefined();
      expect((await relate(a.id, "parent_of", a.id)).status).toBe(422);
      expect((await relate(a.id, "blocks", "task_00000000000000000000000000")).status).toBe(404);
      expect((await relate("task_00000000000000000000000000", "blocks", a.id)).status).toBe(404);
      const elsewhere = await newTenant("Other Relations Co");
      const foreignTeam = await newTeam(elsewhere, { prefix: "FRN" });
      const foreign = (await post("/tasks", { title: "theirs", teamId: foreignTeam.id }, elsewhere.owner.key)).body.task;
      expect((await relate(a.id, "blocks", foreign.id)).status).toBe(404);
      expect((await get(`/tasks/${a.id}/relations`, t.owner.key)).body.relations).toEqual([]);
    });

    it("relates tasks of different teams of the workspace", async () => {
      const [a, b] = [await task(eng), await task(ops)];
      const res = await relate(a.id, "related", b.id, member.key);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.relation.task.reference).toBe(b.reference);
    });

    it("needs the task write rule on the path's task: a team VIEWER gets 403, a read-only key 403", async () => {
      const [a, b] = [await task(), await task()];
      expect((await relate(a.id, "blocks", b.id, viewer.key)).status).toBe(403);
      const readOnly = await keyWith(t.owner.key, { scopes: ["read"] });
      const refused = await relate(a.id, "blocks", b.id, readOnly);
      expect(refused.status).toBe(403);
      expect(refused.body.error.details).toEqual({ requiredScope: "tasks:write" });
      expect((await get(`/tasks/${a.id}/relations`, readOnly)).status).toBe(200);
    });
  });

  describe("cycles", () => {
    it("refuses a blocks edge that closes a cycle, naming the path (also through blocked_by)", async () => {
      const [a, b, c] = [await task(), await task(), await task()];
      expect((await relate(a.id, "blocks", b.id)).status).toBe(201);
      expect((await relate(b.id, "blocks", c.id)).status).toBe(201);
      const closing = await relate(c.id, "blocks", a.id);
      expect(closing.status).toBe(422);
      expect(closing.body.errors.taskId[0]).toContain(`${c.reference} blocks ${a.reference} blocks ${b.reference} blocks ${c.reference}`);
      expect((await relate(a.id, "blocked_by", c.id)).status).toBe(422);
      // Not a cycle: a second way to the same task, and other meanings.
      expect((await relate(a.id, "blocks", c.id)).status).toBe(201);
      expect((await relate(c.id, "related", a.id)).status).toBe(201);
    });

    it("never lets two concurrent edges close a cycle: exactly one of A blocks B / B blocks A succeeds, 8 pairs at once", async () => {
      // The pairs race each other too: 16 edges in flight on one workspace's graph.
      const pairs = await Promise.all(Array.from({ length: 8 }, async () => [await task(eng), await task(ops)]));
      const results = await Promise.all(
        pairs.map(([a, b]) =>
          Promise.all([relate(a.id, "blocks", b.id, t.owner.key), relate(b.reference, "blocks", a.reference, t.owner.key)]),
        ),
      );
      for (const [i, [a]] of pairs.entries()) {
        expect(results[i].map((r) => r.status).sort(), `pair ${i}`).toEqual([201, 422]);
        expect((await get(`/tasks/${a.id}/relations`, t.owner.key)).body.relations, `pair ${i}`).toHaveLength(1);
      }
    });
  });

  describe("duplicate_of", () => {
    it("moves the duplicate to CANCELED in the same transaction, with its own task.updated event; a DONE duplicate stays DONE", async () => {
      const [dup, original] = [await task(), await task()];
      const res = await relate(dup.id, "duplicate_of", original.id);
      expect(res.status).toBe(201);
      expect((await get(`/tasks/${dup.id}`, t.owner.key)).body.task.status).toBe("CANCELED");
      expect((await get(`/tasks/${original.id}/relations`, t.owner.key)).body.relations[0].type).toBe("duplicated_by");
      const history = (await get(`/tasks/${dup.id}/history`, t.owner.key)).body.events;
      expect(history.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(["task.updated", "task_relation.created"]));
      const updated = history.find((e: { type: string }) => e.type === "task.updated");
      expect(updated.changes.status).toEqual({ from: "TODO", to: "CANCELED" });

      const done = await task(eng, { status: "DONE" });
      expect((await relate(done.id, "duplicate_of", original.id)).status).toBe(201);
      expect((await get(`/tasks/${done.id}`, t.owner.key)).body.task.status).toBe("DONE");
    });
  });

  describe("delete", () => {
    it("removes a relation from either side (204), then 404; a VIEWER gets 403", async () => {
      const [a, b] = [await task(), await task()];
      const rel = (await relate(a.id, "blocks", b.id)).body.relation;
      expect((await del(`/tasks/${b.id}/relations/${rel.id}`, viewer.key)).status).toBe(403);
      expect((await del(`/tasks/${b.reference}/relations/${rel.id}`, member.key)).status).toBe(204);
      expect((await del(`/tasks/${a.id}/relations/${rel.id}`, member.key)).status).toBe(404);
      expect((await get(`/tasks/${a.id}/relations`, member.key)).body.relations).toEqual([]);
      // Under a task it does not belong to: 404.
      const c = await task();
      const other = (await relate(a.id, "related", b.id)).body.relation;
      expect((await del(`/tasks/${c.id}/relations/${other.id}`, member.key)).status).toBe(404);
    });

    it("deleting a task deletes its relations, each with its event", async () => {
      const [a, b, c] = [await task(), await task(), await task()];
      await relate(a.id, "blocks", b.id);
      await relate(c.id, "related", a.id);
      expect((await del(`/tasks/${a.id}`, t.owner.key)).status).toBe(204);
      expect((await get(`/tasks/${b.id}/relations`, t.owner.key)).body.relations).toEqual([]);
      expect((await get(`/tasks/${c.id}/relations`, t.owner.key)).body.relations).toEqual([]);
      const history = (await get(`/tasks/${b.id}/history`, t.owner.key)).body.events.map((e: { type: string }) => e.type);
      expect(history.slice(0, 2)).toEqual(["task_relation.deleted", "task_relation.created"]);
    });
  });

  describe("what tasks gain", () => {
    it("every task answer carries blockedByCount (open blockers only) and subtaskCounts, in the same statement", async () => {
      const [blocked, open, done] = [await task(), await task(), await task()];
      await relate(open.id, "blocks", blocked.id);
      await relate(blocked.id, "blocked_by", done.id);
      await post("/tasks", { title: "sub 1", teamId: eng.id, parentId: blocked.id }, t.owner.key);
      await post("/tasks", { title: "sub 2", teamId: eng.id, parentId: blocked.id, status: "DONE" }, t.owner.key);
      const read = await get(`/tasks/${blocked.reference}`, t.owner.key);
      expect(read.body.task).toMatchObject({ blockedByCount: 2, subtaskCounts: { total: 2, done: 1 } });
      expect(read.queries).toBe(1);
      // A write's answer too: the blocker done, one open blocker left.
      const closed = await api("PATCH", `/tasks/${done.id}`, { body: { status: "DONE" }, key: t.owner.key });
      expect(closed.body.task).toMatchObject({ blockedByCount: 0, subtaskCounts: { total: 0, done: 0 } });
      expect((await get(`/tasks/${blocked.id}`, t.owner.key)).body.task.blockedByCount).toBe(1);
      await api("PATCH", `/tasks/${open.id}`, { body: { status: "CANCELED" }, key: t.owner.key });
      expect((await get(`/tasks/${blocked.id}`, t.owner.key)).body.task.blockedByCount).toBe(0);
    });

    it("filters by isBlocked and relatedTo (id or reference, either direction), also in in-lists", async () => {
      const fresh = await newTeam(t, { prefix: "FLT" });
      const mk = () => task(fresh);
      const [a, b, c, d] = [await mk(), await mk(), await mk(), await mk()];
      await relate(a.id, "blocks", b.id);
      await relate(c.id, "related", a.id);
      const refs = async (query: string) => {
        const res = await get(`/tasks?filter[eq][teamId]=${fresh.id}&${query}`, t.owner.key);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.tasks.map((x: { reference: string }) => x.reference).sort();
      };
      expect(await refs("filter[eq][isBlocked]=true")).toEqual([b.reference]);
      expect(await refs("filter[eq][isBlocked]=false")).toEqual([a.reference, c.reference, d.reference].sort());
      expect(await refs(`filter[eq][relatedTo]=${a.reference}`)).toEqual([b.reference, c.reference].sort());
      expect(await refs(`filter[eq][relatedTo]=${b.id}`)).toEqual([a.reference]);
      expect(await refs(`filter[in][relatedTo]=${b.id}&filter[in][relatedTo]=${c.reference}`)).toEqual([a.reference]);
      expect(await refs("filter[eq][relatedTo]=NOPE-1")).toEqual([]);
      expect(await refs(`filter[neq][relatedTo]=${a.reference}`)).toEqual([a.reference, d.reference].sort());
      expect((await get("/tasks?filter[eq][isBlocked]=maybe", t.owner.key)).status).toBe(400);
      expect((await get("/tasks?filter[gt][relatedTo]=x", t.owner.key)).status).toBe(400);
    });

    it("fields=relations{type,task{reference,status}} embeds them, only those the caller may read", async () => {
      const [a, b, c] = [await task(eng), await task(eng), await task(ops)];
      await relate(a.id, "blocks", b.id);
      await relate(c.id, "duplicate_of", a.id);
      const res = await get(`/tasks/${a.id}?fields=reference,relations{type,task{reference,status}}`, t.owner.key);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.task).toEqual({
        reference: a.reference,
        relations: [
          { type: "blocks", task: { reference: b.reference, status: "TODO" } },
          { type: "duplicated_by", task: { reference: c.reference, status: "CANCELED" } },
        ],
      });
      const engOnly = await keyWith(t.owner.key, { teamIds: [eng.id] });
      const narrow = await get(`/tasks?filter[eq][reference]=${a.reference}&fields=relations{task{reference}}`, engOnly);
      expect(narrow.body.tasks[0].relations).toEqual([{ task: { reference: b.reference } }]);
    });
  });

  describe("everywhere a task goes", () => {
    it("webhooks get task_relation events; one bound to a team only those whose two tasks are of its teams", async () => {
      const url = `${testEnv.WEBHOOK_RECEIVER}/ok/relations-${Date.now().toString(36)}`;
      const all = (await post("/webhooks", { url, events: ["task_relation.*"] }, t.owner.key)).body.webhook;
      const engOnly = (await post("/webhooks", { url, events: ["task_relation.*"], teamIds: [eng.id] }, t.owner.key)).body.webhook;
      const [a, b, c] = [await task(eng), await task(eng), await task(ops)];
      const inside = (await relate(a.id, "blocks", b.id)).body.relation;
      const across = (await relate(a.id, "related", c.id)).body.relation;
      const eventsOf = async (hook: { id: string }) => {
        const deliveries = (await get(`/webhooks/${hook.id}/deliveries?limit=250`, t.owner.key)).body.deliveries;
        return deliveries.map((d: { eventId: string }) => d.eventId).sort();
      };
      const relationEvents = async (relationId: string) =>
        (await get(`/events?resourceId=${relationId}`, t.owner.key)).body.events.map((e: { id: string }) => e.id);
      const [insideEvents, acrossEvents] = [await relationEvents(inside.id), await relationEvents(across.id)];
      expect(insideEvents).toHaveLength(1);
      expect(await eventsOf(all)).toEqual([...insideEvents, ...acrossEvents].sort());
      expect(await eventsOf(engOnly)).toEqual(insideEvents);
    });

    it("batch items and their filters answer as the direct calls", async () => {
      const [a, b] = [await task(), await task()];
      await relate(b.id, "blocks", a.id);
      const res = await post(
        "/batch",
        { requests: [`/tasks/${a.reference}/relations`, `/tasks?filter[eq][relatedTo]=${b.reference}&fields=reference,blockedByCount`] },
        t.owner.key,
      );
      expect(res.status).toBe(200);
      const [relations, tasks] = res.body.results;
      expect(relations.relations).toEqual([expect.objectContaining({ type: "blocked_by", task: expect.objectContaining({ id: b.id }) })]);
      expect(tasks.tasks).toEqual([{ reference: a.reference, blockedByCount: 1 }]);
    });
  });

  describe("visibility", () => {
    it("a key bound to one team never sees a relation to another team's task, nor can it delete one", async () => {
      const [a, b, c] = [await task(eng), await task(ops), await task(eng)];
      const cross = (await relate(a.id, "blocks", b.id)).body.relation;
      await relate(a.id, "related", c.id);
      const engOnly = await keyWith(t.owner.key, { teamIds: [eng.id] });
      const seen = (await get(`/tasks/${a.id}/relations`, engOnly)).body.relations;
      expect(seen.map((r: { task: { id: string } }) => r.task.id)).toEqual([c.id]);
      expect(JSON.stringify(seen)).not.toContain(b.id);
      expect((await del(`/tasks/${a.id}/relations/${cross.id}`, engOnly)).status).toBe(404);
      // Relating to a task outside its teams: 404, as another workspace's task.
      expect((await relate(a.id, "related", b.id, engOnly)).status).toBe(404);
      const events = (await get("/events?types=task_relation.*&limit=250", engOnly)).body.events;
      expect(JSON.stringify(events)).not.toContain(b.id);
      expect(
        (await get(`/tasks/${a.id}/history`, engOnly)).body.events.some((e: { resourceId: string }) => e.resourceId === cross.id),
      ).toBe(false);
      // Nor through the relatedTo filter: a task outside its teams relates to none of its tasks, by id or reference.
      for (const other of [b.id, b.reference]) {
        expect((await get(`/tasks?filter[eq][relatedTo]=${other}`, engOnly)).body.tasks).toEqual([]);
        expect((await get(`/tasks?filter[eq][relatedTo]=${other}`, t.owner.key)).body.tasks.map((x: { id: string }) => x.id)).toEqual([
          a.id,
        ]);
      }
    });
  });
});
