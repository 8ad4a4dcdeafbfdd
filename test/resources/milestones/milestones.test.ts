import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { comments, fieldDefinitions, tasks, teams } from "../../../drizzle/schema";
import { newId } from "../../../src/ids";
import { api, del, expectAtomicWrite, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";
import { listOrder, walk } from "../../helpers/lists";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STATUSES = ["PLANNED", "IN_PROGRESS", "DONE"];
const KEYS = ["id", "projectId", "name", "description", "targetDate", "status", "customFields", "createdAt", "updatedAt"];
const UNKNOWN_MILESTONE = "mile_01h00000000000000000000000";

const newProject = async (tenant: Tenant, team: TeamFixture, name = "Project") => {
  const res = await post("/projects", { name, teamId: team.id }, tenant.owner.key);
  expect(res.status).toBe(201);
  return res.body.project as { id: string; reference: string };
};
const newMilestone = async (key: string, body: Record<string, unknown>) => {
  const res = await post("/milestones", body, key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.milestone;
};

/** A task inserted directly (the tasks endpoints are not under test here). */
async function insertTask(team: TeamFixture, projectId: string, milestoneId: string) {
  const id = newId("task");
  await withDb((db) =>
    db.execute(sql`
      with n as (update ${teams} set task_counter = task_counter + 1 where ${teams.id} = ${team.id} returning task_counter)
      insert into ${tasks} (id, workspace_id, team_id, number, title, project_id, milestone_id)
      select ${id}, ${team.workspaceId}, ${team.id}, n.task_counter, 'A task', ${projectId}, ${milestoneId} from n`),
  );
  return id;
}

describe("milestones", () => {
  let t: Tenant;
  let team: TeamFixture;
  let project: { id: string; reference: string };
  let member: Member;
  let viewer: Member;
  let outsider: Member;
  let admin: Member;

  beforeAll(async () => {
    t = await newTenant("Milestones Co");
    team = await newTeam(t, { prefix: "MIL" });
    [member, viewer, outsider, admin] = await Promise.all([
      addMember(t, "MEMBER"),
      addMember(t, "MEMBER"),
      addMember(t, "MEMBER"),
      addMember(t, "ADMIN"),
    ]);
    await Promise.all([
      joinTeam(team, member, "MEMBER"),
      joinTeam(team, viewer, "VIEWER"),
      withDb((db) =>
        db.insert(fieldDefinitions).values([
          { id: newId("fdef"), workspaceId: t.workspaceId, key: "budget", name: "Budget", type: "number", recordTypes: ["milestone"] },
          { id: newId("fdef"), workspaceId: t.workspaceId, key: "owner_note", name: "Note", type: "text", recordTypes: ["milestone"] },
          { id: newId("fdef"), workspaceId: t.workspaceId, key: "stage", name: "Stage", type: "text", recordTypes: ["project"] },
        ]),
      ),
    ]);
    project = await newProject(t, team);
  });

  it("creates a milestone with defaults: 201, Location, the whole shape, one transaction", async () => {
    const res = await post("/milestones", { projectId: project.id, name: " Beta " }, member.key);
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`/milestones/${res.body.milestone.id}`);
    expect(res.body).toEqual({
      milestone: {
        id: expect.stringMatching(/^mile_[0-9a-z]{26}$/),
        projectId: project.id,
        name: "Beta",
        description: "",
        targetDate: null,
        status: "PLANNED",
        customFields: {},
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    });
    expect(Object.keys(res.body.milestone)).toEqual(KEYS);
    expectAtomicWrite(res);
  });

  it("creates with every field and a project reference in any case; GET returns it in one query, with fields", async () => {
    const milestone = await newMilestone(admin.key, {
      projectId: project.reference.toLowerCase(),
      name: "GA",
      description: "General availability",
      targetDate: "2025-09-30",
      status: "IN_PROGRESS",
      customFields: { budget: 10, owner_note: "ship it" },
    });
    expect(milestone).toMatchObject({
      projectId: project.id,
      description: "General availability",
      targetDate: "2025-09-30",
      status: "IN_PROGRESS",
      customFields: { budget: 10, owner_note: "ship it" },
    });
    const read = await get(`/milestones/${milestone.id}`, outsider.key);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ milestone });
    expect(read.queries).toBe(1);
    expect((await get(`/milestones/${milestone.id}?fields=id,status`, t.owner.key)).body.milestone).toEqual({
      id: milestone.id,
      status: "IN_PROGRESS",
    });
    expect((await get(`/milestones/${milestone.id}?fields=reference`, t.owner.key)).status).toBe(400);
    expect((await get(`/milestones/${UNKNOWN_MILESTONE}`, t.owner.key)).status).toBe(404);
  });

  it("rejects bad bodies with 422 and unknown projects with 404, creating nothing", async () => {
    const empty = await newProject(t, team, "Empty");
    const ok = { projectId: empty.id, name: "Valid" };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ projectId: empty.id }, "name"],
      [{ ...ok, name: "" }, "name"],
      [{ ...ok, status: "CANCELED" }, "status"],
      [{ ...ok, targetDate: "2025-9-30" }, "targetDate"],
      [{ ...ok, targetDate: "2025-02-29" }, "targetDate"],
      [{ ...ok, startDate: "2025-01-01" }, "startDate"],
      [{ ...ok, customFields: { nope: 1 } }, "customFields.nope"],
      [{ ...ok, customFields: { stage: "project-only" } }, "customFields.stage"],
      [{ ...ok, customFields: { budget: "ten" } }, "customFields.budget"],
      [{ name: "No project" }, "projectId"],
    ];
    for (const [body, field] of cases) {
      const res = await post("/milestones", body, t.owner.key);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    for (const projectId of ["proj_01h00000000000000000000000", "MIL-P999", "NOPE-P1"]) {
      const res = await post("/milestones", { ...ok, projectId }, t.owner.key);
      expect(res.status, projectId).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await get(`/projects/${empty.id}/milestones`, t.owner.key)).body.milestones).toEqual([]);
  });

  it("updates partially: null clears targetDate, customFields merges; the project cannot change (422)", async () => {
    const created = await newMilestone(t.owner.key, {
      projectId: project.id,
      name: "RC",
      targetDate: "2025-05-01",
      customFields: { budget: 3 },
    });
    const res = await patch(`/milestones/${created.id}`, { name: "RC1", status: "DONE" }, member.key);
    expect(res.status).toBe(200);
    expectAtomicWrite(res);
    expect(res.body.milestone).toEqual({ ...created, name: "RC1", status: "DONE", updatedAt: expect.stringMatching(ISO) });
    expect(res.body.milestone.updatedAt > created.updatedAt).toBe(true);

    expect((await patch(`/milestones/${created.id}`, { targetDate: null, description: "d" }, member.key)).body.milestone).toMatchObject({
      targetDate: null,
      description: "d",
    });
    expect(
      (await patch(`/milestones/${created.id}`, { customFields: { owner_note: "n" } }, member.key)).body.milestone.customFields,
    ).toEqual({ budget: 3, owner_note: "n" });
    const dropped = await patch(`/milestones/${created.id}`, { customFields: { budget: null } }, member.key);
    expect(dropped.body.milestone.customFields).toEqual({ owner_note: "n" });
    expect((await patch(`/milestones/${created.id}`, {}, member.key)).body.milestone).toEqual(dropped.body.milestone);

    const other = await newProject(t, team, "Other");
    for (const [body, field] of [
      [{ projectId: other.id }, "projectId"],
      [{ status: "PLANNING" }, "status"],
      [{ name: "" }, "name"],
      [{ targetDate: "soon" }, "targetDate"],
      [{ customFields: { budget: "x" } }, "customFields.budget"],
    ] as const) {
      const bad = await patch(`/milestones/${created.id}`, body, member.key);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(bad.body.errors)).toContain(field);
    }
    expect((await get(`/milestones/${created.id}`, t.owner.key)).body.milestone).toEqual(dropped.body.milestone);
    expect((await patch(`/milestones/${UNKNOWN_MILESTONE}`, { name: "x" }, t.owner.key)).status).toBe(404);
  });

  it("deletes a milestone: 204, its comments go, its tasks stay in the project without it", async () => {
    const doomed = await newMilestone(t.owner.key, { projectId: project.id, name: "Doomed" });
    const taskId = await insertTask(team, project.id, doomed.id);
    const commentId = newId("cmnt");
    await withDb((db) =>
      db
        .insert(comments)
        .values({ id: commentId, workspaceId: t.workspaceId, authorId: t.owner.userId, content: "c", milestoneId: doomed.id }),
    );

    const res = await api("DELETE", `/milestones/${doomed.id}`, { key: member.key });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectAtomicWrite(res);
    expect((await get(`/milestones/${doomed.id}`, t.owner.key)).status).toBe(404);
    const after = await withDb(async (db) => ({
      task: (await db.select({ projectId: tasks.projectId, milestoneId: tasks.milestoneId }).from(tasks).where(eq(tasks.id, taskId)))[0],
      comments: await db.select().from(comments).where(eq(comments.id, commentId)),
    }));
    expect(after).toEqual({ task: { projectId: project.id, milestoneId: null }, comments: [] });
    expect((await del(`/milestones/${doomed.id}`, t.owner.key)).status).toBe(404);
  });

  it("lets team MEMBERs and workspace ADMINs write; VIEWERs and members outside the team only read (403)", async () => {
    const guarded = await newMilestone(t.owner.key, { projectId: project.id, name: "Guarded" });
    for (const who of [viewer, outsider]) {
      for (const res of [
        await post("/milestones", { projectId: project.id, name: "Nope" }, who.key),
        await patch(`/milestones/${guarded.id}`, { name: "Nope" }, who.key),
        await del(`/milestones/${guarded.id}`, who.key),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      expect((await get(`/milestones/${guarded.id}`, who.key)).status).toBe(200);
      expect((await get(`/projects/${project.id}/milestones?limit=1`, who.key)).status).toBe(200);
    }
    expect((await get(`/milestones/${guarded.id}`, t.owner.key)).body.milestone).toEqual(guarded);
    for (const who of [member, admin]) {
      const made = await newMilestone(who.key, { projectId: project.id, name: "Allowed" });
      expect((await patch(`/milestones/${made.id}`, { status: "DONE" }, who.key)).status).toBe(200);
      expect((await del(`/milestones/${made.id}`, who.key)).status).toBe(204);
    }
  });

  it("keeps workspaces apart: another workspace's projects and milestones are 404 and never changed", async () => {
    const other = await newTenant("Other Co");
    const otherTeam = await newTeam(other, { prefix: "MIL" });
    const theirProject = await newProject(other, otherTeam);
    const theirs = await newMilestone(other.owner.key, { projectId: theirProject.id, name: "Theirs" });

    expect((await post("/milestones", { projectId: theirProject.id, name: "X" }, admin.key)).status).toBe(404);
    expect((await get(`/milestones/${theirs.id}`, t.owner.key)).status).toBe(404);
    expect((await patch(`/milestones/${theirs.id}`, { name: "Hacked" }, admin.key)).status).toBe(404);
    expect((await del(`/milestones/${theirs.id}`, admin.key)).status).toBe(404);
    expect((await get(`/projects/${theirProject.id}/milestones`, t.owner.key)).status).toBe(404);
    // The same reference names each workspace's own project.
    const ours = await get(`/projects/${theirProject.reference}/milestones?limit=250`, t.owner.key);
    expect(ours.status).toBe(200);
    expect(ours.body.milestones.map((m: any) => m.projectId)).not.toContain(theirProject.id);
    const byRef = await newMilestone(t.owner.key, { projectId: theirProject.reference, name: "Ours" });
    expect(byRef.projectId).not.toBe(theirProject.id);
    expect((await get(`/milestones?filter[eq][projectId]=${theirProject.id}`, t.owner.key)).body.milestones).toEqual([]);
    expect((await get(`/milestones/${theirs.id}`, other.owner.key)).body.milestone).toEqual(theirs);
  });
});

