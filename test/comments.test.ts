import { beforeAll, describe, expect, it } from "vitest";
import { milestones, projects, tasks } from "../drizzle/schema";
import { newId } from "../src/ids";
import { del, expectAtomicWrite, get, patch, post } from "./helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "./helpers/fixtures";
import { walk } from "./helpers/lists";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Targets {
  team: TeamFixture;
  taskId: string;
  taskRef: string;
  projectId: string;
  projectRef: string;
  milestoneId: string;
}

/** A team with one task (`<prefix>-1`), one project (`<prefix>-P1`) and one milestone of that project, inserted directly. */
async function targetsIn(tenant: Tenant, prefix: string): Promise<Targets> {
  const team = await newTeam(tenant, { prefix });
  const number = 1;
  const ids = { taskId: newId("task"), projectId: newId("proj"), milestoneId: newId("mile") };
  await withDb(async (db) => {
    const workspaceId = tenant.workspaceId;
    await db.insert(tasks).values({ id: ids.taskId, workspaceId, teamId: team.id, number, title: "A task" });
    await db.insert(projects).values({ id: ids.projectId, workspaceId, teamId: team.id, number, name: "A project" });
    await db.insert(milestones).values({ id: ids.milestoneId, workspaceId, projectId: ids.projectId, name: "A milestone" });
  });
  return { team, ...ids, taskRef: `${prefix}-${number}`, projectRef: `${prefix}-P${number}` };
}

const summaryOf = (m: Member) => ({ id: m.userId, name: m.name, email: m.email, avatarUrl: null, humanId: null });

