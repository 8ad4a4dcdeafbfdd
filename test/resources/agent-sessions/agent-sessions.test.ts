// Delegation to agents (docs/agents.md): `delegateId` on tasks opens an agent session in the write's own
// statement; the session's state follows its activities; who may post what; tenancy, team binding and roles; events.
// Through HTTP against the real database.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, get, patch, post } from "../../helpers/api";
import {
  addMember,
  joinTeam,
  type Member,
  newTeam,
  newTenant,
  type TeamFixture,
  type Tenant,
  whileLocked,
  withDb,
} from "../../helpers/fixtures";
import { eventsAfter, keyWith, receiverUrl } from "../../helpers/least-privilege";

const SESSION_ID = /^ses_[0-9a-z]{26}$/;
const ACTIVITY_ID = /^act_[0-9a-z]{26}$/;

interface Agent {
  id: string;
  key: string;
  email: string;
}

describe("agent sessions", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ops: TeamFixture;
  let member: Member;
  let viewer: Member;
  let agent: Agent;
  let other: Agent;
  let counter = 0;

  async function newAgent(by: string, body: Record<string, unknown> = {}): Promise<Agent> {
    const res = await post("/agents", { name: `Bot ${counter++}`, ...body }, by);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const me = await get("/me", res.body.agent.apiKey);
    return { id: res.body.agent.id, key: res.body.agent.apiKey, email: me.body.user.email };
  }
  async function task(team: TeamFixture = eng, extra: Record<string, unknown> = {}) {
    const res = await post("/tasks", { title: `S${counter++}`, teamId: team.id, ...extra }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task as { id: string; reference: string; session: { id: string; state: string } | null };
  }
  const delegate = async (ref: string, to: string | null, key = t.owner.key) => patch(`/tasks/${ref}`, { delegateId: to }, key);
  const activity = (id: string, body: Record<string, unknown>, key: string) => post(`/agent-sessions/${id}/activities`, body, key);
  const stateOf = async (id: string, key = t.owner.key) => (await get(`/agent-sessions/${id}`, key)).body.session.state;

  beforeAll(async () => {
    t = await newTenant("Sessions Co");
    eng = await newTeam(t, { prefix: "SES", name: "Engineering" });
    ops = await newTeam(t, { prefix: "SOPS", name: "Operations" });
    member = await addMember(t, "MEMBER");
    await joinTeam(eng, member, "MEMBER");
    viewer = await addMember(t, "MEMBER");
    await joinTeam(eng, viewer, "VIEWER");
    agent = await newAgent(member.key);
    other = await newAgent(t.owner.key);
  });

  it("delegating keeps the assignee and opens one pending session; delegating again to the same agent reuses it", async () => {
    const a = await task(eng, { assigneeId: member.userId });
    expect(a.session).toBeNull();
    const first = await delegate(a.reference, agent.id, member.key);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.task).toMatchObject({ assigneeId: member.userId, delegateId: agent.id, session: { state: "pending" } });
    expect(first.body.task.session.id).toMatch(SESSION_ID);
    // By the agent's email too (a name as §13 allows), and the open session is kept.
    const again = await delegate(a.reference, agent.email);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.task.session).toEqual(first.body.task.session);
    const sessions = (await get(`/agent-sessions?filter[eq][taskId]=${a.reference}`, t.owner.key)).body.sessions;
    expect(sessions).toEqual([
      {
        id: first.body.task.session.id,
        taskId: a.id,
        agentId: agent.id,
        state: "pending",
        createdBy: member.userId,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        lastActivityAt: null,
        externalUrl: null,
      },
    ]);
    // GET carries the open session in the task's one statement.
    const read = await get(`/tasks/${a.reference}`, t.owner.key);
    expect(read.body.task.session).toEqual(first.body.task.session);
    expect(read.queries).toBe(1);
  });

  it("a create may delegate; a person or an unknown user as delegate is refused at the field; null clears", async () => {
    const created = await post("/tasks", { title: "New", teamId: eng.id, delegateId: agent.id }, t.owner.key);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.task.session).toMatchObject({ state: "pending" });
    const a = await task();
    const human = await delegate(a.reference, member.userId);
    expect(human.status).toBe(422);
    expect(human.body.errors.delegateId).toBeDefined();
    expect((await delegate(a.reference, "user_00000000000000000000000000")).status).toBe(404);
    const cleared = await delegate(created.body.task.reference, null);
    expect(cleared.body.task).toMatchObject({ delegateId: null, session: null });
  });

  it("the state follows the activities: thought, elicitation, response, prompt, stop", async () => {
    const a = await task();
    const { id } = (await delegate(a.reference, agent.id)).body.task.session;
    const thought = await activity(id, { type: "thought", body: "Reading the code" }, agent.key);
    expect(thought.status, JSON.stringify(thought.body)).toBe(201);
    expect(thought.body.activity).toEqual({
      id: expect.stringMatching(ACTIVITY_ID),
      sessionId: id,
      type: "thought",
      body: "Reading the code",
      action: null,
      createdBy: agent.id,
      createdAt: expect.any(String),
    });
    expect(await stateOf(id)).toBe("active");
    const action = await activity(
      id,
      { type: "action", body: "Ran the tests", action: { name: "npm test", result: "3 failed" } },
      agent.key,
    );
    expect(action.body.activity.action).toEqual({ name: "npm test", result: "3 failed" });
    expect(await stateOf(id)).toBe("active");
    await activity(id, { type: "elicitation", body: "Which branch?" }, agent.key);
    expect(await stateOf(id)).toBe("awaiting_input");
    expect((await activity(id, { type: "prompt", body: "main" }, member.key)).status).toBe(201);
    expect(await stateOf(id)).toBe("pending");
    await activity(id, { type: "response", body: "Fixed in #42" }, agent.key);
    expect(await stateOf(id)).toBe("complete");
    expect((await get(`/tasks/${a.reference}`, t.owner.key)).body.task.session).toBeNull();
    // A prompt opens it again.
    await activity(id, { type: "prompt", body: "One more thing" }, member.key);
    expect(await stateOf(id)).toBe("pending");
    const stopped = await post(`/agent-sessions/${id}/stop`, {}, member.key);
    expect(stopped.status, JSON.stringify(stopped.body)).toBe(200);
    expect(stopped.body.session.state).toBe("stopped");
    // Stopped for good: no more activities; stopping again answers it as it is.
    expect((await activity(id, { type: "thought", body: "late" }, agent.key)).status).toBe(409);
    expect((await post(`/agent-sessions/${id}/stop`, {}, t.owner.key)).body.session.state).toBe("stopped");
    const page = (await get(`/agent-sessions/${id}/activities`, t.owner.key)).body.activities;
    expect(page.map((x: { type: string }) => x.type)).toEqual(["thought", "action", "elicitation", "prompt", "response", "prompt"]);
    // A delegation after a stopped (or complete) session opens a new one.
    const next = (await delegate(a.reference, agent.id)).body.task.session;
    expect(next.id).not.toBe(id);
    expect(next.state).toBe("pending");
  });

  it("a stop and an activity racing on a session take turns: a stop committed first wins (409), a second stop answers it stopped", async () => {
    const a = await task();
    const { id } = (await delegate(a.reference, agent.id)).body.task.session;
    // Until `n` writes queue on a session row's lock: each waiter takes part in the row's tuple lock (the first holds it
    // while it waits on the holder; the next wait for it). Only this file writes sessions, one test at a time.
    const waiting = (n: number) =>
      eventually(async () => {
        const { rows } = await withDb((db) =>
          db.execute<{ n: number }>(sql`select count(distinct pid)::int as n from pg_locks
            where locktype = 'tuple' and relation = 'agent_sessions'::regclass`),
        );
        return rows[0].n >= n;
      });
    // The row held: the stops queue first, then the activity; let go, they run in that order.
    const [first, second, late] = await whileLocked(sql`select id from agent_sessions where id = ${id} for update`, async () => {
      const first = post(`/agent-sessions/${id}/stop`, {}, member.key);
      await waiting(1);
      const second = post(`/agent-sessions/${id}/stop`, {}, t.owner.key);
      const late = activity(id, { type: "thought", body: "late" }, agent.key);
      await waiting(3);
      return [first, second, late] as const;
    });
    expect((await first).body.session.state).toBe("stopped");
    expect((await second).body.session.state).toBe("stopped");
    const refused = await late;
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(await stateOf(id)).toBe("stopped");
    expect((await get(`/agent-sessions/${id}/activities`, t.owner.key)).body.activities).toEqual([]);
  });

  it("an activity that would reopen a finished session while the agent has a newer open one on the task is 409, saying so", async () => {
    const a = await task();
    const old = (await delegate(a.reference, agent.id)).body.task.session.id;
    await activity(old, { type: "response", body: "Done" }, agent.key);
    const newer = (await delegate(a.reference, agent.id)).body.task.session.id;
    expect(newer).not.toBe(old);
    for (const [type, key] of [
      ["thought", agent.key],
      ["prompt", member.key],
    ]) {
      const res = await activity(old, { type, body: "to the old one" }, key);
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.error).toMatchObject({
        code: "CONFLICT",
        message: "This agent has a newer open session on this task: post to that one",
      });
    }
    // An activity that leaves it finished is fine; the newer session is untouched.
    expect((await activity(old, { type: "error", body: "Late failure" }, agent.key)).status).toBe(201);
    expect(await stateOf(old)).toBe("error");
    expect(await stateOf(newer)).toBe("pending");
  });

  it("31 minutes without activity read stale (pending or active); stale is still open", async () => {
    const a = await task();
    const { id } = (await delegate(a.reference, agent.id)).body.task.session;
    await activity(id, { type: "thought", body: "Thinking" }, agent.key);
    await withDb((db) =>
      db.execute(sql`update agent_sessions set last_activity_at = now() - interval '31 minutes',
        created_at = now() - interval '40 minutes' where id = ${id}`),
    );
    expect(await stateOf(id)).toBe("stale");
    expect((await get(`/tasks/${a.reference}`, t.owner.key)).body.task.session).toEqual({ id, state: "stale" });
    const filtered = (await get(`/agent-sessions?filter[eq][state]=stale&filter[eq][taskId]=${a.id}`, t.owner.key)).body.sessions;
    expect(filtered.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await delegate(a.reference, agent.id)).body.task.session.id).toBe(id);
    await activity(id, { type: "action", body: "Back" }, agent.key);
    expect(await stateOf(id)).toBe("active");
  });

  it("an activity by anyone but the session's agent is 403; a prompt by an agent or a VIEWER is 403", async () => {
    const a = await task();
    const { id } = (await delegate(a.reference, agent.id)).body.task.session;
    for (const key of [t.owner.key, member.key, other.key]) {
      const res = await activity(id, { type: "thought", body: "not mine" }, key);
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    }
    expect((await activity(id, { type: "prompt", body: "hi" }, agent.key)).status).toBe(403);
    expect((await activity(id, { type: "prompt", body: "hi" }, viewer.key)).status).toBe(403);
    expect((await post(`/agent-sessions/${id}/stop`, {}, viewer.key)).status).toBe(403);
    // Bad bodies: 422 at the field.
    expect((await activity(id, { type: "thought", body: "" }, agent.key)).status).toBe(422);
    expect((await activity(id, { type: "thought", body: "x".repeat(20_001) }, agent.key)).status).toBe(422);
    expect((await activity(id, { type: "status", body: "x" }, agent.key)).status).toBe(422);
    expect((await get(`/agent-sessions/${id}/activities`, t.owner.key)).body.activities).toEqual([]);
  });

  it("a VIEWER cannot delegate (403)", async () => {
    const a = await task();
    const res = await delegate(a.reference, agent.id, viewer.key);
    expect(res.status).toBe(403);
    expect((await get(`/tasks/${a.reference}`, t.owner.key)).body.task).toMatchObject({ delegateId: null, session: null });
  });

  it("the agent's owner may stop its session", async () => {
    const a = await task();
    const { id } = (await delegate(a.reference, other.id)).body.task.session;
    // `other` belongs to the workspace owner; `member` owns `agent`, not `other`, but may change the task: both may stop.
    const outsider = await addMember(t, "MEMBER");
    expect((await post(`/agent-sessions/${id}/stop`, {}, outsider.key)).status).toBe(403);
    const b = await task(ops);
    const mine = (await delegate(b.reference, agent.id)).body.task.session;
    // member is in no team of ops, yet owns the agent.
    expect((await post(`/agent-sessions/${mine.id}/stop`, {}, member.key)).status).toBe(200);
  });

  it("an agent sees its own sessions; a person those of the tasks it reads; a team-bound agent nothing of another team (404)", async () => {
    const a = await task(eng);
    const b = await task(ops);
    const own = (await delegate(a.reference, agent.id)).body.task.session;
    const theirs = (await delegate(b.reference, other.id)).body.task.session;
    const seen = (await get("/agent-sessions?limit=250", agent.key)).body.sessions;
    expect(seen.every((s: { agentId: string }) => s.agentId === agent.id)).toBe(true);
    expect(seen.map((s: { id: string }) => s.id)).toContain(own.id);
    expect((await get(`/agent-sessions/${theirs.id}`, agent.key)).status).toBe(404);
    expect((await get(`/agent-sessions/${theirs.id}`, member.key)).status).toBe(200);

    const bound = await newAgent(t.owner.key, { teamIds: [eng.id] });
    const inB = (await delegate(b.reference, bound.id)).body.task.session;
    expect((await get(`/agent-sessions/${inB.id}`, bound.key)).status).toBe(404);
    expect((await get(`/agent-sessions/${inB.id}/activities`, bound.key)).status).toBe(404);
    expect((await activity(inB.id, { type: "thought", body: "x" }, bound.key)).status).toBe(404);
    const inA = (await delegate(a.reference, bound.id)).body.task.session;
    expect((await activity(inA.id, { type: "thought", body: "x" }, bound.key)).status).toBe(201);
    // Another workspace's session is 404 whoever asks.
    const elsewhere = await newTenant("Elsewhere");
    expect((await get(`/agent-sessions/${own.id}`, elsewhere.owner.key)).status).toBe(404);
    expect((await activity(own.id, { type: "prompt", body: "x" }, elsewhere.owner.key)).status).toBe(404);
  });

  it("activities and stop need tasks:write; reads need read (or tasks:write)", async () => {
    const a = await task();
    const { id } = (await delegate(a.reference, agent.id)).body.task.session;
    const readOnly = await keyWith(member.key, { scopes: ["read"] });
    const res = await activity(id, { type: "prompt", body: "x" }, readOnly);
    expect(res.status).toBe(403);
    expect(res.body.error.details).toEqual({ requiredScope: "tasks:write" });
    expect((await get(`/agent-sessions/${id}`, readOnly)).status).toBe(200);
    const writer = await keyWith(member.key, { scopes: ["tasks:write"] });
    expect((await get(`/agent-sessions/${id}/activities`, writer)).status).toBe(200);
    expect((await activity(id, { type: "prompt", body: "x" }, writer)).status).toBe(201);
  });

  it("writes events: on the stream, in the task's history, with the state as changes", async () => {
    const before = (await eventsAfter(t.owner.key)).at(-1)?.id;
    const a = await task();
    const { id } = (await delegate(a.reference, agent.id)).body.task.session;
    await activity(id, { type: "thought", body: "Go" }, agent.key);
    await activity(id, { type: "prompt", body: "Faster" }, member.key);
    await post(`/agent-sessions/${id}/stop`, {}, member.key);
    const events = (await eventsAfter(t.owner.key, before)).filter((e) => e.resourceType.startsWith("agent_") || e.type === "task.updated");
    expect(events.map((e) => e.type)).toEqual([
      "task.updated",
      "agent_session.created",
      "agent_activity.created",
      "agent_session.updated",
      "agent_activity.created",
      "agent_session.prompted",
      "agent_session.stopped",
    ]);
    expect(events[0].changes.delegateId).toEqual({ from: null, to: agent.id });
    expect(events[1].data).toMatchObject({ id, taskId: a.id, agentId: agent.id, state: "pending" });
    expect(events[3].changes.state).toEqual({ from: "pending", to: "active" });
    expect(events[3].actor.id).toBe(agent.id);
    const history = (await get(`/tasks/${a.reference}/history?limit=50`, t.owner.key)).body.events.map((e: { type: string }) => e.type);
    expect(history).toEqual(expect.arrayContaining(["agent_session.created", "agent_activity.created", "agent_session.stopped"]));
  });

  it("delegateId filters, sorts and is selectable", async () => {
    const a = await task();
    await delegate(a.reference, other.id);
    const list = await get(`/tasks?filter[eq][delegateId]=${other.email}&fields=reference,delegateId,session`, t.owner.key);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.tasks.map((x: { reference: string }) => x.reference)).toContain(a.reference);
    expect(list.body.tasks.every((x: { delegateId: string }) => x.delegateId === other.id)).toBe(true);
    expect(Object.keys(list.body.tasks[0]).sort()).toEqual(["delegateId", "reference", "session"]);
    expect((await get("/tasks?sort[delegateId]=asc&limit=5", t.owner.key)).status).toBe(200);
  });

  it("delegateId travels in export and import (the delegate, not a session: an import delegates nothing)", async () => {
    const team = await newTeam(t);
    const a = await task(team);
    await delegate(a.reference, agent.id);
    const first = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    expect(first.data.tasks[0].delegateId).toBe(agent.id);
    const copy = await newTeam(t);
    const res = await post(`/teams/${copy.id}/import`, { data: first, update: false }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const imported = (await get(`/tasks/${copy.prefix}-1`, t.owner.key)).body.task;
    expect(imported).toMatchObject({ delegateId: agent.id, session: null });
    const second = (await get(`/teams/${copy.id}/export`, t.owner.key)).body;
    expect(second.data.tasks[0].delegateId).toBe(agent.id);
  });

  it("an import whose delegate stands for a person of the workspace is refused at the field, as POST/PATCH refuse it", async () => {
    const team = await newTeam(t);
    const a = await task(team);
    await delegate(a.reference, agent.id);
    const exported = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    exported.data.tasks[0].delegateId = member.userId;
    const copy = await newTeam(t);
    const res = await post(`/teams/${copy.id}/import`, { data: exported, update: false }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const human = await delegate(a.reference, member.userId);
    expect(res.body.errors).toEqual({ "data.data.tasks.0.delegateId": human.body.errors.delegateId });
    expect((await get(`/teams/${copy.id}/export`, t.owner.key)).body.data.tasks).toEqual([]);
  });

  it("a webhook naming agentIds gets the events of those agents' sessions only", async () => {
    const hook = await post(
      "/webhooks",
      { url: receiverUrl(), events: ["agent_session.*", "agent_activity.*", "task.*"], agentIds: [agent.email] },
      t.owner.key,
    );
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    expect(hook.body.webhook.agentIds).toEqual([agent.id]);
    expect((await post("/webhooks", { url: receiverUrl(), events: ["*"], agentIds: [member.userId] }, t.owner.key)).status).toBe(404);
    const a = await task();
    const mine = (await delegate(a.reference, agent.id)).body.task.session;
    await activity(mine.id, { type: "thought", body: "On it" }, agent.key);
    const b = await task();
    const theirs = (await delegate(b.reference, other.id)).body.task.session;
    const deliveries = (await get(`/webhooks/${hook.body.webhook.id}/deliveries?limit=250`, t.owner.key)).body.deliveries;
    const events = await eventsAfter(t.owner.key);
    const delivered = deliveries.map((d: { eventId: string }) => events.find((e) => e.id === d.eventId));
    expect(delivered.map((e: { type: string }) => e.type).sort()).toEqual(
      ["agent_activity.created", "agent_session.created", "agent_session.updated"].sort(),
    );
    expect(
      delivered.every((e: { resourceId: string; data: { sessionId?: string } }) => [e.resourceId, e.data.sessionId].includes(mine.id)),
    ).toBe(true);
    expect(delivered.some((e: { resourceId: string }) => e.resourceId === theirs.id)).toBe(false);
    const cleared = await patch(`/webhooks/${hook.body.webhook.id}`, { agentIds: null }, t.owner.key);
    expect(cleared.body.webhook.agentIds).toBeNull();
  });

  it("batch reads run the GETs' own reads, with their rules", async () => {
    const a = await task(eng);
    const b = await task(ops);
    const own = (await delegate(a.reference, agent.id)).body.task.session;
    const theirs = (await delegate(b.reference, other.id)).body.task.session;
    await activity(own.id, { type: "thought", body: "Batched" }, agent.key);
    const res = await post(
      "/batch",
      {
        requests: [
          `/agent-sessions/${own.id}?fields=id,state`,
          `/agent-sessions/${own.id}/activities`,
          `/agent-sessions?filter[eq][taskId]=${a.reference}`,
          `/agent-sessions/${theirs.id}`,
        ],
      },
      agent.key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [one, activities, list, hidden] = res.body.results;
    expect(one).toEqual({ session: { id: own.id, state: "active" } });
    expect(activities.activities.map((x: { body: string }) => x.body)).toEqual(["Batched"]);
    expect(list.sessions.map((x: { id: string }) => x.id)).toEqual([own.id]);
    expect(hidden.error.code).toBe("NOT_FOUND");
  });
});
