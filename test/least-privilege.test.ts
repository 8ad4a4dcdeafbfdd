// Least privilege beyond the walks (docs/api.md, least privilege): a batch's items each carry their own refusal, a
// credential never makes one with more than it has, a key's effective rights are its scopes within its user's roles,
// operations that reach past every team need a credential bound to none, and the order of checks (401, 403, 404,
// validation) holds for scopes and teams. test/least-privilege-walk.test.ts walks every operation.
import { beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, api, del, get, patch, post } from "./helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";
import { BAD_KEY, expectMissingScope, keyWith, ok, receiverUrl, SCOPES } from "./helpers/least-privilege";

let t: Tenant;
let teamA: TeamFixture;
let teamB: TeamFixture;
/** The OWNER's key with every scope, bound to team A. */
let boundToA: string;
const owner = () => t.owner.key;

/** A task, a project with a milestone, a comment and a membership of a MEMBER in team `x`. */
async function recordsIn(x: TeamFixture, person: Member) {
  const task = ok(await post("/tasks", { teamId: x.id, title: "Least" }, owner()), 201).task;
  const project = ok(await post("/projects", { teamId: x.id, name: "Least" }, owner()), 201).project;
  const milestone = ok(await post("/milestones", { projectId: project.id, name: "M" }, owner()), 201).milestone;
  const comment = ok(await post("/comments", { taskId: task.id, content: "Least" }, owner()), 201).comment;
  const membership = await joinTeam(x, person, "MEMBER");
  return { task, project, milestone, comment, membership };
}
let a: Awaited<ReturnType<typeof recordsIn>>;
let b: Awaited<ReturnType<typeof recordsIn>>;
let person: Member;

/** 403 FORBIDDEN for a role the user lacks: no scope is named, since no scope would help. */
function expectRoleRefusal(res: ApiResponse, what: string) {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(403);
  expect(res.body.error.code, what).toBe("FORBIDDEN");
  expect(res.body.error.details?.requiredScope, what).toBeUndefined();
}

beforeAll(async () => {
  t = await newTenant("Least privilege");
  [teamA, teamB] = [await newTeam(t), await newTeam(t)];
  person = await addMember(t, "MEMBER");
  [a, b] = [await recordsIn(teamA, person), await recordsIn(teamB, person)];
  boundToA = await keyWith(owner(), { teamIds: [teamA.id] });
});

describe("POST /batch: each item carries its own refusal", () => {
  it("a key bound to team A without export: team B's records are 404, exports 403 naming export, in order; the batch is 200", async () => {
    const key = await keyWith(owner(), { scopes: SCOPES.filter((s) => s !== "export"), teamIds: [teamA.id] });
    const requests = [
      `/tasks/${a.task.reference}`,
      `/tasks/${b.task.id}`,
      `/tasks/${a.task.id}/export`,
      `/projects/${b.project.reference}/milestones`,
      `/teams/${teamA.id}`,
      `/comments/${b.comment.id}`,
      `/tasks/${b.task.id}/export`,
      `/team-members/${b.membership}`,
      `/milestones/${a.milestone.id}`,
      `/teams/${teamB.id}/members`,
    ];
    const { results } = ok(await post("/batch", { requests }, key), 200);
    expect(results).toHaveLength(requests.length);
    const notFound = { error: expect.objectContaining({ code: "NOT_FOUND" }) };
    const noExport = { error: expect.objectContaining({ code: "FORBIDDEN", details: { requiredScope: "export" } }) };
    expect(results).toEqual([
      { task: expect.objectContaining({ id: a.task.id }) },
      notFound,
      noExport,
      notFound,
      { team: expect.objectContaining({ id: teamA.id }) },
      notFound,
      // The scope comes before the team's reach: an export of team B's task is refused for the scope, not 404.
      noExport,
      notFound,
      { milestone: expect.objectContaining({ id: a.milestone.id }) },
      notFound,
    ]);
  });

  it("a key without read: the batch itself is 403 naming read; a bad key 401", async () => {
    const key = await keyWith(owner(), { scopes: ["export"] });
    expectMissingScope(await post("/batch", { requests: [`/tasks/${a.task.id}/export`] }, key), "read");
    expect((await post("/batch", { requests: [`/tasks/${a.task.id}`] }, BAD_KEY)).status).toBe(401);
  });
});

