import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { comments, fieldDefinitions, milestones, projects, tasks, teams } from "../drizzle/schema";
import { newId } from "../src/ids";
import { api, del, expectAtomicWrite, get, patch, post } from "./helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "./helpers/fixtures";
import { listOrder, walk } from "./helpers/lists";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STATUSES = ["PLANNING", "ACTIVE", "PAUSED", "COMPLETED", "CANCELED"];
const KEYS = [
  "id",
  "reference",
  "name",
  "status",
  "description",
  "teamId",
  "team",
  "labels",
  "leadId",
  "lead",
  "startDate",
  "targetDate",
  "customFields",
  "createdAt",
  "updatedAt",
];
const numberOf = (p: { reference: string }) => Number(p.reference.split("-P")[1]);

/** A task inserted directly (the tasks endpoints are not under test here), numbered from the team's task counter. */
async function insertTask(team: TeamFixture, links: { projectId?: string; milestoneId?: string } = {}) {
  const id = newId("task");
  const [row] = await withDb(
    async (db) =>
      (
        await db.execute<{ number: number }>(sql`
        with n as (update ${teams} set task_counter = task_counter + 1 where ${teams.id} = ${team.id} returning task_counter)
        insert into ${tasks} (id, workspace_id, team_id, number, title, project_id, milestone_id)
        select ${id}, ${team.workspaceId}, ${team.id}, n.task_counter, 'A task', ${links.projectId ?? null}, ${links.milestoneId ?? null} from n
        returning number`)
      ).rows,
  );
  return { id, number: row.number };
}

const taskRow = (id: string) => withDb(async (db) => (await db.select().from(tasks).where(eq(tasks.id, id)))[0]);
const teamCounters = (teamId: string) =>
  withDb(
    async (db) => (await db.select({ task: teams.taskCounter, project: teams.projectCounter }).from(teams).where(eq(teams.id, teamId)))[0],
  );

function defineFields(tenant: Tenant) {
  return withDb((db) =>
    db.insert(fieldDefinitions).values([
      {
        id: newId("fdef"),
        workspaceId: tenant.workspaceId,
        key: "budget",
        name: "Budget",
        type: "number",
        recordTypes: ["project", "milestone"],
      },
      { id: newId("fdef"), workspaceId: tenant.workspaceId, key: "stage", name: "Stage", type: "text", recordTypes: ["project"] },
      { id: newId("fdef"), workspaceId: tenant.workspaceId, key: "kickoff", name: "Kickoff", type: "date", recordTypes: ["project"] },
    ]),
  );
}

const label = async (tenant: Tenant, name: string) => (await post("/labels", { name, color: "#00AA00" }, tenant.owner.key)).body.label;