describe("comments", () => {
  let t: Tenant;
  let admin: Member;
  let member: Member; // team MEMBER
  let member2: Member; // team MEMBER
  let viewer: Member; // team VIEWER
  let outsider: Member; // workspace MEMBER, not in the team
  let x: Targets;
  let other: Tenant;
  let ox: Targets;

  beforeAll(async () => {
    t = await newTenant("Comments Co");
    [admin, member, member2, viewer, outsider] = await Promise.all([
      addMember(t, "ADMIN"),
      addMember(t, "MEMBER"),
      addMember(t, "MEMBER"),
      addMember(t, "MEMBER"),
      addMember(t, "MEMBER"),
    ]);
    x = await targetsIn(t, "ENG");
    await Promise.all([joinTeam(x.team, member), joinTeam(x.team, member2), joinTeam(x.team, viewer, "VIEWER")]);
    other = await newTenant("Other Co");
    // The same prefix in another workspace: references resolve within the caller's workspace only.
    ox = await targetsIn(other, "ENG");
  });

  const comment = async (body: Record<string, unknown>, key = member.key) => {
    const res = await post("/comments", { content: "hello", ...body }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.comment;
  };

  it("creates a comment on a task: 201, Location, the exact Comment, one transaction", async () => {
    const res = await post("/comments", { content: "**Looks good**", taskId: x.taskId }, member.key);
    expect(res.status).toBe(201);
    const c = res.body.comment;
    expect(res.headers.get("location")).toBe(`/comments/${c.id}`);
    expect(c).toEqual({
      id: expect.stringMatching(/^cmnt_[0-9a-z]{26}$/),
      content: "**Looks good**",
      authorId: member.userId,
      author: summaryOf(member),
      taskId: x.taskId,
      projectId: null,
      milestoneId: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: c.createdAt,
    });
    expectAtomicWrite(res);
    expect(res.queries).toBe(1); // one INSERT … SELECT that authenticates and checks the target and the rule

    const read = await get(`/comments/${c.id}`, viewer.key);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ comment: c });
    expect(read.queries).toBeLessThanOrEqual(2);
    expect((await get(`/comments/${c.id}?fields=id,author{name}`, viewer.key)).body.comment).toEqual({
      id: c.id,
      author: { name: member.name },
    });
    expect((await get(`/comments/${c.id}?fields=author{avatarUrl,nope}`, viewer.key)).status).toBe(400);
  });

  it("takes task and project references in any case, and milestones by id", async () => {
    const onTask = await comment({ taskId: x.taskRef.toLowerCase() });
    expect(onTask).toMatchObject({ taskId: x.taskId, projectId: null, milestoneId: null });
    const onProject = await comment({ projectId: x.projectRef.toLowerCase() });
    expect(onProject).toMatchObject({ taskId: null, projectId: x.projectId, milestoneId: null });
    const onMilestone = await comment({ milestoneId: x.milestoneId });
    expect(onMilestone).toMatchObject({ taskId: null, projectId: null, milestoneId: x.milestoneId });
  });

  it("creates through POST /projects/{id}/comments (id or reference)", async () => {
    for (const id of [x.projectId, x.projectRef, x.projectRef.toLowerCase()]) {
      const res = await post(`/projects/${id}/comments`, { content: `via ${id}` }, member.key);
      expect(res.status).toBe(201);
      expect(res.headers.get("location")).toBe(`/comments/${res.body.comment.id}`);
      expect(res.body.comment).toMatchObject({
        content: `via ${id}`,
        projectId: x.projectId,
        taskId: null,
        milestoneId: null,
        author: summaryOf(member),
      });
      expectAtomicWrite(res);
    }
    const bad = await post(`/projects/${x.projectId}/comments`, { content: "x", taskId: x.taskId }, member.key);
    expect(bad.status).toBe(422);
    expect(bad.body.errors.taskId).toBeDefined();
    expect((await post(`/projects/${x.projectId}/comments`, {}, member.key)).body.errors.content).toBeDefined();
    expect((await post(`/projects/${x.taskRef}/comments`, { content: "x" }, member.key)).status).toBe(404);
  });

  it("needs exactly one target (422 under the keys concerned)", async () => {
    const none = await post("/comments", { content: "multi" }, member.key);
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.errors).sort()).toEqual(["milestoneId", "projectId", "taskId"]);

    const two = await post("/comments", { content: "multi", taskId: x.taskId, projectId: x.projectId }, member.key);
    expect(two.status).toBe(422);
    expect(Object.keys(two.body.errors).sort()).toEqual(["projectId", "taskId"]);

    const three = await post(
      "/comments",
      { content: "multi", taskId: x.taskId, projectId: x.projectId, milestoneId: x.milestoneId },
      member.key,
    );
    expect(three.status).toBe(422);
    expect(Object.keys(three.body.errors).sort()).toEqual(["milestoneId", "projectId", "taskId"]);

    expect((await get("/comments?filter[eq][content]=multi", member.key)).body.comments).toEqual([]);
  });

  it("validates content and rejects unknown body fields", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ taskId: x.taskId }, "content"],
      [{ taskId: x.taskId, content: "" }, "content"],
      [{ taskId: x.taskId, content: "   \n " }, "content"],
      [{ taskId: x.taskId, content: "a".repeat(50_001) }, "content"],
      [{ taskId: x.taskId, content: 42 }, "content"],
      [{ taskId: x.taskId, content: "ok", extra: 1 }, "extra"],
      [{ taskId: 7, content: "ok" }, "taskId"],
    ];
    for (const [body, key] of cases) {
      const res = await post("/comments", body, member.key);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.body.errors[key]).toBeDefined();
    }
    expect((await post("/comments", { taskId: x.taskId, content: "a".repeat(50_000) }, member.key)).status).toBe(201);
  });

  it("answers 404 for a missing target and writes nothing", async () => {
    const cases = [
      { taskId: newId("task") },
      { taskId: "ENG-99999" },
      { projectId: newId("proj") },
      { projectId: "ENG-P99999" },
      { milestoneId: newId("mile") },
      { milestoneId: x.projectId },
    ];
    for (const body of cases) {
      const res = await post("/comments", { content: "ghost", ...body }, member.key);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await post(`/projects/ENG-P99999/comments`, { content: "ghost" }, member.key)).status).toBe(404);
    // A project reference is no task: a value of neither of a task's forms is 422 at the field (docs/api.md, "Ids and names").
    const wrongKind = await post("/comments", { content: "ghost", taskId: x.projectRef }, member.key);
    expect([wrongKind.status, Object.keys(wrongKind.body.errors)]).toEqual([422, ["taskId"]]);
    const ghosts = await get("/comments?filter[eq][content]=ghost", t.owner.key);
    expect(ghosts.body.comments).toEqual([]);
  });

  it("lets team MEMBERs and workspace ADMINs comment, not VIEWERs or non-members (403), who can still read", async () => {
    expect((await comment({ taskId: x.taskId }, admin.key)).author.id).toBe(admin.userId);
    expect((await comment({ projectId: x.projectId }, t.owner.key)).author.id).toBe(t.owner.userId);
    for (const who of [viewer, outsider]) {
      for (const body of [{ taskId: x.taskId }, { projectId: x.projectRef }, { milestoneId: x.milestoneId }]) {
        const res = await post("/comments", { content: "denied", ...body }, who.key);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      expect((await post(`/projects/${x.projectId}/comments`, { content: "denied" }, who.key)).status).toBe(403);
      expect((await get(`/tasks/${x.taskId}/comments`, who.key)).status).toBe(200);
      expect((await get(`/milestones/${x.milestoneId}/comments`, who.key)).status).toBe(200);
      expect((await get("/comments", who.key)).status).toBe(200);
    }
    expect((await get("/comments?filter[eq][content]=denied", t.owner.key)).body.comments).toEqual([]);
  });

  it("lets only the author edit, even against a workspace OWNER or ADMIN", async () => {
    const c = await comment({ taskId: x.taskId, content: "first draft" });
    await new Promise((r) => setTimeout(r, 5));
    const res = await patch(`/comments/${c.id}`, { content: "second draft" }, member.key);
    expect(res.status).toBe(200);
    expect(res.body.comment).toEqual({ ...c, content: "second draft", updatedAt: expect.stringMatching(ISO) });
    expect(res.body.comment.updatedAt > c.updatedAt).toBe(true);
    expectAtomicWrite(res);
    expect(res.queries).toBe(1); // one UPDATE that authenticates and checks the author

    for (const who of [t.owner, admin, member2, viewer]) {
      const denied = await patch(`/comments/${c.id}`, { content: "hijacked" }, who.key);
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe("FORBIDDEN");
    }
    expect((await get(`/comments/${c.id}`, member.key)).body.comment.content).toBe("second draft");
    expect((await patch(`/comments/${newId("cmnt")}`, { content: "x" }, member.key)).status).toBe(404);
    expect((await patch(`/comments/${c.id}`, { content: "" }, member.key)).status).toBe(422);
    expect((await patch(`/comments/${c.id}`, { content: "x", taskId: x.taskId }, member.key)).status).toBe(422);
  });

  it("is deleted by its author or a workspace ADMIN/OWNER, not by another member (403)", async () => {
    const byAuthor = await comment({ taskId: x.taskId });
    const byAdmin = await comment({ taskId: x.taskId });
    const byOwner = await comment({ projectId: x.projectId });
    for (const who of [member2, viewer, outsider]) {
      const denied = await del(`/comments/${byAuthor.id}`, who.key);
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe("FORBIDDEN");
    }
    expect((await get(`/comments/${byAuthor.id}`, member.key)).status).toBe(200);

    const gone = await del(`/comments/${byAuthor.id}`, member.key);
    expect(gone.status).toBe(204);
    expect(gone.body).toBeNull();
    expectAtomicWrite(gone);
    expect(gone.queries).toBe(1); // one DELETE that authenticates and checks the rule
    expect((await del(`/comments/${byAdmin.id}`, admin.key)).status).toBe(204);
    expect((await del(`/comments/${byOwner.id}`, t.owner.key)).status).toBe(204);
    for (const c of [byAuthor, byAdmin, byOwner]) expect((await get(`/comments/${c.id}`, member.key)).status).toBe(404);
    expect((await del(`/comments/${byAuthor.id}`, member.key)).status).toBe(404);
  });

  it("lists a target's comments oldest first, ≤ 2 queries, with the task list's reduced author", async () => {
    const y = await targetsIn(t, "LST");
    await joinTeam(y.team, member);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await comment({ taskId: y.taskId, content: `t${i}` }));
    await comment({ projectId: y.projectId, content: "p" });
    await comment({ milestoneId: y.milestoneId, content: "m" });

    for (const id of [y.taskId, y.taskRef, y.taskRef.toLowerCase()]) {
      const res = await get(`/tasks/${id}/comments`, viewer.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBeLessThanOrEqual(2);
      expect(res.body).toEqual({
        comments: made.map((c) => ({ ...c, author: { id: member.userId, name: member.name, email: member.email } })),
        pagination: { limit: 50, nextCursor: null },
      });
    }
    const onProject = await get(`/projects/${y.projectRef}/comments`, viewer.key);
    expect(onProject.queries).toBeLessThanOrEqual(2);
    expect(onProject.body.comments).toHaveLength(1);
    expect(onProject.body.comments[0]).toMatchObject({ content: "p", projectId: y.projectId, author: summaryOf(member) });
    const onMilestone = await get(`/milestones/${y.milestoneId}/comments`, viewer.key);
    expect(onMilestone.queries).toBeLessThanOrEqual(2);
    expect(onMilestone.body.comments.map((c: any) => [c.content, c.milestoneId, c.author])).toEqual([
      ["m", y.milestoneId, summaryOf(member)],
    ]);

    const z = await targetsIn(t, "EMP");
    for (const path of [`/tasks/${z.taskRef}/comments`, `/projects/${z.projectId}/comments`, `/milestones/${z.milestoneId}/comments`]) {
      const empty = await get(path, viewer.key);
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ comments: [], pagination: { limit: 50, nextCursor: null } });
      expect(empty.queries).toBeLessThanOrEqual(2);
    }
    for (const path of [
      `/tasks/EMP-99999/comments`,
      `/tasks/${newId("task")}/comments`,
      `/projects/${z.taskId}/comments`,
      `/milestones/${z.projectId}/comments`,
    ]) {
      const missing = await get(path, viewer.key);
      expect(missing.status, path).toBe(404);
      expect(missing.body.error.code).toBe("NOT_FOUND");
      expect(missing.queries).toBeLessThanOrEqual(2);
    }

    // Fields, filters and sorts work on the nested lists too; a cursor stays with its own list.
    const desc = await get(`/tasks/${y.taskId}/comments?sort[createdAt]=desc&fields=content,author{email}&limit=2`, viewer.key);
    expect(desc.body.comments).toEqual([
      { content: "t2", author: { email: member.email } },
      { content: "t1", author: { email: member.email } },
    ]);
    expect((await get(`/tasks/${y.taskId}/comments?fields=author{avatarUrl}`, viewer.key)).status).toBe(400);
    expect((await get(`/tasks/${y.taskId}/comments?filter[eq][content]=t1`, viewer.key)).body.comments.map((c: any) => c.id)).toEqual([
      made[1].id,
    ]);
    const first = await get(`/tasks/${y.taskId}/comments?limit=1`, viewer.key);
    const cursor = encodeURIComponent(first.body.pagination.nextCursor);
    expect((await get(`/tasks/${y.taskId}/comments?limit=1&cursor=${cursor}`, viewer.key)).body.comments[0].id).toBe(made[1].id);
    expect((await get(`/projects/${y.projectId}/comments?limit=1&cursor=${cursor}`, viewer.key)).status).toBe(400);
    expect((await get(`/comments?limit=1&cursor=${cursor}`, viewer.key)).status).toBe(400);
  });

  it("filters, sorts and selects fields on GET /comments within ≤ 2 queries", async () => {
    const w = await newTenant();
    const wx = await targetsIn(w, "FLT");
    const wm = await addMember(w, "ADMIN");
    const onTask = await comment({ taskId: wx.taskId, content: "Alpha note" }, w.owner.key);
    const onProject = await comment({ projectId: wx.projectId, content: "beta NOTE" }, wm.key);
    const onMilestone = await comment({ milestoneId: wx.milestoneId, content: "gamma" }, w.owner.key);
    const ids = (res: any) => res.body.comments.map((c: any) => c.id);

    const all = await get("/comments?limit=250", w.owner.key);
    expect(all.queries).toBeLessThanOrEqual(2);
    expect(all.body.comments).toEqual([onTask, onProject, onMilestone]);
    expect(ids(await get(`/comments?filter[eq][taskId]=${wx.taskId}`, w.owner.key))).toEqual([onTask.id]);
    expect(ids(await get(`/comments?filter[eq][projectId]=${wx.projectId}`, w.owner.key))).toEqual([onProject.id]);
    expect(ids(await get(`/comments?filter[eq][milestoneId]=${wx.milestoneId}`, w.owner.key))).toEqual([onMilestone.id]);
    expect(ids(await get("/comments?filter[eq][taskId]=null", w.owner.key))).toEqual([onProject.id, onMilestone.id]);
    expect(ids(await get(`/comments?filter[eq][authorId]=${wm.userId}`, w.owner.key))).toEqual([onProject.id]);
    expect(ids(await get("/comments?filter[contains][content]=note", w.owner.key))).toEqual([onTask.id, onProject.id]);
    expect(ids(await get(`/comments?filter[gte][createdAt]=${onProject.createdAt}`, w.owner.key))).toEqual([onProject.id, onMilestone.id]);
    expect(ids(await get("/comments?sort[createdAt]=desc", w.owner.key))).toEqual([onMilestone.id, onProject.id, onTask.id]);
    expect(ids(await get("/comments?sort[taskId]=asc", w.owner.key))).toEqual([onTask.id, onProject.id, onMilestone.id]);

    const picked = await get("/comments?fields=id,author{id,humanId}", w.owner.key);
    expect(picked.body.comments[0]).toEqual({ id: onTask.id, author: { id: w.owner.userId, humanId: null } });
    for (const bad of ["fields=nope", "sort[content]=asc", "filter[eq][nope]=1", "sort[createdAt]=up"]) {
      expect((await get(`/comments?${bad}`, w.owner.key)).status, bad).toBe(400);
    }
    expect((await get("/comments?limit=251", w.owner.key)).status).toBe(422);
  });

  it("walks every page exactly once in order while comments are added (limit 7, 30+ comments)", async () => {
    const w = await newTenant();
    const wx = await targetsIn(w, "PAG");
    // Side by side (creation times may tie: ties go by id, as the list's order does).
    await Promise.all(Array.from({ length: 32 }, (_, i) => comment({ taskId: wx.taskId, content: `c${i}` }, w.owner.key)));

    for (const path of ["/comments", `/tasks/${wx.taskRef}/comments`]) {
      const seen: any[] = [];
      let cursor: string | null = null;
      let added = 0;
      do {
        const res: any = await get(`${path}?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, w.owner.key);
        expect(res.status).toBe(200);
        expect(res.queries).toBeLessThanOrEqual(2);
        expect(res.body.comments.length).toBeLessThanOrEqual(7);
        seen.push(...res.body.comments);
        cursor = res.body.pagination.nextCursor;
        // A comment added between pages is newer than the cursor, so the walk still reaches it.
        if (cursor && added < 3) {
          await comment({ taskId: wx.taskId, content: `added ${path} ${added++}` }, w.owner.key);
        }
      } while (cursor);
      const ids = seen.map((c) => c.id);
      expect(new Set(ids).size).toBe(ids.length);
      const times = seen.map((c) => c.createdAt);
      expect(times).toEqual([...times].sort());
      const everything = (await get(`${path}?limit=250`, w.owner.key)).body.comments.map((c: any) => c.id);
      expect(ids).toEqual(everything);
    }
    const desc = await walk(`/comments?sort[createdAt]=desc`, "comments", w.owner.key, 7);
    expect(desc).toHaveLength(38);
    expect(desc.map((c) => c.createdAt)).toEqual(
      desc
        .map((c) => c.createdAt)
        .sort()
        .reverse(),
    );
  });

  it("keeps other workspaces' comments and targets out of reach (404, nothing changed)", async () => {
    const theirs = await comment({ taskId: ox.taskId, content: "their secret" }, other.owner.key);
    for (const who of [t.owner, member]) {
      expect((await get(`/comments/${theirs.id}`, who.key)).status).toBe(404);
      expect((await patch(`/comments/${theirs.id}`, { content: "hacked" }, who.key)).status).toBe(404);
      expect((await del(`/comments/${theirs.id}`, who.key)).status).toBe(404);
    }
    expect((await get(`/comments/${theirs.id}`, other.owner.key)).body.comment).toEqual(theirs);
    expect((await get("/comments?limit=250", t.owner.key)).body.comments.map((c: any) => c.id)).not.toContain(theirs.id);

    // Their ids in bodies and paths; a reference names the caller's own team (both workspaces have ENG).
    for (const body of [{ taskId: ox.taskId }, { projectId: ox.projectId }, { milestoneId: ox.milestoneId }]) {
      expect((await post("/comments", { content: "intrusion", ...body }, t.owner.key)).status).toBe(404);
    }
    expect((await post(`/projects/${ox.projectId}/comments`, { content: "intrusion" }, t.owner.key)).status).toBe(404);
    for (const path of [`/tasks/${ox.taskId}/comments`, `/projects/${ox.projectId}/comments`, `/milestones/${ox.milestoneId}/comments`]) {
      expect((await get(path, t.owner.key)).status, path).toBe(404);
    }
    const foreignOnly = await targetsIn(other, "OTH");
    expect((await post("/comments", { content: "intrusion", taskId: foreignOnly.taskRef }, t.owner.key)).status).toBe(404);
    expect((await post("/comments", { content: "intrusion", projectId: foreignOnly.projectRef }, t.owner.key)).status).toBe(404);
    expect((await get(`/tasks/${foreignOnly.taskRef}/comments`, t.owner.key)).status).toBe(404);
    expect((await get(`/projects/${foreignOnly.projectRef}/comments`, t.owner.key)).status).toBe(404);

    const theirList = await get(`/tasks/${ox.taskRef}/comments`, other.owner.key);
    expect(theirList.body.comments).toEqual([
      { ...theirs, author: { id: other.owner.userId, name: other.owner.name, email: other.owner.email } },
    ]);
    expect((await get("/comments?filter[eq][content]=intrusion", other.owner.key)).body.comments).toEqual([]);
    expect((await get("/comments?filter[eq][content]=intrusion", t.owner.key)).body.comments).toEqual([]);
    // The same reference in the caller's workspace is the caller's own task.
    const own = await comment({ taskId: ox.taskRef, content: "mine" }, t.owner.key);
    expect(own.taskId).toBe(x.taskId);
  });

  it("documents every comment operation in the OpenAPI document", async () => {
    const doc = (await get("/openapi.json")).body;
    const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        "GET /comments",
        "POST /comments",
        "GET /comments/{id}",
        "PATCH /comments/{id}",
        "DELETE /comments/{id}",
        "GET /tasks/{id}/comments",
        "GET /projects/{id}/comments",
        "POST /projects/{id}/comments",
        "GET /milestones/{id}/comments",
      ]),
    );
    const taskList = doc.paths["/tasks/{id}/comments"].get.responses["200"].content["application/json"].schema;
    expect(JSON.stringify(taskList)).toContain("TaskComment");
  });

  it("requires authentication", async () => {
    expect((await get("/comments")).status).toBe(401);
    expect((await post("/comments", { content: "x", taskId: x.taskId })).status).toBe(401);
    expect((await get(`/tasks/${x.taskId}/comments`)).status).toBe(401);
  });
});