describe("milestone lists", () => {
  let t: Tenant;
  let p1: { id: string; reference: string };
  let p2: { id: string; reference: string };
  let all: any[];
  const pad = (n: number) => String(n).padStart(2, "0");

  beforeAll(async () => {
    t = await newTenant("Milestone Lists Co");
    const team = await newTeam(t, { prefix: "LST" });
    [p1, p2] = [await newProject(t, team, "One"), await newProject(t, team, "Two")];
    // Two bursts of seven: creates sent at once may share a millisecond, and the filters on times below need a pivot
    // with milestones created strictly before it.
    const create = (i: number) =>
      newMilestone(t.owner.key, {
        projectId: i % 3 ? p1.id : p2.reference,
        name: `m${pad((i * 5) % 14)}`,
        description: i % 4 === 0 ? "has a Needle" : "",
        status: STATUSES[i % 3],
        targetDate: i % 4 === 1 ? null : `2025-0${1 + (i % 9)}-1${i % 10}`,
      });
    await Promise.all(Array.from({ length: 7 }, (_, i) => create(i)));
    await Promise.all(Array.from({ length: 7 }, (_, i) => create(i + 7)));
    all = (await get("/milestones?limit=250", t.owner.key)).body.milestones;
    expect(all).toHaveLength(14);
  });

  it("lists a project's milestones by id or reference in one query; an unknown project is 404", async () => {
    const expected = all.filter((m) => m.projectId === p1.id);
    for (const path of [p1.id, p1.reference.toLowerCase()]) {
      const res = await get(`/projects/${path}/milestones`, t.owner.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBe(1);
      expect(res.body).toEqual({ milestones: expected, pagination: { limit: 50, nextCursor: null } });
    }
    expect((await walk(`/projects/${p1.reference}/milestones?sort[name]=desc`, "milestones", t.owner.key, 2)).map((m) => m.id)).toEqual(
      [...expected].sort(listOrder([["name", "desc"]])).map((m) => m.id),
    );
    const done = await get(`/projects/${p1.id}/milestones?filter[eq][status]=DONE&fields=id,status`, t.owner.key);
    expect(done.body.milestones).toEqual(expected.filter((m) => m.status === "DONE").map(({ id, status }) => ({ id, status })));
    for (const path of ["LST-P99", "proj_01h00000000000000000000000"]) {
      const res = await get(`/projects/${path}/milestones`, t.owner.key);
      expect(res.status).toBe(404);
      expect(res.queries).toBe(2);
    }
    expect((await get(`/projects/${p1.id}/milestones?filter[eq][nope]=1`, t.owner.key)).status).toBe(400);
  });

  it("filters the workspace's milestones with every operator", async () => {
    // Created after the first burst (in list order, by creation): some milestones are older, some not.
    const pivot = all[7];
    const cases: Array<[string, (m: any) => boolean]> = [
      [`filter[eq][projectId]=${p2.id}`, (m) => m.projectId === p2.id],
      [`filter[in][id]=${all[0].id}&filter[in][id]=${all[5].id}`, (m) => m.id === all[0].id || m.id === all[5].id],
      ["filter[neq][status]=DONE", (m) => m.status !== "DONE"],
      ["filter[eq][targetDate]=null", (m) => m.targetDate === null],
      ["filter[gt][targetDate]=2025-04-01", (m) => m.targetDate !== null && m.targetDate > "2025-04-01"],
      ["filter[lte][targetDate]=2025-04-14", (m) => m.targetDate !== null && m.targetDate <= "2025-04-14"],
      [`filter[gte][createdAt]=${pivot.createdAt}`, (m) => m.createdAt >= pivot.createdAt],
      [`filter[lt][updatedAt]=${pivot.updatedAt}`, (m) => m.updatedAt < pivot.updatedAt],
      ["filter[contains][description]=needle", (m) => m.description !== ""],
      ["filter[startsWith][name]=M1", (m) => m.name.startsWith("m1")],
    ];
    for (const [query, matches] of cases) {
      const expected = all.filter(matches).map((m) => m.id);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(expected.length, query).toBeLessThan(all.length);
      const res = await get(`/milestones?limit=250&${query}`, t.owner.key);
      expect(res.status, query).toBe(200);
      expect(
        res.body.milestones.map((m: any) => m.id),
        query,
      ).toEqual(expected);
      expect(res.queries).toBe(1);
    }
    expect((await get("/milestones?sort[description]=asc", t.owner.key)).status).toBe(400);
  });

  it("walks every sort order in both directions, each row once and in order", async () => {
    const rank = { status: (m: any) => STATUSES.indexOf(m.status) };
    const walks = ["id", "projectId", "name", "status", "targetDate", "createdAt", "updatedAt"].flatMap((field) =>
      (["asc", "desc"] as const).map(async (dir) => {
        const items = await walk(`/milestones?sort[${field}]=${dir}`, "milestones", t.owner.key, 5);
        expect(
          items.map((m) => m.id),
          `${field} ${dir}`,
        ).toEqual([...all].sort(listOrder([[field, dir]], rank)).map((m) => m.id));
      }),
    );
    await Promise.all(walks);
    // Another workspace's milestones never appear.
    const other = await newTenant();
    expect((await get("/milestones", other.owner.key)).body.milestones).toEqual([]);
  });
});