describe("projects", () => {
  let t: Tenant;
  let team: TeamFixture;
  let member: Member;
  let viewer: Member;
  let outsider: Member;
  let admin: Member;
  let bug: { id: string; name: string; color: string };
  let api1: { id: string; name: string; color: string };

  beforeAll(async () => {
    t = await newTenant("Projects Co");
    team = await newTeam(t, { prefix: "ENG", name: "Engineering" });
    [member, viewer, outsider, admin] = await Promise.all([
      addMember(t, "MEMBER"),
      addMember(t, "MEMBER"),
      addMember(t, "MEMBER"),
      addMember(t, "ADMIN"),
    ]);
    await Promise.all([joinTeam(team, member, "MEMBER"), joinTeam(team, viewer, "VIEWER"), defineFields(t)]);
    bug = await label(t, "bug");
    api1 = await label(t, "api");
  });

  it("creates a project with defaults: 201, Location, reference, the whole shape, one transaction", async () => {
    const fresh = await newTeam(t, { name: "Fresh" });
    const res = await post("/projects", { name: "  Launch  ", teamId: fresh.id }, t.owner.key);
    expect(res.status).toBe(201);
    expect(res.headers.get("location")).toBe(`/projects/${res.body.project.id}`);
    expect(res.body).toEqual({
      project: {
        id: expect.stringMatching(/^proj_[0-9a-z]{26}$/),
        reference: `${fresh.prefix}-P1`,
        name: "Launch",
        status: "PLANNING",
        description: "",
        teamId: fresh.id,
        team: { id: fresh.id, name: "Fresh", prefix: fresh.prefix },
        labels: [],
        leadId: null,
        lead: null,
        startDate: null,
        targetDate: null,
        customFields: {},
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      },
    });
    expect(Object.keys(res.body.project)).toEqual(KEYS);
    expectAtomicWrite(res);
  });

  it("creates a project with every optional field, and GET returns the same object in one query", async () => {
    const res = await post(
      "/projects",
      {
        name: "Platform",
        teamId: team.id,
        status: "ACTIVE",
        description: "The **platform** work",
        leadId: member.userId,
        startDate: "2025-01-15",
        targetDate: "2025-03-31",
        labelIds: [bug.id, api1.id, bug.id],
        customFields: { budget: 1200, stage: "alpha", kickoff: "2024-02-29" },
      },
      member.key,
    );
    expect(res.status).toBe(201);
    const project = res.body.project;
    expect(project).toMatchObject({
      status: "ACTIVE",
      description: "The **platform** work",
      leadId: member.userId,
      lead: { id: member.userId, name: member.name, email: member.email, avatarUrl: null, humanId: null },
      startDate: "2025-01-15",
      targetDate: "2025-03-31",
      // Sorted by name, duplicates dropped.
      labels: [api1, bug].map(({ id, name, color }) => ({ id, name, color })),
      customFields: { budget: 1200, stage: "alpha", kickoff: "2024-02-29" },
    });
    expectAtomicWrite(res);
    const read = await get(`/projects/${project.id}`, outsider.key);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ project });
    expect(read.queries).toBe(1);
    expect(read.headers.get("etag")).toMatch(/^W\//);
  });

  it("numbers projects per team from 1, separately from tasks (ENG-1 and ENG-P1 together)", async () => {
    const fresh = await newTeam(t);
    const task = await insertTask(fresh);
    expect(task.number).toBe(1);
    const first = await post("/projects", { name: "One", teamId: fresh.id }, t.owner.key);
    const second = await post("/projects", { name: "Two", teamId: fresh.id }, t.owner.key);
    expect([first.body.project.reference, second.body.project.reference]).toEqual([`${fresh.prefix}-P1`, `${fresh.prefix}-P2`]);
    expect(await teamCounters(fresh.id)).toEqual({ task: 1, project: 2 });
    expect((await insertTask(fresh)).number).toBe(2);
    const other = await newTeam(t);
    expect((await post("/projects", { name: "Elsewhere", teamId: other.id }, t.owner.key)).body.project.reference).toBe(
      `${other.prefix}-P1`,
    );
  });

  it("gives 25 parallel creates distinct consecutive numbers", async () => {
    const fresh = await newTeam(t);
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => post("/projects", { name: `Parallel ${i}`, teamId: fresh.id }, t.owner.key)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(25).fill(201));
    const numbers = results.map((r) => numberOf(r.body.project)).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect((await teamCounters(fresh.id)).project).toBe(25);
  });

  it("finds a project by id or by reference in any case; unknown ids and references are 404", async () => {
    const { project } = (await post("/projects", { name: "Lookup", teamId: team.id }, t.owner.key)).body;
    for (const path of [project.id, project.reference, project.reference.toLowerCase(), `eNg-p${numberOf(project)}`]) {
      const res = await get(`/projects/${path}`, viewer.key);
      expect(res.status, path).toBe(200);
      expect(res.body.project.id).toBe(project.id);
      expect(res.queries).toBe(1);
    }
    for (const path of ["ENG-P9999", "NOPE-P1", "proj_01h00000000000000000000000", `ENG-${numberOf(project)}`]) {
      const res = await get(`/projects/${path}`, t.owner.key);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
  });

  it("selects fields on GET, nested ones too; unknown fields are 400", async () => {
    const { project } = (
      await post("/projects", { name: "Fields", teamId: team.id, labelIds: [bug.id], leadId: t.owner.userId }, t.owner.key)
    ).body;
    const res = await get(`/projects/${project.reference}?fields=id,reference,team{prefix},labels{name},lead{email}`, t.owner.key);
    expect(res.body.project).toEqual({
      id: project.id,
      reference: project.reference,
      team: { prefix: "ENG" },
      labels: [{ name: "bug" }],
      lead: { email: t.owner.email },
    });
    expect((await get(`/projects/${project.id}?fields=id,nope`, t.owner.key)).status).toBe(400);
    expect((await get(`/projects/${project.id}?fields=team{nope}`, t.owner.key)).status).toBe(400);
  });

  it("rejects bad bodies with 422, a missing teamId with 400, unknown references with 404, and writes nothing", async () => {
    const fresh = await newTeam(t);
    const ok = { name: "Valid", teamId: fresh.id };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, name: "" }, "name"],
      [{ ...ok, name: "   " }, "name"],
      [{ ...ok, name: "x".repeat(201) }, "name"],
      [{ ...ok, status: "DONE" }, "status"],
      [{ ...ok, status: "active" }, "status"],
      [{ ...ok, startDate: "2025-02-30" }, "startDate"],
      [{ ...ok, targetDate: "tomorrow" }, "targetDate"],
      [{ ...ok, startDate: "2025-05-01", targetDate: "2025-04-30" }, "targetDate"],
      [{ ...ok, description: null }, "description"],
      [{ ...ok, labelIds: "bug" }, "labelIds"],
      [{ ...ok, colour: "red" }, "colour"],
      [{ ...ok, number: 7 }, "number"],
      [{ ...ok, customFields: { nope: 1 } }, "customFields.nope"],
      [{ ...ok, customFields: { budget: "lots" } }, "customFields.budget"],
      // A custom date field takes real calendar days only (the same rule as startDate).
      [{ ...ok, customFields: { kickoff: "2024-02-31" } }, "customFields.kickoff"],
      [{ ...ok, customFields: { kickoff: "2024-2-1" } }, "customFields.kickoff"],
    ];
    for (const [body, field] of cases) {
      const res = await post("/projects", body, t.owner.key);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(body)).toContain(field);
    }
    for (const body of [{ name: "No team" }, { name: "Null team", teamId: null }]) {
      const res = await post("/projects", body, t.owner.key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("BAD_REQUEST");
    }
    for (const body of [
      { ...ok, teamId: "team_01h00000000000000000000000" },
      { ...ok, leadId: "user_01h00000000000000000000000" },
      { ...ok, labelIds: [bug.id, "label_01h00000000000000000000000"] },
    ]) {
      const res = await post("/projects", body, t.owner.key);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await get(`/projects?filter[eq][teamId]=${fresh.id}`, t.owner.key)).body.projects).toEqual([]);
    // Failed creates did not use up numbers.
    expect((await post("/projects", ok, t.owner.key)).body.project.reference).toBe(`${fresh.prefix}-P1`);
  });

  it("updates partially: null clears, labelIds replaces, customFields merges; one transaction", async () => {
    const created = (
      await post(
        "/projects",
        {
          name: "Patchy",
          teamId: team.id,
          leadId: member.userId,
          startDate: "2025-01-01",
          targetDate: "2025-02-01",
          labelIds: [bug.id],
          customFields: { budget: 5 },
        },
        t.owner.key,
      )
    ).body.project;

    const renamed = await patch(`/projects/${created.reference.toLowerCase()}`, { name: "Renamed", status: "PAUSED" }, member.key);
    expect(renamed.status).toBe(200);
    expectAtomicWrite(renamed);
    expect(renamed.body.project).toEqual({ ...created, name: "Renamed", status: "PAUSED", updatedAt: expect.stringMatching(ISO) });
    expect(renamed.body.project.updatedAt > created.updatedAt).toBe(true);

    const cleared = await patch(
      `/projects/${created.id}`,
      { leadId: null, startDate: null, targetDate: null, description: "now described" },
      member.key,
    );
    expect(cleared.body.project).toMatchObject({
      leadId: null,
      lead: null,
      startDate: null,
      targetDate: null,
      description: "now described",
      name: "Renamed",
    });

    const relabelled = await patch(`/projects/${created.id}`, { labelIds: [api1.id] }, member.key);
    expect(relabelled.body.project.labels.map((l: { id: string }) => l.id)).toEqual([api1.id]);
    expect((await patch(`/projects/${created.id}`, { labelIds: [] }, member.key)).body.project.labels).toEqual([]);

    expect((await patch(`/projects/${created.id}`, { customFields: { stage: "beta" } }, member.key)).body.project.customFields).toEqual({
      budget: 5,
      stage: "beta",
    });
    expect((await patch(`/projects/${created.id}`, { customFields: { budget: null } }, member.key)).body.project.customFields).toEqual({
      stage: "beta",
    });

    const lead = await patch(`/projects/${created.id}`, { leadId: viewer.userId, startDate: "2025-03-01" }, member.key);
    expect(lead.body.project).toMatchObject({
      leadId: viewer.userId,
      lead: { id: viewer.userId, email: viewer.email },
      startDate: "2025-03-01",
    });

    const untouched = await patch(`/projects/${created.id}`, {}, member.key);
    expect(untouched.status).toBe(200);
    expect(untouched.body.project).toEqual(lead.body.project);
  });

  it("rejects bad updates with 422 (teamId cannot change, dates out of order) and 404 for foreign ids, changing nothing", async () => {
    const { project } = (await post("/projects", { name: "Strict", teamId: team.id, startDate: "2025-05-10" }, t.owner.key)).body;
    const other = await newTeam(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ teamId: other.id }, "teamId"],
      [{ reference: "ENG-P1" }, "reference"],
      [{ status: "NOPE" }, "status"],
      [{ name: "" }, "name"],
      [{ targetDate: "2025-05-09" }, "targetDate"],
      [{ startDate: "2025-13-01" }, "startDate"],
      [{ customFields: { budget: true } }, "customFields.budget"],
    ];
    for (const [body, field] of cases) {
      const res = await patch(`/projects/${project.id}`, body, t.owner.key);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(res.body.errors)).toContain(field);
    }
    expect((await patch(`/projects/${project.id}`, { leadId: "user_01h00000000000000000000000" }, t.owner.key)).status).toBe(404);
    expect((await patch(`/projects/${project.id}`, { labelIds: ["label_01h00000000000000000000000"] }, t.owner.key)).status).toBe(404);
    expect((await patch("/projects/ENG-P9999", { name: "Ghost" }, t.owner.key)).status).toBe(404);
    expect((await get(`/projects/${project.id}`, t.owner.key)).body.project).toEqual(project);
  });

  it("lets team MEMBERs and workspace ADMINs write; VIEWERs and members outside the team only read (403)", async () => {
    const { project } = (await post("/projects", { name: "Guarded", teamId: team.id }, t.owner.key)).body;
    for (const who of [viewer, outsider]) {
      for (const res of [
        await post("/projects", { name: "Nope", teamId: team.id }, who.key),
        await patch(`/projects/${project.id}`, { name: "Nope" }, who.key),
        await del(`/projects/${project.id}`, who.key),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      expect((await get(`/projects/${project.id}`, who.key)).status).toBe(200);
      expect((await get("/projects?limit=1", who.key)).status).toBe(200);
    }
    expect((await get(`/projects/${project.id}`, t.owner.key)).body.project).toEqual(project);

    for (const who of [member, admin]) {
      const made = await post("/projects", { name: `By ${who.name}`, teamId: team.id }, who.key);
      expect(made.status).toBe(201);
      expect((await patch(`/projects/${made.body.project.id}`, { status: "ACTIVE" }, who.key)).status).toBe(200);
      expect((await del(`/projects/${made.body.project.id}`, who.key)).status).toBe(204);
    }
    expect((await patch(`/projects/${project.id}`, { name: "Admin edit" }, admin.key)).body.project.name).toBe("Admin edit");
  });

  it("keeps workspaces apart: another workspace's teams, users, labels and projects are 404 and never changed", async () => {
    const other = await newTenant("Other Co");
    const otherTeam = await newTeam(other, { prefix: "ENG" });
    const otherLabel = await label(other, "secret");
    const theirs = (await post("/projects", { name: "Theirs", teamId: otherTeam.id }, other.owner.key)).body.project;
    const mine = (await post("/projects", { name: "Mine", teamId: team.id }, t.owner.key)).body.project;

    for (const body of [
      { name: "X", teamId: otherTeam.id },
      { name: "X", teamId: team.id, leadId: other.owner.userId },
      { name: "X", teamId: team.id, labelIds: [otherLabel.id] },
    ]) {
      const res = await post("/projects", body, t.owner.key);
      expect(res.status, JSON.stringify(body)).toBe(404);
    }
    expect((await patch(`/projects/${mine.id}`, { leadId: other.owner.userId }, t.owner.key)).status).toBe(404);
    expect((await patch(`/projects/${mine.id}`, { labelIds: [otherLabel.id] }, t.owner.key)).status).toBe(404);
    expect((await get(`/projects/${mine.id}`, t.owner.key)).body.project).toEqual(mine);

    expect((await get(`/projects/${theirs.id}`, t.owner.key)).status).toBe(404);
    expect((await patch(`/projects/${theirs.id}`, { name: "Hacked" }, admin.key)).status).toBe(404);
    expect((await del(`/projects/${theirs.id}`, admin.key)).status).toBe(404);
    // The same reference names each workspace's own project.
    expect((await get(`/projects/${theirs.reference}`, other.owner.key)).body.project.id).toBe(theirs.id);
    expect((await get("/projects/ENG-P1", t.owner.key)).body.project?.id).not.toBe(theirs.id);
    expect((await get(`/projects?filter[eq][teamId]=${otherTeam.id}`, t.owner.key)).body.projects).toEqual([]);
    expect((await get(`/projects/${theirs.id}`, other.owner.key)).body.project).toEqual(theirs);
  });

  it("deletes a project: 204, its milestones and comments go, its tasks stay unlinked, its number is not reused", async () => {
    const fresh = await newTeam(t);
    await joinTeam(fresh, member, "MEMBER");
    const { project } = (await post("/projects", { name: "Doomed", teamId: fresh.id, labelIds: [bug.id] }, t.owner.key)).body;
    const m1 = (await post("/milestones", { projectId: project.id, name: "M1" }, t.owner.key)).body.milestone;
    const m2 = (await post("/milestones", { projectId: project.id, name: "M2" }, t.owner.key)).body.milestone;
    const inMilestone = await insertTask(fresh, { projectId: project.id, milestoneId: m1.id });
    const inProject = await insertTask(fresh, { projectId: project.id });
    const commentIds = [newId("cmnt"), newId("cmnt")];
    await withDb((db) =>
      db.insert(comments).values([
        { id: commentIds[0], workspaceId: t.workspaceId, authorId: t.owner.userId, content: "on the project", projectId: project.id },
        { id: commentIds[1], workspaceId: t.workspaceId, authorId: t.owner.userId, content: "on a milestone", milestoneId: m2.id },
      ]),
    );

    const res = await api("DELETE", `/projects/${project.reference.toLowerCase()}`, { key: member.key });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectAtomicWrite(res);

    expect((await get(`/projects/${project.id}`, t.owner.key)).status).toBe(404);
    expect((await get(`/milestones/${m1.id}`, t.owner.key)).status).toBe(404);
    for (const task of [inMilestone, inProject]) expect(await taskRow(task.id)).toMatchObject({ projectId: null, milestoneId: null });
    const left = await withDb(async (db) => ({
      milestones: await db.select().from(milestones).where(eq(milestones.projectId, project.id)),
      comments: await db.select().from(comments).where(sql`${comments.id} in (${commentIds[0]}, ${commentIds[1]})`),
      projects: await db.select().from(projects).where(eq(projects.id, project.id)),
    }));
    expect(left).toEqual({ milestones: [], comments: [], projects: [] });

    expect((await del(`/projects/${project.id}`, t.owner.key)).status).toBe(404);
    expect((await post("/projects", { name: "Next", teamId: fresh.id }, t.owner.key)).body.project.reference).toBe(`${fresh.prefix}-P2`);
  });
});

