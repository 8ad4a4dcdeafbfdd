import { eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { comments, fieldDefinitions, milestones, projects, taskLabels, tasks } from "../../../drizzle/schema";
import { newId } from "../../../src/ids";
import { api, del, expectAtomicWrite, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TASK_ID = /^task_[0-9a-z]{26}$/;

async function createTask(key: string, body: Record<string, unknown>) {
  const res = await post("/tasks", body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.task;
}

/** Projects and milestones are inserted directly: this file tests tasks, not their endpoints. */
function insertProject(team: TeamFixture, number: number) {
  return withDb(async (db) => {
    const [p] = await db
      .insert(projects)
      .values({ id: newId("proj"), workspaceId: team.workspaceId, teamId: team.id, number, name: `Project ${number}` })
      .returning();
    return { id: p.id, reference: `${team.prefix}-P${number}` };
  });
}
function insertMilestone(team: TeamFixture, projectId: string) {
  return withDb(async (db) => {
    const [m] = await db
      .insert(milestones)
      .values({ id: newId("mile"), workspaceId: team.workspaceId, projectId, name: "M1" })
      .returning();
    return m.id;
  });
}

describe("tasks", () => {
  let t: Tenant;
  let team: TeamFixture;
  let other: TeamFixture;
  let member: Member;
  beforeAll(async () => {
    t = await newTenant("Tasks Co");
    team = await newTeam(t, { prefix: "ENG", name: "Engineering" });
    other = await newTeam(t, { prefix: "OPS", name: "Operations" });
    member = await addMember(t, "MEMBER");
    await joinTeam(team, member, "MEMBER");
    await withDb((db) =>
      db.insert(fieldDefinitions).values([
        { id: newId("fdef"), workspaceId: t.workspaceId, key: "points", name: "Points", type: "number", recordTypes: ["task"] },
        { id: newId("fdef"), workspaceId: t.workspaceId, key: "area", name: "Area", type: "text", recordTypes: ["task"] },
      ]),
    );
  });

  describe("create", () => {
    it("creates a task with defaults: 201, Location, the exact Task shape, one transaction", async () => {
      const fresh = await newTeam(t, { name: "Fresh" });
      const res = await post("/tasks", { title: "First", teamId: fresh.id }, t.owner.key);
      expect(res.status).toBe(201);
      // A body without links is created by one statement that also authenticates: one round trip in all.
      expect(res.queries).toBe(1);
      expect(res.transactions).toBe(0);
      const task = res.body.task;
      expect(res.headers.get("location")).toBe(`/tasks/${task.id}`);
      expect(Object.keys(res.body)).toEqual(["task"]);
      expect(task).toEqual({
        id: expect.stringMatching(TASK_ID),
        reference: `${fresh.prefix}-1`,
        title: "First",
        status: "TODO",
        statusCategory: "unstarted",
        startedAt: null,
        completedAt: null,
        canceledAt: null,
        priority: "NONE",
        description: "",
        dueDate: null,
        estimate: null,
        timeTracking: { estimateSeconds: null, remainingSeconds: null, spentSeconds: 0, totalSpentSeconds: 0 },
        teamId: fresh.id,
        team: { id: fresh.id, name: "Fresh", prefix: fresh.prefix },
        projectId: null,
        milestoneId: null,
        cycleId: null,
        parentId: null,
        assigneeId: null,
        delegateId: null,
        session: null,
        assignee: null,
        labels: [],
        customFields: {},
        blockedByCount: 0,
        subtaskCounts: { total: 0, done: 0 },
        claim: null,
        createdAt: expect.stringMatching(ISO),
        updatedAt: task.createdAt,
      });
      expect(Object.keys(task)).toEqual([
        "id",
        "reference",
        "title",
        "status",
        "statusCategory",
        "startedAt",
        "completedAt",
        "canceledAt",
        "priority",
        "description",
        "dueDate",
        "estimate",
        "timeTracking",
        "teamId",
        "team",
        "projectId",
        "milestoneId",
        "cycleId",
        "parentId",
        "assigneeId",
        "delegateId",
        "session",
        "assignee",
        "labels",
        "customFields",
        "blockedByCount",
        "subtaskCounts",
        "claim",
        "createdAt",
        "updatedAt",
      ]);
      expect((await get(`/tasks/${task.id}`, member.key)).body.task).toEqual(task);
    });

    it("creates a task with every field, resolving project and parent by reference", async () => {
      const project = await insertProject(team, 1);
      const milestoneId = await insertMilestone(team, project.id);
      const parent = await createTask(member.key, { title: "Parent", teamId: team.id });
      const b = (await post("/labels", { name: "Backend", color: "#00ff00" }, t.owner.key)).body.label;
      const a = (await post("/labels", { name: "API", color: "#0000ff" }, t.owner.key)).body.label;
      const res = await post(
        "/tasks",
        {
          title: "  Full  ",
          teamId: team.id,
          projectId: project.reference.toLowerCase(),
          milestoneId,
          parentId: parent.reference.toLowerCase(),
          status: "IN_PROGRESS",
          priority: "HIGH",
          description: "# Hello\n\nMarkdown",
          dueDate: "2026-02-28",
          assigneeId: member.userId,
          labelIds: [b.id, a.id, b.id],
          customFields: { points: 3, area: "api" },
        },
        member.key,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expectAtomicWrite(res);
      expect(res.body.task).toMatchObject({
        title: "Full",
        projectId: project.id,
        milestoneId,
        parentId: parent.id,
        status: "IN_PROGRESS",
        priority: "HIGH",
        description: "# Hello\n\nMarkdown",
        dueDate: "2026-02-28",
        assigneeId: member.userId,
        assignee: { id: member.userId, name: member.name, email: member.email, avatarUrl: null, humanId: null },
        labels: [
          { id: a.id, name: "API", color: "#0000FF" },
          { id: b.id, name: "Backend", color: "#00FF00" },
        ],
        customFields: { points: 3, area: "api" },
      });
      expect(Object.keys(res.body.task.assignee)).toEqual(["id", "name", "email", "avatarUrl", "humanId"]);
    });

    it("numbers tasks per team from the team's counter and never reuses a number after a delete", async () => {
      const fresh = await newTeam(t);
      const one = await createTask(t.owner.key, { title: "1", teamId: fresh.id });
      const two = await createTask(t.owner.key, { title: "2", teamId: fresh.id });
      const elsewhere = await createTask(t.owner.key, { title: "x", teamId: other.id });
      expect([one.reference, two.reference]).toEqual([`${fresh.prefix}-1`, `${fresh.prefix}-2`]);
      expect(elsewhere.reference).toMatch(/^OPS-\d+$/);
      expect((await del(`/tasks/${two.id}`, t.owner.key)).status).toBe(204);
      expect((await createTask(t.owner.key, { title: "3", teamId: fresh.id })).reference).toBe(`${fresh.prefix}-3`);
    });

    it("gives 25 parallel creates on one team 25 distinct consecutive numbers", async () => {
      const fresh = await newTeam(t);
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, i) => post("/tasks", { title: `P${i}`, teamId: fresh.id }, t.owner.key)),
      );
      expect(results.map((r) => r.status)).toEqual(Array(25).fill(201));
      const numbers = results.map((r) => Number(r.body.task.reference.split("-")[1])).sort((x, y) => x - y);
      expect(numbers).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    });

    it("answers 400 BAD_REQUEST when teamId is missing or null", async () => {
      for (const body of [{ title: "No team" }, { title: "No team", teamId: null }, { title: "x".repeat(600) }]) {
        const res = await post("/tasks", body, member.key);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe("BAD_REQUEST");
        expect(res.body.error.message).toMatch(/teamId/);
      }
    });

    it.each([
      ["an unknown status", { status: "OPEN" }, "status"],
      ["an unknown priority", { priority: "CRITICAL" }, "priority"],
      ["a date that does not exist", { dueDate: "2026-02-30" }, "dueDate"],
      ["a date-time instead of a date", { dueDate: "2026-02-01T00:00:00Z" }, "dueDate"],
      ["a title over 500 characters", { title: "x".repeat(501) }, "title"],
      ["an empty title", { title: "   " }, "title"],
      ["a missing title", { title: undefined }, "title"],
      ["an unknown body field", { colour: "red" }, "colour"],
      ["labelIds that is not an array", { labelIds: "label_x" }, "labelIds"],
      ["customFields that is not an object", { customFields: [1] }, "customFields"],
      ["an unknown custom field", { customFields: { nope: 1 } }, "customFields.nope"],
      ["a custom field of the wrong type", { customFields: { points: "three" } }, "customFields.points"],
    ])("rejects %s with 422 at the field", async (_, extra, field) => {
      const res = await post("/tasks", { title: "Valid", teamId: team.id, ...extra }, member.key);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(Object.keys(res.body.errors)).toContain(field);
    });

    it("accepts a title of exactly 500 characters", async () => {
      expect((await createTask(member.key, { title: "x".repeat(500), teamId: team.id })).title).toHaveLength(500);
    });

    it("requires projects and parents of the same team and milestones of the task's project (422)", async () => {
      const opsProject = await insertProject(other, 1);
      const engProject = await insertProject(team, 2);
      const opsMilestone = await insertMilestone(other, opsProject.id);
      const opsTask = await createTask(t.owner.key, { title: "ops", teamId: other.id });
      const cases: [Record<string, unknown>, string][] = [
        [{ projectId: opsProject.id }, "projectId"],
        [{ projectId: opsProject.reference }, "projectId"],
        [{ parentId: opsTask.id }, "parentId"],
        [{ parentId: opsTask.reference }, "parentId"],
        [{ projectId: engProject.id, milestoneId: opsMilestone }, "milestoneId"],
        [{ milestoneId: opsMilestone }, "milestoneId"],
      ];
      for (const [extra, field] of cases) {
        const res = await post("/tasks", { title: "Mismatch", teamId: team.id, ...extra }, t.owner.key);
        expect(res.status, JSON.stringify(extra)).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual([field]);
      }
    });

    it("answers 404 for unknown team, project, milestone, parent, assignee and labels", async () => {
      const cases: Record<string, unknown>[] = [
        { teamId: "team_01jz8x4q0be0sv3c5kq9v1y2ab" },
        { projectId: "ENG-P999" },
        { projectId: "proj_01jz8x4q0be0sv3c5kq9v1y2ab" },
        { parentId: "ENG-99999" },
        { milestoneId: "mile_01jz8x4q0be0sv3c5kq9v1y2ab" },
        { assigneeId: "user_01jz8x4q0be0sv3c5kq9v1y2ab" },
        { labelIds: ["label_01jz8x4q0be0sv3c5kq9v1y2ab"] },
      ];
      for (const extra of cases) {
        const res = await post("/tasks", { title: "Missing", teamId: team.id, ...extra }, t.owner.key);
        expect(res.status, JSON.stringify(extra)).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
      }
    });
  });

  describe("read", () => {
    it("gets a task by id or by reference in any case, in at most 2 queries", async () => {
      const task = await createTask(member.key, { title: "Read me", teamId: team.id });
      const lower = task.reference.toLowerCase();
      for (const path of [`/tasks/${task.id}`, `/tasks/${task.reference}`, `/tasks/${lower}`]) {
        const res = await get(path, member.key);
        expect(res.status).toBe(200);
        expect(res.body.task).toEqual(task);
        expect(res.queries).toBeLessThanOrEqual(2);
      }
    });

    it("selects fields, nested ones too", async () => {
      const task = await createTask(member.key, { title: "Fields", teamId: team.id, assigneeId: member.userId });
      const res = await get(`/tasks/${task.reference}?fields=id,title,team{prefix}`, member.key);
      expect(res.body.task).toEqual({ id: task.id, title: "Fields", team: { prefix: "ENG" } });
      const nested = await get(`/tasks/${task.id}?fields=assignee{name},labels{name},reference`, member.key);
      expect(nested.body.task).toEqual({ reference: task.reference, assignee: { name: member.name }, labels: [] });
      expect((await get(`/tasks/${task.id}?fields=id,nope`, member.key)).status).toBe(400);
      expect((await get(`/tasks/${task.id}?fields=title{x}`, member.key)).status).toBe(400);
    });

    it("is 404 for an unknown id or reference", async () => {
      for (const path of ["/tasks/task_01jz8x4q0be0sv3c5kq9v1y2ab", "/tasks/ENG-424242", "/tasks/NOPE-1", "/tasks/garbage"]) {
        const res = await get(path, member.key);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
      }
    });
  });

  describe("update", () => {
    it("updates some fields and leaves the rest, in one transaction", async () => {
      const task = await createTask(member.key, {
        title: "Before",
        teamId: team.id,
        description: "keep",
        priority: "LOW",
        dueDate: "2026-01-01",
      });
      const res = await patch(`/tasks/${task.reference}`, { title: "After", status: "DONE" }, member.key);
      expect(res.status).toBe(200);
      expectAtomicWrite(res);
      expect(res.body.task).toEqual({
        ...task,
        title: "After",
        status: "DONE",
        statusCategory: "completed",
        completedAt: res.body.task.updatedAt,
        updatedAt: expect.stringMatching(ISO),
      });
      expect(res.body.task.updatedAt > task.updatedAt).toBe(true);
      expect((await get(`/tasks/${task.id}`, member.key)).body.task).toEqual(res.body.task);
    });

    it("clears nullable fields with null, replaces labels and merges custom fields", async () => {
      const project = await insertProject(team, 3);
      const milestoneId = await insertMilestone(team, project.id);
      const parent = await createTask(member.key, { title: "P", teamId: team.id });
      const l1 = (await post("/labels", { name: "One", color: "#111111" }, t.owner.key)).body.label;
      const l2 = (await post("/labels", { name: "Two", color: "#222222" }, t.owner.key)).body.label;
      const task = await createTask(member.key, {
        title: "Full",
        teamId: team.id,
        projectId: project.id,
        milestoneId,
        parentId: parent.id,
        assigneeId: member.userId,
        dueDate: "2026-05-01",
        labelIds: [l1.id],
        customFields: { points: 1, area: "web" },
      });
      const res = await patch(
        `/tasks/${task.id}`,
        { parentId: null, assigneeId: null, dueDate: null, labelIds: [l2.id], customFields: { points: 5, area: null } },
        member.key,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.task).toMatchObject({
        projectId: project.id,
        milestoneId,
        parentId: null,
        assigneeId: null,
        assignee: null,
        dueDate: null,
        labels: [{ id: l2.id, name: "Two", color: "#222222" }],
        customFields: { points: 5 },
      });
      const cleared = await patch(`/tasks/${task.id}`, { labelIds: [], projectId: null }, member.key);
      expect(cleared.body.task).toMatchObject({ labels: [], projectId: null, milestoneId: null });
    });

    it("drops the milestone when the project changes, and checks a new milestone against the project", async () => {
      const p1 = await insertProject(team, 4);
      const p2 = await insertProject(team, 5);
      const m1 = await insertMilestone(team, p1.id);
      const m2 = await insertMilestone(team, p2.id);
      const task = await createTask(member.key, { title: "Moves", teamId: team.id, projectId: p1.id, milestoneId: m1 });
      const moved = await patch(`/tasks/${task.id}`, { projectId: p2.reference }, member.key);
      expect(moved.body.task).toMatchObject({ projectId: p2.id, milestoneId: null });
      expect((await patch(`/tasks/${task.id}`, { milestoneId: m1 }, member.key)).status).toBe(422);
      expect((await patch(`/tasks/${task.id}`, { milestoneId: m2 }, member.key)).body.task.milestoneId).toBe(m2);
      expect((await patch(`/tasks/${task.id}`, { projectId: null, milestoneId: m2 }, member.key)).status).toBe(422);
      expect((await get(`/tasks/${task.id}`, member.key)).body.task).toMatchObject({ projectId: p2.id, milestoneId: m2 });
    });

    it("rejects teamId, unknown fields and bad values with 422 and changes nothing", async () => {
      const task = await createTask(member.key, { title: "Stable", teamId: team.id });
      for (const body of [
        { teamId: other.id },
        { titel: "typo" },
        { status: "WAITING" },
        { dueDate: "2026-13-01" },
        { title: "" },
        { title: null },
      ]) {
        const res = await patch(`/tasks/${task.id}`, body, member.key);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.errors).toBeDefined();
      }
      expect((await get(`/tasks/${task.id}`, member.key)).body.task).toEqual(task);
    });

    it("returns the task unchanged for an empty body", async () => {
      const task = await createTask(member.key, { title: "Empty patch", teamId: team.id });
      const res = await patch(`/tasks/${task.id}`, {}, member.key);
      expect(res.status).toBe(200);
      expect(res.body.task).toEqual(task);
    });
  });

  describe("subtasks", () => {
    it("nests tasks and rejects any parent that would make a cycle (422)", async () => {
      const a = await createTask(member.key, { title: "A", teamId: team.id });
      const b = await createTask(member.key, { title: "B", teamId: team.id, parentId: a.reference });
      const c = await createTask(member.key, { title: "C", teamId: team.id, parentId: b.id });
      expect([b.parentId, c.parentId]).toEqual([a.id, b.id]);
      for (const parentId of [a.id, a.reference, b.id, c.reference]) {
        const res = await patch(`/tasks/${a.id}`, { parentId }, member.key);
        expect(res.status, parentId).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual(["parentId"]);
      }
      expect((await get(`/tasks/${a.id}`, member.key)).body.task.parentId).toBeNull();
      // Moving a leaf under an ancestor's sibling, or up to the top, is fine.
      const d = await createTask(member.key, { title: "D", teamId: team.id });
      expect((await patch(`/tasks/${c.id}`, { parentId: d.id }, member.key)).body.task.parentId).toBe(d.id);
      expect((await patch(`/tasks/${d.id}`, { parentId: a.id }, member.key)).body.task.parentId).toBe(a.id);
      expect((await patch(`/tasks/${d.id}`, { parentId: null }, member.key)).body.task.parentId).toBeNull();
    });

    it("never lets two concurrent re-parentings build a cycle (X under Y while Y goes under X), 6 pairs at once", async () => {
      // The pairs race each other too: 12 moves in flight in one team's tree.
      const pairs = await Promise.all(
        Array.from({ length: 6 }, async (_, i) => [
          await createTask(member.key, { title: `X${i}`, teamId: team.id }),
          await createTask(member.key, { title: `Y${i}`, teamId: team.id }),
        ]),
      );
      const answers = await Promise.all(
        pairs.map(([x, y]) =>
          Promise.all([
            patch(`/tasks/${x.reference}`, { parentId: y.id }, member.key),
            patch(`/tasks/${y.reference}`, { parentId: x.id }, t.owner.key),
          ]),
        ),
      );
      for (const [i, [x, y]] of pairs.entries()) {
        expect(answers[i].map((a) => a.status).sort(), `pair ${i}`).toEqual([200, 422]);
        const [xAfter, yAfter] = await Promise.all([get(`/tasks/${x.id}`, member.key), get(`/tasks/${y.id}`, member.key)]);
        expect([xAfter.body.task.parentId, yAfter.body.task.parentId].filter(Boolean), `pair ${i}`).toHaveLength(1);
      }
    });

    it("reads a subtask tree in bounded work even if a cycle were stored (export answers at once, not after the statement timeout)", async () => {
      const x = await createTask(member.key, { title: "Loop X", teamId: team.id });
      const y = await createTask(member.key, { title: "Loop Y", teamId: team.id, parentId: x.id });
      // A cycle no request can build, written under the API's feet.
      await withDb((db) => db.update(tasks).set({ parentId: y.id }).where(eq(tasks.id, x.id)));
      try {
        // A walk that followed the loop would end in the statement timeout, a 503; this one reads each task once.
        const res = await get(`/tasks/${x.reference}/export`, member.key);
        expect(res.status).toBe(200);
        expect(res.body.data.tasks.map((task: { title: string }) => task.title).sort()).toEqual(["Loop X", "Loop Y"]);
        // The cycle check of a move walks it in bounded work too.
        const z = await createTask(member.key, { title: "Loop Z", teamId: team.id });
        expect((await patch(`/tasks/${z.id}`, { parentId: x.id }, member.key)).status).toBe(200);
      } finally {
        await withDb((db) => db.update(tasks).set({ parentId: null }).where(eq(tasks.id, x.id)));
      }
    });

    it("deletes a task with its subtasks (recursively), their comments and label links, in one transaction", async () => {
      const label = (await post("/labels", { name: "Doomed", color: "#333333" }, t.owner.key)).body.label;
      const root = await createTask(member.key, { title: "Root", teamId: team.id, labelIds: [label.id] });
      const child = await createTask(member.key, { title: "Child", teamId: team.id, parentId: root.id, labelIds: [label.id] });
      const grandchild = await createTask(member.key, { title: "Grandchild", teamId: team.id, parentId: child.id });
      const bystander = await createTask(member.key, { title: "Bystander", teamId: team.id });
      const ids = [root.id, child.id, grandchild.id];
      await withDb((db) =>
        db.insert(comments).values(
          [...ids, bystander.id].map((taskId) => ({
            id: newId("cmnt"),
            workspaceId: t.workspaceId,
            authorId: member.userId,
            content: "hi",
            taskId,
          })),
        ),
      );
      const res = await del(`/tasks/${root.reference}`, member.key);
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expectAtomicWrite(res);
      for (const id of ids) expect((await get(`/tasks/${id}`, member.key)).status).toBe(404);
      expect((await get(`/tasks/${bystander.id}`, member.key)).status).toBe(200);
      const left = await withDb(async (db) => ({
        comments: await db
          .select({ taskId: comments.taskId })
          .from(comments)
          .where(inArray(comments.taskId, [...ids, bystander.id])),
        links: await db.select().from(taskLabels).where(inArray(taskLabels.taskId, ids)),
      }));
      expect(left.comments).toEqual([{ taskId: bystander.id }]);
      expect(left.links).toEqual([]);
      expect((await del(`/tasks/${root.id}`, member.key)).status).toBe(404);
    });
  });

  describe("permissions", () => {
    let viewer: Member;
    let outsider: Member;
    let admin: Member;
    let task: any;
    beforeAll(async () => {
      viewer = await addMember(t, "MEMBER");
      await joinTeam(team, viewer, "VIEWER");
      outsider = await addMember(t, "MEMBER");
      admin = await addMember(t, "ADMIN");
      task = await createTask(member.key, { title: "Guarded", teamId: team.id });
    });

    it("lets a team VIEWER and a workspace member outside the team read but not write (403)", async () => {
      for (const who of [viewer, outsider]) {
        expect((await get(`/tasks/${task.id}`, who.key)).status).toBe(200);
        expect((await get(`/tasks?filter[eq][id]=${task.id}`, who.key)).body.tasks).toHaveLength(1);
        for (const res of [
          await post("/tasks", { title: "Nope", teamId: team.id }, who.key),
          await patch(`/tasks/${task.id}`, { title: "Nope" }, who.key),
          await del(`/tasks/${task.id}`, who.key),
        ]) {
          expect(res.status).toBe(403);
          expect(res.body.error.code).toBe("FORBIDDEN");
        }
      }
      expect((await get(`/tasks/${task.id}`, member.key)).body.task.title).toBe("Guarded");
    });

    it("lets a workspace ADMIN outside the team do everything", async () => {
      const mine = await createTask(admin.key, { title: "By admin", teamId: team.id });
      expect((await patch(`/tasks/${task.id}`, { priority: "URGENT" }, admin.key)).body.task.priority).toBe("URGENT");
      expect((await del(`/tasks/${mine.id}`, admin.key)).status).toBe(204);
    });

    it("needs credentials (401)", async () => {
      expect((await api("GET", `/tasks/${task.id}`)).status).toBe(401);
      expect((await api("POST", "/tasks", { body: { title: "x", teamId: team.id } })).status).toBe(401);
    });
  });

  describe("tenancy", () => {
    let foreign: Tenant;
    let foreignTeam: TeamFixture;
    let foreignTask: any;
    beforeAll(async () => {
      foreign = await newTenant("Other Co");
      // The same prefix as ours: references must resolve within the caller's workspace only.
      foreignTeam = await newTeam(foreign, { prefix: "ENG" });
      foreignTask = await createTask(foreign.owner.key, { title: "Theirs", teamId: foreignTeam.id });
    });

    it("resolves a reference within the caller's workspace only", async () => {
      const ours = await get("/tasks/ENG-1", t.owner.key);
      expect(ours.status).toBe(200);
      expect(ours.body.task.teamId).toBe(team.id);
      const theirs = await get("/tasks/eng-1", foreign.owner.key);
      expect(theirs.body.task.id).toBe(foreignTask.id);
    });

    it("answers 404 for another workspace's task in the path and changes nothing", async () => {
      expect((await get(`/tasks/${foreignTask.id}`, t.owner.key)).status).toBe(404);
      expect((await patch(`/tasks/${foreignTask.id}`, { title: "Hacked" }, t.owner.key)).status).toBe(404);
      expect((await del(`/tasks/${foreignTask.id}`, t.owner.key)).status).toBe(404);
      expect((await get(`/tasks?filter[eq][id]=${foreignTask.id}`, t.owner.key)).body.tasks).toEqual([]);
      expect((await get(`/tasks/${foreignTask.id}`, foreign.owner.key)).body.task).toEqual(foreignTask);
    });

    it("answers 404 for another workspace's team, project, milestone, parent, assignee or labels in a body", async () => {
      const project = await insertProject(foreignTeam, 1);
      const milestoneId = await insertMilestone(foreignTeam, project.id);
      const label = (await post("/labels", { name: "Foreign", color: "#444444" }, foreign.owner.key)).body.label;
      const mine = await createTask(t.owner.key, { title: "Mine", teamId: team.id });
      const cases: Record<string, unknown>[] = [
        { teamId: foreignTeam.id },
        { projectId: project.id },
        { milestoneId },
        { parentId: foreignTask.id },
        { assigneeId: foreign.owner.userId },
        { labelIds: [label.id] },
      ];
      const count = () => withDb((db) => db.$count(tasks, eq(tasks.workspaceId, t.workspaceId)));
      const before = await count();
      for (const extra of cases) {
        const created = await post("/tasks", { title: "Smuggle", teamId: team.id, ...extra }, t.owner.key);
        expect(created.status, JSON.stringify(extra)).toBe(404);
        if ("teamId" in extra) continue;
        const updated = await patch(`/tasks/${mine.id}`, extra, t.owner.key);
        expect(updated.status, JSON.stringify(extra)).toBe(404);
      }
      expect(await count()).toBe(before);
      expect((await get(`/tasks/${mine.id}`, t.owner.key)).body.task).toEqual(mine);
      // A rejected create consumed no number.
      const next = await createTask(t.owner.key, { title: "Next", teamId: team.id });
      expect(Number(next.reference.split("-")[1])).toBe(Number(mine.reference.split("-")[1]) + 1);
    });
  });
});

