// Round-trip budgets, one table for every endpoint. The budget is authentication + 1 read; reads here
// authenticate inside their own query, so a single GET costs exactly 1 query, and a list 1 whatever the page size
// (2 when the page is empty: the second tells a bad credential from an empty list). A write is one transaction:
// an explicit one, or a single statement (which Postgres runs as its own transaction). POST /tasks without links
// and the writes budgeted SELF below are one statement that reads the caller from the credential and says why it wrote
// nothing (docs/architecture.md, one function per operation).
// Such a statement goes over Neon's HTTP query, so a read or a SELF write costs 1 round trip of a distant database; a
// transaction's BEGIN and COMMIT count as queries, as they run on its WebSocket (docs/performance.md).
import { createExecutionContext, env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../src/app";
import { api, expectAtomicWrite, get, post } from "./helpers/api";
import { addMember, newTenant, type Tenant } from "./helpers/fixtures";

describe("query budgets", () => {
  let t: Tenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await newTenant("Budgets");
    const key = t.owner.key;
    const member = await addMember(t, "MEMBER");
    const ok = (res: { status: number; body: any }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const team = ok(await post("/teams", { name: "Budget team", prefix: "BUD" }, key)).team;
    ids.team = team.id;
    ids.membership = ok(await post(`/teams/${team.id}/members`, { userId: member.userId }, key)).teamMember.id;
    const labelIds: string[] = [];
    for (let i = 0; i < 5; i++) labelIds.push(ok(await post("/labels", { name: `b${i}`, color: "#000000" }, key)).label.id);
    ids.label = labelIds[0];
    ids.project = ok(await post("/projects", { name: "P", teamId: team.id, labelIds, leadId: member.userId }, key)).project.id;
    ids.milestone = ok(await post("/milestones", { projectId: ids.project, name: "M" }, key)).milestone.id;
    // Enough rows with labels and assignees that a query per row would show.
    for (let i = 0; i < 60; i++) {
      const task = ok(
        await post("/tasks", { title: `t${i}`, teamId: team.id, projectId: ids.project, labelIds, assigneeId: member.userId }, key),
      ).task;
      ids.task ??= task.id;
      ids.ref ??= task.reference;
      if (i === 1) ids.task2 = task.id;
      if (i === 2) ids.ref3 = task.reference;
      ok(await post("/comments", { content: `c${i}`, taskId: ids.task }, key));
    }
    ids.comment = ok(await post("/comments", { content: "x", projectId: ids.project }, key)).comment.id;
  });

  const GETS = [
    "/me",
    "/teams/{team}",
    "/team-members/{membership}",
    "/labels/{label}",
    "/tasks/{task}",
    "/tasks/{ref}",
    "/projects/{project}",
    "/milestones/{milestone}",
    "/comments/{comment}",
  ];
  const LISTS = [
    "/teams",
    "/teams/{team}/members",
    "/labels",
    "/tasks",
    "/tasks?filter[eq][teamId]={team}&sort[priority]=desc",
    "/tasks/{task}/comments",
    "/projects",
    "/projects/{project}/milestones",
    "/projects/{project}/comments",
    "/milestones",
    "/milestones/{milestone}/comments",
    "/comments",
  ];
  const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, k) => ids[k]);

  // Single reads authenticate inside their own query (gatedRead), so they beat the budget: one round trip.
  it.each(GETS)("GET %s costs one query", async (path) => {
    const res = await get(fill(path), t.owner.key);
    expect(res.status).toBe(200);
    expect(res.queries).toBe(1);
  });

  // Exports load the caller (the workspace export is for OWNERs), then build the whole document in one statement.
  it.each(["/tasks/{task}/export", "/projects/{project}/export", "/teams/{team}/export", "/workspaces/{workspace}/export"])(
    "GET %s costs the authentication and one query",
    async (path) => {
      const res = await get(fill(path.replace("{workspace}", t.workspaceId)), t.owner.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBe(2);
    },
  );

  it.each(GETS.filter((p) => p !== "/me"))("GET %s with a bad key is 401, not 404", async (path) => {
    const res = await get(fill(path), "pmk_not-a-key-0000000000000000000000000000000");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
  });

  // Lists authenticate inside their query too: one round trip for a page with rows; an empty page pays a
  // second query to tell a bad credential from an empty list.
  it.each(LISTS)("list %s costs at most 2 queries at limit 250", async (path) => {
    const p = fill(path);
    const res = await get(`${p}${p.includes("?") ? "&" : "?"}limit=250`, t.owner.key);
    expect(res.status).toBe(200);
    expect(res.queries).toBe(Object.values(res.body).some((v) => Array.isArray(v) && v.length > 0) ? 1 : 2);
  });

  it.each(LISTS)("list %s with a bad key is 401, never an empty page", async (path) => {
    const res = await get(fill(path), "pmk_not-a-key-0000000000000000000000000000000");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
  });

  it("binds cursors to the credential: another key's cursor is 400", async () => {
    const other = await addMember(t, "MEMBER");
    const first = await get("/tasks?limit=2", t.owner.key);
    const cursor = first.body.pagination.nextCursor;
    expect((await get(`/tasks?limit=2&cursor=${encodeURIComponent(cursor)}`, t.owner.key)).status).toBe(200);
    const foreign = await get(`/tasks?limit=2&cursor=${encodeURIComponent(cursor)}`, other.key);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe("BAD_REQUEST");
  });

  type Budget = [queries: number, transactions: number];
  /** One statement that authenticates itself (no separate authentication query). */
  const SELF: Budget = [1, 0];
  const WRITES: Array<[string, string, () => unknown, Budget?]> = [
    ["POST", "/labels", () => ({ name: `w${Math.random()}`, color: "#111111" }), SELF],
    ["PATCH", "/labels/{label}", () => ({ color: "#222222" }), SELF],
    ["POST", "/teams", () => ({ name: "W", prefix: `W${Math.floor(Math.random() * 1e6)}` }), SELF],
    ["PATCH", "/teams/{team}", () => ({ description: "d" }), SELF],
    ["PATCH", "/team-members/{membership}", () => ({ role: "ADMIN" }), SELF],
    // One statement that authenticates itself.
    ["POST", "/tasks", () => ({ title: "w", teamId: ids.team, labelIds: [ids.label] }), [1, 0]],
    ["PATCH", "/tasks/{task}", () => ({ priority: "HIGH", labelIds: [ids.label] }), SELF],
    ["PATCH", "/tasks/{ref}", () => ({ title: "by reference", dueDate: null }), SELF],
    ["POST", "/projects", () => ({ name: "w", teamId: ids.team, labelIds: [ids.label] }), SELF],
    ["PATCH", "/projects/{project}", () => ({ status: "ACTIVE", labelIds: [ids.label] }), SELF],
    ["POST", "/milestones", () => ({ projectId: ids.project, name: "w" }), SELF],
    ["PATCH", "/milestones/{milestone}", () => ({ status: "DONE" }), SELF],
    ["POST", "/comments", () => ({ content: "w", taskId: ids.task }), SELF],
    ["POST", "/projects/{project}/comments", () => ({ content: "w" }), SELF],
    ["PATCH", "/comments/{comment}", () => ({ content: "edited" }), SELF],
  ];

  it.each(WRITES)("%s %s runs as one transaction", async (method, path, body, budget) => {
    const res = await api(method, fill(path), { key: t.owner.key, body: body() });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    expectAtomicWrite(res, `${method} ${path}`);
    if (budget) expect([res.queries, res.transactions]).toEqual(budget);
  });

  it("adding a team member is one statement that authenticates itself", async () => {
    const newcomer = await addMember(t, "MEMBER");
    const res = await post(`/teams/${ids.team}/members`, { userId: newcomer.userId }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect([res.queries, res.transactions]).toEqual(SELF);
  });

  it("deletes are one statement that authenticates itself", async () => {
    const key = t.owner.key;
    const ok = (res: { status: number; body: any }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const task = ok(await post("/tasks", { title: "gone", teamId: ids.team }, key)).task;
    const label = ok(await post("/labels", { name: "gone", color: "#000000" }, key)).label;
    const comment = ok(await post("/comments", { content: "gone", taskId: task.id }, key)).comment;
    const project = ok(await post("/projects", { name: "gone", teamId: ids.team }, key)).project;
    const milestone = ok(await post("/milestones", { projectId: ids.project, name: "gone" }, key)).milestone;
    const team = ok(await post("/teams", { name: "Gone", prefix: `G${Math.floor(Math.random() * 1e6)}` }, key)).team;
    const leaver = await addMember(t, "MEMBER");
    const membership = ok(await post(`/teams/${ids.team}/members`, { userId: leaver.userId }, key)).teamMember;
    const selfAuthenticated = [
      `/comments/${comment.id}`,
      `/projects/${project.id}`,
      `/milestones/${milestone.id}`,
      `/tasks/${task.id}`,
      `/teams/${team.id}`,
      `/team-members/${membership.id}`,
      `/labels/${label.id}`,
    ];
    for (const path of selfAuthenticated) {
      const res = await api("DELETE", path, { key });
      expect(res.status, path).toBe(204);
      expectAtomicWrite(res, path);
      expect([res.queries, res.transactions], path).toEqual(SELF);
    }
  });

  // An upload reads its parent's rules before a byte is read (one query), streams the bytes to R2, then writes the record
  // in one transaction sent at once: the workspace's lock, and one statement with the rules again, the room, the insert
  // and the answer (it was 5 with a WebSocket's BEGIN and COMMIT, and 7 when the parent was read again and the answer
  // selected apart).
  it("an upload is one read before the bytes and one transaction of two statements sent at once after", async () => {
    const res = await api("POST", `/tasks/${ids.task}/attachments?filename=budget.txt`, {
      key: t.owner.key,
      rawBody: "budgeted bytes",
      headers: { "content-type": "text/plain", "content-length": "14" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect([res.queries, res.transactions]).toEqual([3, 1]);
  });

  // A relation is one statement (its rules, the edge, the answer); a `blocks` edge sends the workspace's lock ahead of it
  // in the same transaction, sent at once (2 queries, no BEGIN or COMMIT of a WebSocket's): one round trip either way.
  it("a relation create is one statement; a blocks edge one transaction of two statements sent at once", async () => {
    const create = (body: object) => post(`/tasks/${ids.task}/relations`, body, t.owner.key);
    for (const [body, budget] of [
      [{ type: "related", taskId: ids.task2 }, SELF],
      [{ type: "blocks", taskId: ids.ref3 }, [2, 1]],
    ] as const) {
      const res = await create(body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expectAtomicWrite(res, body.type);
      expect([res.queries, res.transactions], body.type).toEqual(budget);
    }
  });

  // A self-authenticating write that writes nothing loads the principal and explains itself as before.
  const REFUSED: Array<[string, string, () => unknown, who: "outsider" | "nobody" | "owner", status: number]> = [
    ["POST", "/comments", () => ({ content: "no", taskId: ids.task }), "outsider", 403],
    ["POST", "/comments", () => ({ content: "no", taskId: "tsk_missing" }), "outsider", 404],
    ["POST", "/comments", () => ({ content: "no", taskId: ids.task }), "nobody", 401],
    ["POST", "/projects/{project}/comments", () => ({ content: "no" }), "outsider", 403],
    ["PATCH", "/comments/{comment}", () => ({ content: "no" }), "outsider", 403],
    ["PATCH", "/comments/{comment}", () => ({ content: "no" }), "nobody", 401],
    ["DELETE", "/comments/{comment}", () => undefined, "outsider", 403],
    ["POST", "/projects", () => ({ name: "no", teamId: ids.team }), "outsider", 403],
    ["POST", "/projects", () => ({ name: "no", teamId: ids.team }), "nobody", 401],
    ["POST", "/projects", () => ({ name: "no", teamId: ids.team, labelIds: ["lbl_missing"] }), "owner", 404],
    ["PATCH", "/projects/{project}", () => ({ name: "no" }), "outsider", 403],
    ["PATCH", "/projects/{project}", () => ({ targetDate: "1999-01-01", startDate: "2000-01-01" }), "owner", 422],
    ["DELETE", "/projects/{project}", () => undefined, "outsider", 403],
    ["DELETE", "/projects/proj_missing", () => undefined, "owner", 404],
    ["POST", "/milestones", () => ({ projectId: ids.project, name: "no" }), "outsider", 403],
    ["POST", "/milestones", () => ({ projectId: "proj_missing", name: "no" }), "owner", 404],
    ["POST", "/milestones", () => ({ projectId: ids.project, name: "no" }), "nobody", 401],
    ["PATCH", "/milestones/{milestone}", () => ({ name: "no" }), "outsider", 403],
    ["DELETE", "/milestones/{milestone}", () => undefined, "outsider", 403],
    ["DELETE", "/milestones/mile_missing", () => undefined, "owner", 404],
    ["PATCH", "/tasks/{task}", () => ({ title: "no" }), "outsider", 403],
    ["PATCH", "/tasks/{ref}", () => ({ title: "no" }), "nobody", 401],
    ["PATCH", "/tasks/{task}", () => ({ labelIds: ["lbl_missing"] }), "owner", 404],
    ["PATCH", "/tasks/BUD-999999", () => ({ title: "no" }), "owner", 404],
    ["DELETE", "/tasks/{task}", () => undefined, "outsider", 403],
    ["DELETE", "/tasks/{task}", () => undefined, "nobody", 401],
    ["PATCH", "/teams/{team}", () => ({ description: "no" }), "outsider", 403],
    ["PATCH", "/teams/team_missing", () => ({ description: "no" }), "owner", 404],
    ["PATCH", "/teams/{team}", () => ({ description: "no" }), "nobody", 401],
    ["DELETE", "/teams/{team}", () => undefined, "outsider", 403],
    ["PATCH", "/team-members/{membership}", () => ({ role: "VIEWER" }), "outsider", 403],
    ["PATCH", "/team-members/tmbr_missing", () => ({ role: "VIEWER" }), "owner", 404],
    ["PATCH", "/team-members/{membership}", () => ({ role: "VIEWER" }), "nobody", 401],
    ["DELETE", "/team-members/{membership}", () => undefined, "outsider", 403],
    ["DELETE", "/team-members/{membership}", () => undefined, "nobody", 401],
  ];
  it.each(REFUSED)("%s %s refused (%s) is %i", async (method, path, body, who, status) => {
    const key = who === "nobody" ? "svc_unknown_key" : who === "owner" ? t.owner.key : (await addMember(t, "MEMBER")).key;
    const res = await api(method, fill(path), { key, body: body() });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
  });

  it("hides the bench reference routes when BENCH_ROUTES is not set", async () => {
    const bare = { ...env, BENCH_ROUTES: undefined };
    for (const path of ["/_bench/ceiling", "/_bench/floor"]) {
      const res = await app.fetch(new Request(`http://api.test${path}`), bare, createExecutionContext());
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).error.code).toBe("NOT_FOUND");
    }
  });
});