describe("project lists", () => {
  let t: Tenant;
  let a: TeamFixture;
  let b: TeamFixture;
  let lead1: Member;
  let x: string;
  let y: string;
  let made = 0;

  const pad = (n: number) => String(n).padStart(2, "0");
  /** Varied, deterministic values; names are lower-case ASCII so text order is the same in every collation. */
  const body = (i: number) => ({
    name: `${["alpha", "beta", "gamma"][i % 3]}${pad(i)}`,
    teamId: i % 2 ? a.id : b.id,
    status: STATUSES[i % 5],
    description: i % 4 === 0 ? `has a Needle ${i}` : "",
    leadId: [null, lead1.userId, t.owner.userId][i % 3],
    startDate: i % 4 === 1 ? null : `2025-01-${pad(1 + (i % 28))}`,
    targetDate: i % 5 === 2 ? null : `2025-06-${pad(1 + ((i * 7) % 28))}`,
    labelIds: [[x], [x, y], [], [y]][i % 4],
  });
  const create = async () => {
    const res = await post("/projects", body(made++), t.owner.key);
    expect(res.status).toBe(201);
    return res.body.project;
  };
  const all = async () => {
    const res = await get("/projects?limit=250", t.owner.key);
    expect(res.body.pagination.nextCursor).toBeNull();
    return res.body.projects as any[];
  };

  beforeAll(async () => {
    t = await newTenant("Lists Co");
    [a, b, lead1] = await Promise.all([newTeam(t, { prefix: "ALP" }), newTeam(t, { prefix: "BET" }), addMember(t, "MEMBER")]);
    x = (await label(t, "x")).id;
    y = (await label(t, "y")).id;
    for (let batch = 0; batch < 3; batch++) await Promise.all(Array.from({ length: 10 }, create));
  });

  it("filters with every operator, on every filterable field kind, in one query", async () => {
    const projects = await all();
    const pivot = projects[9];
    const cases: Array<[string, (p: any) => boolean]> = [
      ["filter[eq][name]=beta04", (p) => p.name === "beta04"],
      [`filter[eq][id]=${pivot.id}`, (p) => p.id === pivot.id],
      ["filter[neq][status]=ACTIVE", (p) => p.status !== "ACTIVE"],
      ["filter[gt][number]=10", (p) => numberOf(p) > 10],
      ["filter[lt][number]=3", (p) => numberOf(p) < 3],
      ["filter[gte][startDate]=2025-01-10", (p) => p.startDate !== null && p.startDate >= "2025-01-10"],
      ["filter[lt][targetDate]=2025-06-15", (p) => p.targetDate !== null && p.targetDate < "2025-06-15"],
      [`filter[lte][createdAt]=${pivot.createdAt}`, (p) => p.createdAt <= pivot.createdAt],
      [`filter[gt][updatedAt]=${pivot.updatedAt}`, (p) => p.updatedAt > pivot.updatedAt],
      ["filter[contains][description]=NEEDLE", (p) => p.description.includes("Needle")],
      ["filter[contains][name]=MA1", (p) => p.name.includes("ma1")],
      ["filter[startsWith][name]=GAM", (p) => p.name.startsWith("gam")],
      ["filter[in][status]=ACTIVE&filter[in][status]=PAUSED", (p) => ["ACTIVE", "PAUSED"].includes(p.status)],
      ["filter[eq][leadId]=null", (p) => p.leadId === null],
      ["filter[neq][leadId]=null", (p) => p.leadId !== null],
      [`filter[neq][leadId]=${lead1.userId}`, (p) => p.leadId !== lead1.userId],
      [`filter[in][leadId]=${lead1.userId}&filter[in][leadId]=null`, (p) => p.leadId === null || p.leadId === lead1.userId],
      ["filter[eq][startDate]=null", (p) => p.startDate === null],
      [`filter[eq][teamId]=${a.id}&filter[eq][status]=PLANNING`, (p) => p.teamId === a.id && p.status === "PLANNING"],
      [`filter[eq][labelId]=${y}`, (p) => p.labels.some((l: any) => l.id === y)],
      [`filter[in][labelId]=${x}&filter[in][labelId]=${y}`, (p) => p.labels.length > 0],
      [`filter[neq][labelId]=${x}`, (p) => !p.labels.some((l: any) => l.id === x)],
      // `null` stands for "no label at all", as on tasks.
      ["filter[eq][labelId]=null", (p) => p.labels.length === 0],
      ["filter[neq][labelId]=null", (p) => p.labels.length > 0],
      [`filter[in][labelId]=${y}&filter[in][labelId]=null`, (p) => p.labels.length === 0 || p.labels.some((l: any) => l.id === y)],
    ];
    for (const [query, matches] of cases) {
      const expected = projects.filter(matches).map((p) => p.id);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(expected.length, query).toBeLessThan(projects.length);
      const res = await get(`/projects?limit=250&${query}`, t.owner.key);
      expect(res.status, query).toBe(200);
      expect(
        res.body.projects.map((p: any) => p.id),
        query,
      ).toEqual(expected);
      expect(res.queries).toBe(1);
    }
  });

  it("rejects unknown or misapplied filters and sorts with 400, a bad limit with 422", async () => {
    for (const query of [
      "filter[eq][nope]=1",
      "filter[gt][labelId]=x",
      "filter[contains][number]=1",
      "filter[eq][status]=DONE",
      "filter[eq][startDate]=2025-02-30",
      "sort[description]=asc",
      "sort[labelId]=asc",
      "sort[name]=up",
      "cursor=garbage",
    ]) {
      const res = await get(`/projects?${query}`, t.owner.key);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe("BAD_REQUEST");
    }
    expect((await get("/projects?limit=251", t.owner.key)).status).toBe(422);
  });

  it("selects fields on lists, the same way on every page", async () => {
    const path = "/projects?fields=id,reference,team{prefix},labels{name},lead{email}";
    const items = await walk(path, "projects", t.owner.key, 10);
    expect(items.map((p) => p.id)).toEqual((await all()).map((p) => p.id));
    for (const p of items) {
      expect(Object.keys(p)).toEqual(["id", "reference", "team", "labels", "lead"]);
      expect(Object.keys(p.team)).toEqual(["prefix"]);
      for (const l of p.labels) expect(Object.keys(l)).toEqual(["name"]);
      if (p.lead !== null) expect(Object.keys(p.lead)).toEqual(["email"]);
    }
    expect(items.some((p) => p.labels.length === 2) && items.some((p) => p.lead === null)).toBe(true);
    expect((await get(`${path}&limit=5`, t.owner.key)).body).toEqual((await get(`${path}&limit=5`, t.owner.key)).body);
  });

  it("walks every sort order in both directions, each row once and in order, while rows are inserted", async () => {
    const rank = { number: numberOf, status: (p: any) => STATUSES.indexOf(p.status) };
    const sortable = ["id", "number", "name", "status", "teamId", "leadId", "startDate", "targetDate", "createdAt", "updatedAt"];
    const before = (await all()).map((p) => p.id);
    // The walks run concurrently; each inserts a row after its first page, so every walk also sees the
    // others' inserts land before and after its cursor.
    const walkWithInserts = async (field: string, dir: "asc" | "desc") => {
      const seen: any[] = [];
      let cursor: string | null = null;
      for (let page = 0; page === 0 || cursor; page++) {
        const res: any = await get(
          `/projects?sort[${field}]=${dir}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          t.owner.key,
        );
        expect(res.status).toBe(200);
        expect(res.queries).toBeLessThanOrEqual(2);
        seen.push(...res.body.projects);
        cursor = res.body.pagination.nextCursor;
        if (page === 0) await create();
      }
      const ids = seen.map((p) => p.id);
      expect(new Set(ids).size, `${field} ${dir}: duplicates`).toBe(ids.length);
      expect(ids, `${field} ${dir}: missing rows`).toEqual(expect.arrayContaining(before));
      expect(ids, `${field} ${dir}: order`).toEqual([...seen].sort(listOrder([[field, dir]], rank)).map((p) => p.id));
    };
    await Promise.all(sortable.flatMap((field) => [walkWithInserts(field, "asc"), walkWithInserts(field, "desc")]));
    // 20 walks of about 6 pages and 20 creates, side by side: 10 s at load 15, 30 s was too little in a 68-minute run.
  }, 90_000);
});