describe("single-statement create", () => {
  it("writes nothing and burns no number when the caller may not write or a label is foreign", async () => {
    const { newTenant, newTeam, addMember, joinTeam } = await import("../../helpers/fixtures");
    const t = await newTenant("Atomic create");
    const team = await newTeam(t, { prefix: "ATM" });
    const viewer = await addMember(t, "MEMBER");
    await joinTeam(team, viewer, "VIEWER");
    const outsider = await addMember(t, "MEMBER");
    const other = await newTenant("Other");
    const foreignLabel = (await post("/labels", { name: "x", color: "#000000" }, other.owner.key)).body.label;
    const ownLabel = (await post("/labels", { name: "own", color: "#00FF00" }, t.owner.key)).body.label;

    expect((await post("/tasks", { title: "v", teamId: team.id }, viewer.key)).status).toBe(403);
    expect((await post("/tasks", { title: "o", teamId: team.id }, outsider.key)).status).toBe(403);
    const foreign = await post("/tasks", { title: "f", teamId: team.id, labelIds: [ownLabel.id, foreignLabel.id] }, t.owner.key);
    expect(foreign.status).toBe(404);
    expect((await post("/tasks", { title: "g", teamId: other.owner.userId }, t.owner.key)).status).toBe(404);

    const ok = await post("/tasks", { title: "first real", teamId: team.id, labelIds: [ownLabel.id] }, t.owner.key);
    expect(ok.status).toBe(201);
    expect(ok.body.task.reference).toBe("ATM-1");
    expect(ok.body.task.labels).toEqual([{ id: ownLabel.id, name: "own", color: "#00FF00" }]);
    expect(ok.queries).toBe(1);
    const badKey = await post("/tasks", { title: "k", teamId: team.id }, "pmk_not-a-key-0000000000000000000000000000000");
    expect(badKey.status).toBe(401);
    const list = await get(`/tasks?filter[eq][teamId]=${team.id}`, t.owner.key);
    expect(list.body.tasks.map((x: any) => x.title)).toEqual(["first real"]);
    expect((await get(`/tasks/${ok.body.task.id}`, t.owner.key)).body.task).toEqual(ok.body.task);
  });
});

