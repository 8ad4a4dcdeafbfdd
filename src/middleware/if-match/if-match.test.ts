import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, patch, post } from "../../../test/helpers/api";
import {
  addMember,
  joinTeam,
  type Member,
  newTeam,
  newTenant,
  type TeamFixture,
  type Tenant,
  withDb,
} from "../../../test/helpers/fixtures";

const conditional = (method: "PATCH" | "DELETE", path: string, key: string, ifMatch: string, body?: unknown) =>
  api(method, path, { key, body, headers: { "if-match": ifMatch } });

/** The row as the database holds it, to prove a refused write changed nothing. */
const row = (table: string, id: string) =>
  withDb(async (db) => (await db.execute(sql`select * from ${sql.identifier(table)} where id = ${id}`)).rows[0]);

describe("If-Match on PATCH and DELETE", () => {
  let t: Tenant;
  let member: Member;
  let team: TeamFixture;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await newTenant("Preconditions");
    member = await addMember(t, "MEMBER");
    team = await newTeam(t);
    await joinTeam(team, member, "MEMBER");
    const key = t.owner.key;
    ids.label = (await post("/labels", { name: "Cond", color: "#101010" }, key)).body.label.id;
    ids.project = (await post("/projects", { teamId: team.id, name: "Cond project" }, key)).body.project.id;
    ids.milestone = (await post("/milestones", { projectId: ids.project, name: "Cond milestone" }, key)).body.milestone.id;
    const task = (await post("/tasks", { teamId: team.id, title: "Cond task", assigneeId: member.userId, labelIds: [ids.label] }, key)).body
      .task;
    ids.task = task.id;
    ids.ref = task.reference;
    ids.comment = (await post("/comments", { taskId: task.id, content: "Cond comment" }, key)).body.comment.id;
    ids.field = (await post("/fields", { key: "cond", name: "Cond", type: "text", recordTypes: ["task"] }, key)).body.field.id;
    ids.team = (await post("/teams", { name: "Cond team", prefix: `CT${Date.now() % 100000}` }, key)).body.team.id;
  });

  // resource path, its table, a change, the column that shows it
  const CASES: Array<[string, string, () => unknown, string]> = [
    ["/tasks/{task}", "tasks", () => ({ title: `t ${Math.random()}` }), "title"],
    ["/projects/{project}", "projects", () => ({ name: `p ${Math.random()}` }), "name"],
    ["/milestones/{milestone}", "milestones", () => ({ name: `m ${Math.random()}` }), "name"],
    ["/comments/{comment}", "comments", () => ({ content: `c ${Math.random()}` }), "content"],
    ["/teams/{team}", "teams", () => ({ name: `n ${Math.random()}` }), "name"],
    ["/labels/{label}", "labels", () => ({ name: `l ${Math.random()}` }), "name"],
    ["/fields/{field}", "field_definitions", () => ({ name: `f ${Math.random()}` }), "name"],
  ];
  const fill = (path: string) => path.replace(/\{(\w+)\}/g, (_, k) => ids[k]);

  it.each(CASES)(
    "PATCH %s with the current ETag writes; with a stale one is 412 and writes nothing",
    async (path, table, change, column) => {
      const p = fill(path);
      const read = await get(p, t.owner.key);
      expect(read.status).toBe(200);
      const etag = read.headers.get("etag")!;
      expect(etag).toMatch(/^W\/"/);
      const ok = await conditional("PATCH", p, t.owner.key, etag, change());
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      // The PATCH answer carries the new ETag, the one a GET now gives: a client can chain writes.
      const after = await get(p, t.owner.key);
      expect(ok.headers.get("etag")).toBe(after.headers.get("etag"));
      const before = await row(table, p.split("/")[2]);
      const stale = await conditional("PATCH", p, t.owner.key, etag, change());
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe("PRECONDITION_FAILED");
      expect(await row(table, p.split("/")[2])).toEqual(before);
      expect(before[column]).toBe((Object.values(ok.body)[0] as Record<string, unknown>)[column]);
    },
  );

  it("accepts a list of tags, a strong form of the tag and *; a reference path works too", async () => {
    const read = await get(`/tasks/${ids.ref}`, t.owner.key);
    const etag = read.headers.get("etag")!;
    const strong = etag.replace(/^W\//, "");
    expect((await conditional("PATCH", `/tasks/${ids.ref}`, t.owner.key, `"nope", ${strong}`, { priority: "LOW" })).status).toBe(200);
    expect((await conditional("PATCH", `/tasks/${ids.ref}`, t.owner.key, "*", { priority: "HIGH" })).status).toBe(200);
    expect((await conditional("PATCH", `/tasks/${ids.ref}`, t.owner.key, strong, { priority: "LOW" })).status).toBe(412);
  });

  it("a change to something embedded (the assignee's name, a label) makes the task's ETag stale", async () => {
    const etag = (await get(`/tasks/${ids.task}`, t.owner.key)).headers.get("etag")!;
    expect((await patch(`/users/${member.userId}`, { name: `Renamed ${Date.now()}` }, member.key)).status).toBe(200);
    expect((await conditional("PATCH", `/tasks/${ids.task}`, t.owner.key, etag, { title: "no" })).status).toBe(412);
    const fresh = (await get(`/tasks/${ids.task}`, t.owner.key)).headers.get("etag")!;
    expect((await patch(`/labels/${ids.label}`, { color: "#202020" }, t.owner.key)).status).toBe(200);
    expect((await conditional("PATCH", `/tasks/${ids.task}`, t.owner.key, fresh, { title: "no" })).status).toBe(412);
  });

  it("DELETE with a stale ETag is 412 and the row stays; with the current one it is 204", async () => {
    const label = (await post("/labels", { name: "Doomed", color: "#303030" }, t.owner.key)).body.label;
    const etag = (await get(`/labels/${label.id}`, t.owner.key)).headers.get("etag")!;
    await patch(`/labels/${label.id}`, { color: "#404040" }, t.owner.key);
    const stale = await conditional("DELETE", `/labels/${label.id}`, t.owner.key, etag);
    expect(stale.status).toBe(412);
    expect(await row("labels", label.id)).toBeDefined();
    const current = (await get(`/labels/${label.id}`, t.owner.key)).headers.get("etag")!;
    expect((await conditional("DELETE", `/labels/${label.id}`, t.owner.key, current)).status).toBe(204);
    expect(await row("labels", label.id)).toBeUndefined();
  });

  it("two writers with the same ETag at once: exactly one wins, the other gets 412", async () => {
    const etag = (await get(`/tasks/${ids.task}`, t.owner.key)).headers.get("etag")!;
    const results = await Promise.all(
      ["first", "second", "third"].map((title) => conditional("PATCH", `/tasks/${ids.task}`, t.owner.key, etag, { title })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412]);
  });

  it("keeps the write's own answers: 404 for a missing or foreign resource, 403 for a VIEWER (nothing written)", async () => {
    const etag = (await get(`/tasks/${ids.task}`, t.owner.key)).headers.get("etag")!;
    expect((await conditional("PATCH", "/tasks/task_01jz8x4q0be0sv3c5kq9v1y2ab", t.owner.key, etag, { title: "x" })).status).toBe(404);
    const other = await newTenant();
    expect((await conditional("PATCH", `/tasks/${ids.task}`, other.owner.key, etag, { title: "x" })).status).toBe(404);
    const viewer = await addMember(t, "MEMBER");
    await joinTeam(team, viewer, "VIEWER");
    const before = await row("tasks", ids.task);
    const refused = await conditional("PATCH", `/tasks/${ids.task}`, viewer.key, etag, { title: "x" });
    expect(refused.status).toBe(403);
    expect(await row("tasks", ids.task)).toEqual(before);
    // A bad body under a matching tag is the usual 422, and nothing changes.
    expect((await conditional("PATCH", `/tasks/${ids.task}`, t.owner.key, etag, { status: "NOPE" })).status).toBe(422);
    expect(await row("tasks", ids.task)).toEqual(before);
  });

  it("runs the check and the write in one transaction; without If-Match a write costs what it did", async () => {
    const etag = (await get(`/tasks/${ids.task}`, t.owner.key)).headers.get("etag")!;
    const res = await conditional("PATCH", `/tasks/${ids.task}`, t.owner.key, etag, { dueDate: "2027-01-01" });
    expect(res.status).toBe(200);
    expect(res.transactions).toBe(1);
    const plain = await patch(`/tasks/${ids.task}`, { dueDate: "2027-01-02" }, t.owner.key);
    expect([plain.queries, plain.transactions]).toEqual([1, 0]);
  });
});