describe("no escalation: a credential makes none with more than it has", () => {
  it("a key with [read, keys:write] cannot create one with tasks:write; a narrower one it can; omitted scopes inherit its own", async () => {
    const key = await keyWith(owner(), { scopes: ["read", "keys:write"] });
    expectMissingScope(await post("/api-keys", { name: "wider", scopes: ["read", "tasks:write"] }, key), "tasks:write");
    expect(ok(await post("/api-keys", { name: "narrower", scopes: ["read"] }, key), 201).apiKey.scopes).toEqual(["read"]);
    const inherited = ok(await post("/api-keys", { name: "inherited" }, key), 201);
    expect(inherited.apiKey).toMatchObject({ scopes: ["read", "keys:write"], teamIds: null });
    expect(ok(await get("/me", inherited.key), 200)).toMatchObject({ scopes: ["read", "keys:write"], teamIds: null });
    // What it made is no more than it: a write outside its scopes is refused.
    expectMissingScope(await post("/tasks", { teamId: teamA.id, title: "No" }, inherited.key), "tasks:write");
  });

  it("a key bound to team A cannot create an unbound key (403) nor one of team B (404); omitted teams inherit team A", async () => {
    const unbound = await post("/api-keys", { name: "every team", teamIds: null }, boundToA);
    expect(unbound.status, JSON.stringify(unbound.body)).toBe(403);
    expect(unbound.body.error.code).toBe("FORBIDDEN");
    const other = await post("/api-keys", { name: "team B", teamIds: [teamB.id] }, boundToA);
    expect(other.status, JSON.stringify(other.body)).toBe(404);
    const both = await post("/api-keys", { name: "A and B", teamIds: [teamA.id, teamB.id] }, boundToA);
    expect(both.status, JSON.stringify(both.body)).toBe(404);
    const inherited = ok(await post("/api-keys", { name: "inherited" }, boundToA), 201);
    expect(inherited.apiKey).toMatchObject({ scopes: [...SCOPES], teamIds: [teamA.id] });
    expect((await get(`/tasks/${b.task.id}`, inherited.key)).status).toBe(404);
    expect(ok(await post("/api-keys", { name: "A again", teamIds: [teamA.id] }, boundToA), 201).apiKey.teamIds).toEqual([teamA.id]);
  });

  it("an agent gets no more than the key that creates it: scopes, teams; omitted, the creator's", async () => {
    const key = await keyWith(owner(), { scopes: ["read", "members:write"] });
    expectMissingScope(await post("/agents", { name: "Greedy", scopes: ["read", "tasks:write"] }, key), "tasks:write");
    const agent = ok(await post("/agents", { name: "Modest" }, key), 201).agent;
    expect(ok(await get("/me", agent.apiKey), 200)).toMatchObject({
      user: { id: agent.id },
      scopes: ["read", "members:write"],
      teamIds: null,
    });

    expect((await post("/agents", { name: "Everywhere", teamIds: null }, boundToA)).status).toBe(403);
    expect((await post("/agents", { name: "Team B", teamIds: [teamB.id] }, boundToA)).status).toBe(404);
    const bound = ok(await post("/agents", { name: "Team A", scopes: ["read", "comments:write"] }, boundToA), 201).agent;
    expect(ok(await get("/me", bound.apiKey), 200)).toMatchObject({ scopes: ["read", "comments:write"], teamIds: [teamA.id] });
  });

  it("GET /api-keys and GET /me show each key's scopes and teams", async () => {
    const key = await keyWith(owner(), { scopes: ["read", "comments:write"], teamIds: [teamA.id] });
    expect(ok(await get("/me", key), 200)).toMatchObject({
      user: { id: t.owner.userId },
      role: "OWNER",
      scopes: ["read", "comments:write"],
      teamIds: [teamA.id],
      teams: [{ id: teamA.id, prefix: teamA.prefix, name: teamA.name }],
    });
    // By prefix also for a key that may not read teams (GET /teams refuses it), in the same one read.
    const blind = await keyWith(owner(), { scopes: ["comments:write"], teamIds: [teamB.id, teamA.id] });
    expect((await get("/teams", blind)).status).toBe(403);
    const me = await get("/me", blind);
    expect(ok(me, 200).teams.map((team: { prefix: string }) => team.prefix)).toEqual([teamA.prefix, teamB.prefix].sort());
    expect(me.headers.get("server-timing")).toMatch(/desc="1 quer/);
    expect(ok(await get("/me", owner()), 200).teams).toBeNull();
    const listed = ok(await get("/api-keys?limit=250", owner()), 200).api_keys as any[];
    const prefix = key.slice(0, 10);
    expect(listed.find((k) => k.prefix === prefix)).toMatchObject({ scopes: ["read", "comments:write"], teamIds: [teamA.id] });
    expect(ok(await get("/me", owner()), 200)).toMatchObject({ scopes: [...SCOPES], teamIds: null });
  });

  it("a <records>:write scope reads those records; GET /me and GET /api-keys show the reads", async () => {
    const tasksOnly = await keyWith(owner(), { scopes: ["tasks:write"] });
    const task = ok(
      await post("/tasks", { teamId: teamA.prefix, title: "Written by a tasks:write key", labelIds: [] }, tasksOnly),
      201,
    ).task;
    expect(ok(await get(`/tasks/${task.reference}`, tasksOnly), 200).task.id).toBe(task.id);
    expect(ok(await get(`/tasks?filter[eq][teamId]=${teamA.prefix}`, tasksOnly), 200).tasks.map((x: any) => x.id)).toContain(task.id);
    expect(ok(await get(`/tasks/${task.id}/history`, tasksOnly), 200).events.length).toBeGreaterThan(0);
    for (const path of ["/projects", "/labels", `/tasks/${task.id}/comments`, "/teams", "/events", "/users"]) {
      expectMissingScope(await get(path, tasksOnly), "read", path);
    }
    const commenter = await keyWith(owner(), { scopes: ["comments:write"] });
    for (const path of [`/tasks/${task.id}`, `/tasks/${task.id}/comments`, "/comments", "/projects", "/milestones"]) {
      expect((await get(path, commenter)).status, path).toBe(200);
    }
    expectMissingScope(await get("/labels", commenter), "read", "/labels");
    const labeller = await keyWith(owner(), { scopes: ["labels:write"] });
    expect((await get("/labels", labeller)).status).toBe(200);
    expectMissingScope(await get("/tasks", labeller), "read", "/tasks");
    const teamsWriter = await keyWith(owner(), { scopes: ["teams:write"] });
    expect((await get(`/teams/${teamA.prefix}/members`, teamsWriter)).status).toBe(200);

    expect(ok(await get("/me", commenter), 200)).toMatchObject({
      scopes: ["comments:write"],
      reads: ["attachments", "comments", "links", "milestones", "projects", "relations", "tasks"],
    });
    expect(ok(await get("/me", tasksOnly), 200).reads).toEqual([
      "activities",
      "agent-sessions",
      "attachments",
      "links",
      "relations",
      "states",
      "tasks",
      "worklogs",
    ]);
    // A task's relations, links and attachments are the task's: tasks:write reads them too; and its team's workflow
    // states, which a task's status names.
    expect((await get(`/teams/${teamA.prefix}/states`, tasksOnly)).status).toBe(200);
    expect((await get(`/tasks/${task.id}/relations`, tasksOnly)).status).toBe(200);
    expect((await get(`/tasks/${task.id}/links`, tasksOnly)).status).toBe(200);
    expect(ok(await get("/me", owner()), 200).reads).toContain("events");
    const listed = ok(await get("/api-keys?limit=250", owner()), 200).api_keys as any[];
    expect(listed.find((k) => k.prefix === commenter.slice(0, 10)).reads).toEqual([
      "attachments",
      "comments",
      "links",
      "milestones",
      "projects",
      "relations",
      "tasks",
    ]);
    // The document says it: the reads also allowed by a write scope.
    const doc = ok(await get("/openapi.json"), 200);
    expect(doc.paths["/tasks"].get["x-accepted-scopes"]).toEqual(["read", "tasks:write", "comments:write"]);
  });

  it("a read-only key does not replay another key's Idempotency-Key answer: 403, not the first answer", async () => {
    const headers = { "idempotency-key": `lp-${Date.now()}` };
    const body = { name: "once" };
    const first = await api("POST", "/api-keys", { key: owner(), body, headers });
    expect(first.status).toBe(201);
    const readOnly = await keyWith(owner(), { scopes: ["read"] });
    const replay = await api("POST", "/api-keys", { key: readOnly, body, headers });
    expectMissingScope(replay, "keys:write");
    expect(JSON.stringify(replay.body)).not.toContain(first.body.key);
    // The first key still replays its own answer.
    const again = await api("POST", "/api-keys", { key: owner(), body, headers });
    expect(again.status).toBe(201);
    expect(again.body.key).toBe(first.body.key);
  });
});

describe("effective rights are the scopes within the user's roles", () => {
  it("a MEMBER's key with every scope still cannot do what needs ADMIN or OWNER (403, no scope named)", async () => {
    const key = await keyWith(person.key, { scopes: [...SCOPES] });
    expect(ok(await get("/me", key), 200)).toMatchObject({ role: "MEMBER", scopes: [...SCOPES] });
    expectRoleRefusal(await post("/fields", { key: "member_field", name: "No", type: "text", recordTypes: ["task"] }, key), "POST /fields");
    expectRoleRefusal(await post("/invites", { email: "nobody@example.com" }, key), "POST /invites");
    expectRoleRefusal(await patch(`/users/${t.owner.userId}`, { role: "MEMBER" }, key), "PATCH /users/{id}");
    expectRoleRefusal(await patch(`/workspaces/${t.workspaceId}`, { name: "Mine" }, key), "PATCH /workspaces/{id}");
    expectRoleRefusal(await post("/webhooks", { url: receiverUrl(), events: ["task.*"] }, key), "POST /webhooks");
    expectRoleRefusal(await get(`/workspaces/${t.workspaceId}/export`, key), "GET /workspaces/{id}/export");
    expectRoleRefusal(await del(`/teams/${teamA.id}`, key), "DELETE /teams/{id}");
    // Within its roles it works: a MEMBER of team A writes there.
    ok(await post("/comments", { taskId: a.task.id, content: "Member's" }, key), 201);
  });
});

describe("operations that reach past every team need a credential bound to none", () => {
  it("a key bound to team A creates no team: top-level or under team A (403)", async () => {
    const top = await post("/teams", { name: "New", prefix: `N${Date.now().toString(36).slice(-6).toUpperCase()}` }, boundToA);
    expect(top.status, JSON.stringify(top.body)).toBe(403);
    const sub = await post(
      "/teams",
      { name: "Sub", prefix: `S${Date.now().toString(36).slice(-6).toUpperCase()}`, parentId: teamA.id },
      boundToA,
    );
    expect(sub.status, JSON.stringify(sub.body)).toBe(403);
  });

  it("a key bound to team A cannot export the whole workspace (refused)", async () => {
    const res = await get(`/workspaces/${t.workspaceId}/export`, boundToA);
    expect([403, 404], JSON.stringify(res.body).slice(0, 300)).toContain(res.status);
  });

  it("a key bound to team A cannot import a workspace (refused)", async () => {
    const source = await newTenant("Least privilege source");
    const exported = ok(await get(`/workspaces/${source.workspaceId}/export`, source.owner.key), 200);
    const res = await post("/workspaces/import", { data: exported }, boundToA);
    expect([403, 404], JSON.stringify(res.body).slice(0, 300)).toContain(res.status);
  });

  // A webhook's events reach past any one team, so a team-bound key manages none (docs/api.md, "Least privilege").
  it("a key bound to team A manages no webhook: creating one (of every team or of its own) or changing one is 403", async () => {
    for (const body of [{}, { teamIds: [teamA.id] }]) {
      const res = await post("/webhooks", { url: receiverUrl(), events: ["task.*"], ...body }, boundToA);
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.error.message).toContain("bound to teams");
    }
    const ofB = ok(await post("/webhooks", { url: receiverUrl(), events: ["task.*"], teamIds: [teamB.id] }, owner()), 201).webhook;
    expect((await patch(`/webhooks/${ofB.id}`, { url: receiverUrl() }, boundToA)).status).toBe(403);
    expect((await api("DELETE", `/webhooks/${ofB.id}`, { key: boundToA })).status).toBe(403);
  });
});

describe("order of checks with scopes and teams: 401, then 403 (scope), then 404, then validation", () => {
  it("on team B's task: a bad key 401; a bound key without tasks:write 403; a bound key with it 404, even with an invalid body", async () => {
    const path = `/tasks/${b.task.id}`;
    expect((await patch(path, { title: 5 }, BAD_KEY)).status).toBe(401);
    const noWrite = await keyWith(owner(), { scopes: SCOPES.filter((s) => s !== "tasks:write"), teamIds: [teamA.id] });
    expectMissingScope(await patch(path, { title: 5 }, noWrite), "tasks:write");
    const invalid = await patch(path, { title: 5 }, boundToA);
    expect(invalid.status, JSON.stringify(invalid.body)).toBe(404);
    expect((await patch(`/tasks/${a.task.id}`, { title: 5 }, boundToA)).status).toBe(422);
  });

  // The order of checks looks the path's record up through its GET, which needs no scope of its own then.
  it("a key with only tasks:write: a missing task with an invalid body is 404, not 422", async () => {
    const key = await keyWith(owner(), { scopes: ["tasks:write"] });
    const res = await patch("/tasks/task_00000000000000000000000000", { title: 5 }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(404);
  });
});