// What a write of a task without a link costs (docs/performance.md, "Writes and search"): a link's index holds only the
// tasks that have it, and what reads by the link (a subtask count, a foreign key's action) still finds them through it.
describe("link indexes", () => {
  it("hold only the tasks that have the link, and serve the lookups by it", async () => {
    const { rows } = await withDb((db) =>
      db.execute<{ indexname: string; indexdef: string }>(sql`select indexname, indexdef from pg_indexes
        where tablename = 'tasks' and indexname in ('tasks_project_idx', 'tasks_milestone_idx', 'tasks_parent_idx',
          'tasks_assignee_idx', 'tasks_delegate_idx', 'tasks_cycle_idx', 'tasks_claim_holder_idx') order by indexname`),
    );
    expect(rows).toHaveLength(7);
    for (const { indexname, indexdef } of rows) expect(indexdef, indexname).toMatch(/\((\w+)\) WHERE \(\1 IS NOT NULL\)$/);
    // A foreign key's action is a generic plan on the link's value: it still walks the index.
    const plan = await withDb(async (db) => {
      await db.execute(sql`prepare link_lookup(text) as select count(*) from tasks where $1 = parent_id`);
      try {
        await db.execute(sql`set plan_cache_mode = force_generic_plan`);
        return (await db.execute<{ "QUERY PLAN": string }>(sql`explain execute link_lookup('task_x')`)).rows.map((r) => r["QUERY PLAN"]);
      } finally {
        await db.execute(sql`deallocate link_lookup`);
        await db.execute(sql`reset plan_cache_mode`);
      }
    });
    expect(plan.join("\n")).toContain("tasks_parent_idx");
  });
});
