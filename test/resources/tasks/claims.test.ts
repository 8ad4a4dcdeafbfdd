// Claims (docs/agents.md, "Claims"): taking a task by id or the first free one of a filter, renewing, releasing, the
// lease running out, the rules of a task write, and the events, through HTTP against the real database.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tasks } from "../../../drizzle/schema";
import { api, del, get, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";
import { expectMissingScope, keyWith, ok, receiverUrl } from "../../helpers/least-privilege";
import { call, connect } from "../../mcp-client";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("task claims", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ops: TeamFixture;
  let members: Member[];
  let viewer: Member;
  let admin: Member;
  let counter = 0;

  async function task(team: TeamFixture = eng, body: Record<string, unknown> = {}) {
    const res = await post("/tasks", { title: `C${counter++}`, teamId: team.id, ...body }, t.owner.key);
    return ok(res, 201).task as { id: string; reference: string };
  }
  const claim = (id: string, key: string, body?: unknown) => post(`/tasks/${id}/claim`, body ?? {}, key);
  const claimNext = (body: unknown, key: string) => post("/tasks/claim", body, key);
  /** Moves the stored expiry of `id`'s claim into the past: the lease has run out. */
  const expire = (id: string) =>
    withDb((db) => db.execute(sql`update ${tasks} set claim_expires_at = now() - interval '1 second' where ${tasks.id} = ${id}`));

  beforeAll(async () => {
    t = await newTenant("Claims Co");
    eng = await newTeam(t, { prefix: "CLM", name: "Engineering" });
    ops = await newTeam(t, { prefix: "CLOPS", name: "Operations" });
    members = [];
    for (let i = 0; i < 50; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => addMember(t, "MEMBER", i === 0 ? "AGENT" : "HUMAN")));
      await Promise.all(batch.map((m) => joinTeam(eng, m, "MEMBER")));
      members.push(...batch);
    }
    viewer = await addMember(t, "MEMBER");
    await joinTeam(eng, viewer, "VIEWER");
    admin = await addMember(t, "ADMIN");
  }, 120_000);

  describe("POST /tasks/{id}/claim", () => {
    it("takes the task for the lease, by id or reference, in one statement; the task's answers carry the claim", async () => {
      const a = await task();
      const before = Date.now();
      const res = await claim(a.reference.toLowerCase(), members[0].key, { leaseSeconds: 60 });
      const body = ok(res, 200);
      expect(res.queries).toBe(1);
      expect(body.claim).toEqual({ holderId: members[0].userId, expiresAt: expect.stringMatching(ISO) });
      expect(body.task).toMatchObject({ id: a.id, reference: a.reference, claim: body.claim });
      const expires = Date.parse(body.claim.expiresAt);
      // The database's clock: within a few seconds of this one.
      expect(expires).toBeGreaterThan(before + 55_000);
      expect(expires).toBeLessThan(Date.now() + 65_000);
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toEqual(body.claim);
      expect(ok(await get(`/tasks/${a.id}?fields=claim{holderId}`, t.owner.key), 200).task).toEqual({
        claim: { holderId: members[0].userId },
      });
      const listed = ok(await get(`/tasks?filter[eq][teamId]=${eng.id}&limit=250`, t.owner.key), 200).tasks;
      expect(listed.find((x: { id: string }) => x.id === a.id).claim).toEqual(body.claim);
      const batch = ok(await post("/batch", { requests: [`/tasks/${a.reference}`] }, t.owner.key), 200);
      expect(batch.results[0].task.claim).toEqual(body.claim);
      // A task no claim holds says so.
      expect(ok(await get(`/tasks/${(await task()).id}`, t.owner.key), 200).task.claim).toBeNull();
    });

    it("renews the holder's own claim (expiry = now + lease); the default lease is 900 s; the body may be left out", async () => {
      const a = await task();
      const first = ok(await claim(a.id, members[1].key, { leaseSeconds: 30 }), 200).claim;
      const renewed = ok(await claim(a.id, members[1].key), 200).claim;
      expect(renewed.holderId).toBe(members[1].userId);
      expect(Date.parse(renewed.expiresAt) - Date.parse(first.expiresAt)).toBeGreaterThan(800_000);
      // No body at all (curl -X POST): the default lease.
      expect((await api("POST", `/tasks/${a.id}/claim`, { key: members[1].key })).status).toBe(200);
    });

    it("answers 409 naming the holder while another's claim is live", async () => {
      const a = await task();
      const held = ok(await claim(a.id, members[2].key), 200).claim;
      const res = await claim(a.id, members[3].key);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: "CONFLICT", details: { holderId: members[2].userId, expiresAt: held.expiresAt } });
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toEqual(held);
    });

    it("50 concurrent claims of one task: exactly one 200, and 49 × 409 naming that holder", async () => {
      const a = await task();
      const answers = await Promise.all(members.map((m) => claim(a.id, m.key)));
      const won = answers.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      const holder = won[0].body.claim;
      const lost = answers.filter((r) => r.status !== 200);
      expect(lost).toHaveLength(49);
      for (const r of lost) {
        expect(r.status).toBe(409);
        expect(r.body.error.details).toEqual(holder);
      }
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toEqual(holder);
    });

    it("an expired claim holds nothing: the task reads unclaimed and another takes it", async () => {
      const a = await task();
      ok(await claim(a.id, members[4].key), 200);
      await expire(a.id);
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toBeNull();
      const taken = ok(await claim(a.id, members[5].key), 200);
      expect(taken.claim.holderId).toBe(members[5].userId);
    });

    it("checks the lease and the body: 30..3600 seconds, no unknown fields (422)", async () => {
      const a = await task();
      for (const body of [{ leaseSeconds: 29 }, { leaseSeconds: 3601 }, { leaseSeconds: 60.5 }, { leaseSeconds: "60" }, { lease: 60 }]) {
        const res = await claim(a.id, members[0].key, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
      }
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toBeNull();
    });
  });

  describe("DELETE /tasks/{id}/claim", () => {
    it("the holder releases it: 204, and the task is free again", async () => {
      const a = await task();
      ok(await claim(a.id, members[6].key), 200);
      const res = await del(`/tasks/${a.reference}/claim`, members[6].key);
      expect(res.status).toBe(204);
      expect(res.queries).toBe(1);
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toBeNull();
      ok(await claim(a.id, members[7].key), 200);
    });

    it("another member is refused (403); a workspace ADMIN may release it", async () => {
      const a = await task();
      const held = ok(await claim(a.id, members[8].key), 200).claim;
      const refused = await del(`/tasks/${a.id}/claim`, members[9].key);
      expect(refused.status).toBe(403);
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toEqual(held);
      expect((await del(`/tasks/${a.id}/claim`, admin.key)).status).toBe(204);
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toBeNull();
    });

    it("a task no live claim holds is released already: 204, and no event", async () => {
      const a = await task();
      const history = async () => ok(await get(`/tasks/${a.id}/history`, t.owner.key), 200).events.map((e: { id: string }) => e.id);
      const created = await history();
      expect((await del(`/tasks/${a.id}/claim`, members[9].key)).status).toBe(204);
      expect(await history()).toEqual(created);
      ok(await claim(a.id, members[8].key), 200);
      await expire(a.id);
      const claimed = await history();
      expect((await del(`/tasks/${a.id}/claim`, members[9].key)).status).toBe(204);
      expect(await history()).toEqual(claimed);
    });

    it("404 for an unknown task", async () => {
      expect((await del("/tasks/CLM-99999/claim", members[0].key)).status).toBe(404);
    });
  });

  describe("POST /tasks/claim", () => {
    it("takes the first free task of the filter in the list's order, then the next; 204 when none is free", async () => {
      const team = await newTeam(t);
      await joinTeam(team, members[10], "MEMBER");
      await joinTeam(team, members[11], "MEMBER");
      const low = await task(team, { priority: "LOW" });
      const urgent = await task(team, { priority: "URGENT" });
      const done = await task(team, { status: "DONE" });
      const filter = { eq: { teamId: team.prefix }, in: { status: ["TODO", "IN_PROGRESS"] } };
      const first = ok(await claimNext({ filter, sort: { priority: "desc" }, leaseSeconds: 120 }, members[10].key), 200);
      expect(first.task.id).toBe(urgent.id);
      expect(first.claim).toEqual({ holderId: members[10].userId, expiresAt: expect.stringMatching(ISO) });
      expect(first.task.claim).toEqual(first.claim);
      // Its own claim holds the task too: the next call takes the next one.
      expect(ok(await claimNext({ filter }, members[10].key), 200).task.id).toBe(low.id);
      const none = await claimNext({ filter }, members[10].key);
      expect(none.status).toBe(204);
      expect(none.body).toBeNull();
      expect(ok(await get(`/tasks/${done.id}`, t.owner.key), 200).task.claim).toBeNull();
      // A lease run out frees its task for the queue.
      await expire(low.id);
      expect(ok(await claimNext({ filter }, members[11].key), 200).task.id).toBe(low.id);
    });

    it("answers the claim's position (PM-Position): its task.claimed event, as every write does", async () => {
      const team = await newTeam(t);
      await joinTeam(team, members[18], "MEMBER");
      const free = await task(team);
      const res = await claimNext({ filter: { eq: { teamId: team.id } } }, members[18].key);
      expect(ok(res, 200).task.id).toBe(free.id);
      const position = res.headers.get("pm-position");
      expect(position).toMatch(/^evt_[0-9a-z]{26}$/);
      const [claimed] = ok(await get(`/tasks/${free.id}/history`, t.owner.key), 200).events;
      expect(claimed).toMatchObject({ id: position, type: "task.claimed" });
    });

    it("20 concurrent workers drain 100 tasks: each claimed exactly once, then 204 for everyone", async () => {
      const team = await newTeam(t);
      const workers = members.slice(20, 40);
      await Promise.all(workers.map((m) => joinTeam(team, m, "MEMBER")));
      const created: string[] = [];
      for (let i = 0; i < 100; i += 20) created.push(...(await Promise.all(Array.from({ length: 20 }, () => task(team)))).map((x) => x.id));
      const filter = { eq: { teamId: team.id, status: "TODO" } };
      const taken = await Promise.all(
        workers.map(async (worker) => {
          const mine: string[] = [];
          for (;;) {
            const res = await claimNext({ filter, leaseSeconds: 600 }, worker.key);
            if (res.status === 204) return mine;
            expect(res.status, JSON.stringify(res.body)).toBe(200);
            expect(res.body.claim.holderId).toBe(worker.userId);
            mine.push(res.body.task.id);
          }
        }),
      );
      const all = taken.flat();
      expect(all).toHaveLength(100);
      expect(new Set(all)).toEqual(new Set(created));
      expect((await claimNext({ filter }, workers[0].key)).status).toBe(204);
    }, 120_000);

    it("takes the list's filter names and operators, and refuses unknown ones as the list does (400)", async () => {
      const unknownField = await claimNext({ filter: { eq: { colour: "red" } } }, members[0].key);
      expect(unknownField.status).toBe(400);
      expect(unknownField.body.error.details).toMatchObject({ field: "colour", allowed: expect.arrayContaining(["status", "teamId"]) });
      const unknownOp = await claimNext({ filter: { near: { status: "TODO" } } }, members[0].key);
      expect(unknownOp.status).toBe(400);
      expect(unknownOp.body.error.details).toMatchObject({ operator: "near" });
      const badSort = await claimNext({ filter: {}, sort: { colour: "asc" } }, members[0].key);
      expect(badSort.status).toBe(400);
      const badValue = await claimNext({ filter: { eq: { statusCategory: "later" } } }, members[0].key);
      expect(badValue.status).toBe(400);
      // A name of the right form that names nothing: no task matches.
      expect((await claimNext({ filter: { eq: { teamId: "NOSUCH" } } }, members[0].key)).status).toBe(204);
      for (const body of [{}, { filter: {}, leaseSeconds: 10 }, { filter: {}, limit: 1 }]) {
        expect((await claimNext(body, members[0].key)).status, JSON.stringify(body)).toBe(422);
      }
    });
  });

  describe("rules: a claim is a write of the task", () => {
    it("a key without tasks:write is refused (403 naming it) on every claim route", async () => {
      const a = await task();
      const readOnly = await keyWith(members[12].key, { scopes: ["read"] });
      expectMissingScope(await claim(a.id, readOnly), "tasks:write");
      expectMissingScope(await claimNext({ filter: {} }, readOnly), "tasks:write");
      expectMissingScope(await del(`/tasks/${a.id}/claim`, readOnly), "tasks:write");
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim).toBeNull();
      const writer = await keyWith(members[12].key, { scopes: ["tasks:write"] });
      ok(await claim(a.id, writer), 200);
    });

    it("a VIEWER of the task's team is refused (403), by id and by filter, and releases nothing", async () => {
      const a = await task();
      expect((await claim(a.id, viewer.key)).status).toBe(403);
      const byFilter = await claimNext({ filter: { eq: { id: a.id } } }, viewer.key);
      expect(byFilter.status).toBe(403);
      ok(await claim(a.id, members[13].key), 200);
      expect((await del(`/tasks/${a.id}/claim`, viewer.key)).status).toBe(403);
      expect(ok(await get(`/tasks/${a.id}`, t.owner.key), 200).task.claim?.holderId).toBe(members[13].userId);
    });

    it("another workspace's task is never claimed: 404 by id, passed over by a filter", async () => {
      const other = await newTenant("Other Claims Co");
      const theirs = await newTeam(other, { prefix: "CLX" });
      const foreign = ok(await post("/tasks", { title: "Theirs", teamId: theirs.id }, other.owner.key), 201).task;
      expect((await claim(foreign.id, t.owner.key)).status).toBe(404);
      expect((await del(`/tasks/${foreign.id}/claim`, t.owner.key)).status).toBe(404);
      const none = await claimNext({ filter: { eq: { id: foreign.id } } }, t.owner.key);
      expect(none.status).toBe(204);
      expect(ok(await get(`/tasks/${foreign.id}`, other.owner.key), 200).task.claim).toBeNull();
    });

    it("a key bound to a team claims only that team's tasks (another team's: 404, passed over by a filter)", async () => {
      const inOps = await task(ops);
      const bound = await keyWith(t.owner.key, { teamIds: [eng.id] });
      expect((await claim(inOps.id, bound)).status).toBe(404);
      expect((await claimNext({ filter: { eq: { id: inOps.id } } }, bound)).status).toBe(204);
      ok(await claim(inOps.id, t.owner.key), 200);
    });
  });

  describe("MCP: claim_task and release_task", () => {
    const clients: Awaited<ReturnType<typeof connect>>[] = [];
    const open = async (key: string) => {
      const client = await connect({ "svc-api-key": key });
      clients.push(client);
      return client;
    };
    afterAll(() => Promise.all(clients.map((client) => client.close())));

    it("claims by reference or by filter, answers CONFLICT naming the holder, releases; task null when none is free", async () => {
      const team = await newTeam(t);
      await Promise.all([joinTeam(team, members[15], "MEMBER"), joinTeam(team, members[16], "MEMBER")]);
      const [first, second] = [await task(team), await task(team)];
      const agent = await open(members[15].key);
      const other = await open(members[16].key);
      const byId = await call(agent, "claim_task", { id: first.reference, leaseSeconds: 60 });
      expect(byId.isError).toBe(false);
      // A write tool's result carries its position (PM-Position) as well.
      expect(byId.body).toEqual({
        task: expect.objectContaining({ id: first.id }),
        claim: byId.body.task.claim,
        position: expect.any(String),
      });
      expect(byId.body.claim.holderId).toBe(members[15].userId);
      const refused = await call(other, "claim_task", { id: first.reference });
      expect(refused).toMatchObject({ isError: true, body: { error: { code: "CONFLICT", details: byId.body.claim } } });
      const byFilter = await call(other, "claim_task", { filter: { eq: { teamId: team.prefix } } });
      expect(byFilter.body.task.id).toBe(second.id);
      expect(byFilter.body.claim.holderId).toBe(members[16].userId);
      expect((await call(other, "claim_task", { filter: { eq: { teamId: team.prefix } } })).body).toMatchObject({
        task: null,
        claim: null,
      });
      expect((await call(other, "claim_task", { filter: { eq: { colour: "red" } } })).body.error.code).toBe("BAD_REQUEST");
      expect((await call(agent, "claim_task", {})).isError).toBe(true);
      expect((await call(agent, "release_task", { id: first.reference })).body).toEqual({ released: true, position: expect.any(String) });
      expect(ok(await get(`/tasks/${first.id}`, t.owner.key), 200).task.claim).toBeNull();
      const history = ok(await get(`/tasks/${first.id}/history`, t.owner.key), 200).events;
      expect(history.map((e: { type: string; actor: { via: string } }) => [e.type, e.actor.via])).toEqual([
        ["task.released", "mcp"],
        ["task.claimed", "mcp"],
        ["task.created", "api_key"],
      ]);
    });

    it("claim_task by filter carries its position as well", async () => {
      const team = await newTeam(t);
      await joinTeam(team, members[19], "MEMBER");
      const free = await task(team);
      const byFilter = await call(await open(members[19].key), "claim_task", { filter: { eq: { teamId: team.id } } });
      expect(byFilter.body).toMatchObject({ task: { id: free.id }, position: expect.stringMatching(/^evt_/) });
    });
  });

  describe("events", () => {
    it("task.claimed and task.released: in the task's history and the stream (never task.updated), and to webhooks", async () => {
      const hook = ok(await post("/webhooks", { url: receiverUrl(), events: ["task.claimed", "task.released"] }, t.owner.key), 201).webhook;
      const a = await task();
      const held = ok(await claim(a.id, members[14].key, { leaseSeconds: 300 }), 200).claim;
      ok(await claim(a.id, members[14].key, { leaseSeconds: 600 }), 200);
      expect((await del(`/tasks/${a.id}/claim`, members[14].key)).status).toBe(204);
      const history = ok(await get(`/tasks/${a.id}/history`, t.owner.key), 200).events;
      expect(history.map((e: { type: string }) => e.type)).toEqual(["task.released", "task.claimed", "task.claimed", "task.created"]);
      const [released, renewed, claimed] = history;
      expect(claimed).toMatchObject({
        resourceType: "task",
        resourceId: a.id,
        reference: a.reference,
        actor: { id: members[14].userId },
        data: { id: a.id, claim: held },
      });
      expect(Date.parse(renewed.data.claim.expiresAt)).toBeGreaterThan(Date.parse(held.expiresAt));
      expect(released.data.claim).toBeNull();
      expect(claimed.changes).toBeUndefined();
      const stream = ok(await get(`/events?resourceId=${a.id}&types=task.claimed,task.released`, t.owner.key), 200).events;
      expect(stream.map((e: { id: string }) => e.id)).toEqual([claimed.id, renewed.id, released.id]);
      const deliveries = ok(await get(`/webhooks/${hook.id}/deliveries?limit=250`, t.owner.key), 200).deliveries;
      expect(deliveries.map((d: { eventId: string }) => d.eventId)).toEqual(expect.arrayContaining([claimed.id, renewed.id, released.id]));
      ok(await del(`/webhooks/${hook.id}`, t.owner.key), 204);
    });
  });
});
