import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../../src/ids";
import { api, eventually, get, patch, post } from "../../helpers/api";
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

/** Rows of the workspace's tables, to prove a refused import wrote nothing. */
async function counts(workspaceId: string) {
  return withDb(async (db) => {
    const { rows } = await db.execute<Record<string, number>>(sql`select
      (select count(*) from tasks where workspace_id = ${workspaceId})::int as tasks,
      (select count(*) from projects where workspace_id = ${workspaceId})::int as projects,
      (select count(*) from milestones where workspace_id = ${workspaceId})::int as milestones,
      (select count(*) from comments where workspace_id = ${workspaceId})::int as comments,
      (select count(*) from labels where workspace_id = ${workspaceId})::int as labels,
      (select count(*) from field_definitions where workspace_id = ${workspaceId})::int as fields,
      (select count(*) from team_members where workspace_id = ${workspaceId})::int as members,
      (select count(*) from task_labels tl join tasks t on t.id = tl.task_id where t.workspace_id = ${workspaceId})::int as links`);
    return rows[0];
  });
}

/**
 * An export with ids, references and times replaced by what they stand for (a linked record's natural key), so two
 * exports of the same content in different places compare equal.
 */
function content(doc: any) {
  const d = doc.data;
  const name = new Map<string, string>();
  for (const u of d.users) name.set(u.id, `user:${u.email}`);
  for (const l of d.labels) name.set(l.id, `label:${l.name}`);
  for (const p of d.projects) name.set(p.id, `project:${p.name}`);
  for (const m of d.milestones) name.set(m.id, `milestone:${m.name}`);
  for (const t of d.tasks) name.set(t.id, `task:${t.title}`);
  for (const t of d.teams) name.set(t.id, `team:${t.name}`);
  const of = (id: string | null) => (id === null ? null : (name.get(id) ?? "outside"));
  const strip = ({ id: _i, reference: _r, createdAt: _c, updatedAt: _u, ...rest }: any) => rest;
  const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
  return {
    type: doc.type,
    users: d.users.map(({ id: _i, ...u }: any) => u).sort(byJson),
    labels: d.labels.map(strip).sort(byJson),
    fields: d.fields.map(strip).sort(byJson),
    teams: d.teams.map((t: any) => ({
      ...strip(t),
      prefix: undefined,
      parentId: of(t.parentId),
      members: t.members.map((m: any) => ({ user: of(m.userId), role: m.role })).sort(byJson),
    })),
    projects: d.projects
      .map((p: any) => ({ ...strip(p), teamId: of(p.teamId), leadId: of(p.leadId), labelIds: p.labelIds.map(of).sort() }))
      .sort(byJson),
    milestones: d.milestones.map((m: any) => ({ ...strip(m), projectId: of(m.projectId) })).sort(byJson),
    tasks: d.tasks
      .map((t: any) => ({
        ...strip(t),
        teamId: of(t.teamId),
        parentId: of(t.parentId),
        projectId: of(t.projectId),
        milestoneId: of(t.milestoneId),
        assigneeId: of(t.assigneeId),
        labelIds: t.labelIds.map(of).sort(),
      }))
      .sort(byJson),
    comments: d.comments
      .map((c: any) => ({
        ...strip(c),
        authorId: of(c.authorId),
        taskId: of(c.taskId),
        projectId: of(c.projectId),
        milestoneId: of(c.milestoneId),
      }))
      .sort(byJson),
  };
}

describe("export and import", () => {
  let t: Tenant;
  let member: Member;
  let team: TeamFixture;
  let projectId: string;
  let rootTaskRef: string;

  beforeAll(async () => {
    t = await newTenant("Transfer Co");
    member = await addMember(t, "MEMBER");
    team = await newTeam(t, { name: "Engine" });
    await joinTeam(team, member, "MEMBER");
    const key = t.owner.key;
    const bug = (await post("/labels", { name: "Bug", color: "#ff0000" }, key)).body.label;
    const ui = (await post("/labels", { name: "UI", color: "#00ff00" }, key)).body.label;
    await post(
      "/fields",
      { key: "severity", name: "Severity", type: "select", recordTypes: ["task", "project"], metadata: { options: ["low", "high"] } },
      key,
    );
    await post("/fields", { key: "owner_user", name: "Owner", type: "user", recordTypes: ["task"] }, key);
    const project = (
      await post(
        "/projects",
        {
          teamId: team.id,
          name: "Launch",
          description: "Go *live*",
          labelIds: [ui.id],
          leadId: member.userId,
          customFields: { severity: "high" },
        },
        key,
      )
    ).body.project;
    projectId = project.id;
    const milestone = (await post("/milestones", { projectId, name: "Beta", targetDate: "2026-12-01" }, key)).body.milestone;
    const root = (
      await post(
        "/tasks",
        {
          teamId: team.id,
          title: "Build the engine",
          projectId,
          milestoneId: milestone.id,
          assigneeId: member.userId,
          labelIds: [bug.id, ui.id],
          customFields: { severity: "low", owner_user: member.userId },
          priority: "HIGH",
        },
        key,
      )
    ).body.task;
    rootTaskRef = root.reference;
    const sub = (
      await post("/tasks", { teamId: team.id, title: "Pistons", parentId: root.id, status: "IN_PROGRESS", dueDate: "2026-12-24" }, key)
    ).body.task;
    await post("/tasks", { teamId: team.id, title: "Piston rings 🚀 שלום", parentId: sub.id, description: "'; drop table tasks; --" }, key);
    await post("/tasks", { teamId: team.id, title: "Unrelated" }, key);
    await post("/comments", { taskId: root.id, content: "Looks **good**" }, member.key);
    await post("/comments", { projectId, content: "Kick-off" }, key);
    await post("/comments", { milestoneId: milestone.id, content: "On track" }, key);
  });

  it("exports a team with everything under it, in one read after authentication", async () => {
    const res = await get(`/teams/${team.id}/export`, member.key);
    expect(res.status).toBe(200);
    expect(res.queries).toBe(2);
    expect(res.body).toMatchObject({ type: "team", version: 1 });
    expect(res.body.exportedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const d = res.body.data;
    expect(d.root).toBe(team.id);
    expect(d.teams).toHaveLength(1);
    expect(d.teams[0].members.map((m: any) => m.userId).sort()).toEqual([t.owner.userId, member.userId].sort());
    expect(d.tasks.map((x: any) => x.title)).toEqual(["Build the engine", "Pistons", "Piston rings 🚀 שלום", "Unrelated"]);
    expect(d.tasks[0]).toMatchObject({
      reference: `${team.prefix}-1`,
      priority: "HIGH",
      assigneeId: member.userId,
      customFields: { severity: "low" },
    });
    expect(d.tasks[0].labelIds).toHaveLength(2);
    expect(d.projects).toHaveLength(1);
    expect(d.milestones).toHaveLength(1);
    expect(d.comments).toHaveLength(3);
    expect(d.labels.map((l: any) => l.name).sort()).toEqual(["Bug", "UI"]);
    expect(d.fields.map((f: any) => f.key).sort()).toEqual(["owner_user", "severity"]);
    expect(d.users.map((u: any) => u.id).sort()).toEqual([t.owner.userId, member.userId].sort());
  });

  it("exports a task with its subtasks (by reference) and a project with its milestones and tasks", async () => {
    const task = await get(`/tasks/${rootTaskRef.toLowerCase()}/export`, member.key);
    expect(task.status).toBe(200);
    expect(task.body.type).toBe("task");
    expect(task.body.data.tasks.map((x: any) => x.title)).toEqual(["Build the engine", "Pistons", "Piston rings 🚀 שלום"]);
    expect(task.body.data.comments).toHaveLength(1);
    const project = await get(`/projects/${projectId}/export`, member.key);
    expect(project.status).toBe(200);
    expect(project.body.data).toMatchObject({ root: projectId });
    expect(project.body.data.tasks.map((x: any) => x.title)).toEqual(["Build the engine"]);
    expect(project.body.data.milestones).toHaveLength(1);
    expect(project.body.data.comments).toHaveLength(3);
  });

  it("exports the workspace to its OWNER only; another workspace's resources are 404", async () => {
    const whole = await get(`/workspaces/${t.workspaceId}/export`, t.owner.key);
    expect(whole.status).toBe(200);
    expect(whole.body.data.workspace).toMatchObject({ id: t.workspaceId, name: "Transfer Co" });
    expect(whole.body.data.workspace.members).toHaveLength(2);
    expect((await get(`/workspaces/${t.workspaceId}/export`, member.key)).status).toBe(403);
    const other = await newTenant();
    for (const path of [
      `/teams/${team.id}/export`,
      `/tasks/${rootTaskRef}/export`,
      `/projects/${projectId}/export`,
      `/workspaces/${t.workspaceId}/export`,
    ]) {
      const res = await get(path, other.owner.key);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    expect((await get(`/teams/${team.id}/export`)).status).toBe(401);
  });

  it("round-trips a team: export → import into another team → export is equal apart from ids, references and times", async () => {
    const first = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    const copy = await newTeam(t, { name: "Engine" });
    const before = await counts(t.workspaceId);
    const res = await post(`/teams/${copy.id}/import`, { data: first, update: false }, t.owner.key);
    expect(res.status).toBe(200);
    expect(res.body.imported).toMatchObject({ id: copy.id, prefix: copy.prefix });
    // Spec, Team: "members … in the import response: team-member objects".
    const members = res.body.imported.members;
    expect(members.map((m: any) => m.userId).sort()).toEqual([t.owner.userId, member.userId].sort());
    for (const m of members) {
      expect(m.id).toMatch(/^tmbr_[0-9a-z]{26}$/);
      expect(m).toEqual({ id: m.id, teamId: copy.id, userId: m.userId, role: m.role, user: expect.objectContaining({ id: m.userId }) });
      expect((await get(`/team-members/${m.id}`, member.key)).body.teamMember).toEqual(m);
    }
    const after = await counts(t.workspaceId);
    expect(after.tasks - before.tasks).toBe(4);
    expect(after.labels).toBe(before.labels); // mapped by name, not duplicated
    expect(after.fields).toBe(before.fields);
    const second = (await get(`/teams/${copy.id}/export`, t.owner.key)).body;
    expect(second.data.tasks.map((x: any) => x.reference)).toEqual([1, 2, 3, 4].map((n) => `${copy.prefix}-${n}`));
    expect(second.data.tasks.every((x: any) => !first.data.tasks.some((o: any) => o.id === x.id))).toBe(true);
    expect(content(second)).toEqual({ ...content(first) });
    // The imported records are real ones: readable, searchable, with their links.
    const sub = (await get(`/tasks/${copy.prefix}-2`, member.key)).body.task;
    expect(sub.parentId).toBe(second.data.tasks[0].id);
  });

  it("update:true overwrites records with the same id (same reference) and creates the rest", async () => {
    const doc = (await get(`/projects/${projectId}/export`, t.owner.key)).body;
    const task = doc.data.tasks[0];
    task.title = "Build the engine, v2";
    task.status = "DONE";
    doc.data.milestones[0].name = "Beta 2";
    doc.data.comments.push({ ...doc.data.comments[0], id: "cmnt_new", content: "Added by import", taskId: task.id, projectId: null });
    const before = await counts(t.workspaceId);
    const res = await post(`/teams/${team.id}/import`, { data: doc, update: true }, t.owner.key);
    expect(res.status).toBe(200);
    const after = await counts(t.workspaceId);
    expect(after.tasks).toBe(before.tasks);
    expect(after.milestones).toBe(before.milestones);
    expect(after.comments).toBe(before.comments + 1);
    const read = (await get(`/tasks/${task.id}`, t.owner.key)).body.task;
    expect(read).toMatchObject({ reference: task.reference, title: "Build the engine, v2", status: "DONE" });
    expect(read.labels).toHaveLength(2);
  });

  it("update:false into the same team gives new ids and the next references", async () => {
    const doc = (await get(`/tasks/${rootTaskRef}/export`, t.owner.key)).body;
    const before = (await get(`/teams/${team.id}/export`, t.owner.key)).body.data.tasks.length;
    const res = await post(`/teams/${team.id}/import`, { data: doc, update: false }, member.key);
    expect(res.status).toBe(200);
    const tasks = (await get(`/teams/${team.id}/export`, t.owner.key)).body.data.tasks;
    expect(tasks).toHaveLength(before + 3);
    expect(tasks.slice(-3).map((x: any) => x.reference)).toEqual([before + 1, before + 2, before + 3].map((n) => `${team.prefix}-${n}`));
    // The copy of the root task lost its project (not in a task export); its subtasks point at the copy.
    expect(tasks.at(-3).projectId).toBeNull();
    expect(tasks.at(-2).parentId).toBe(tasks.at(-3).id);
  });

  it("an import that waits on the team for another write reads the team as that write left it: a member it added is no 409", async () => {
    const target = await newTeam(t, { name: "Waited on" });
    const doc = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    expect(doc.data.teams[0].members.map((m: any) => m.userId)).toContain(member.userId);
    const waitingOnRow = async () => {
      const { rows } = await withDb((db) =>
        db.execute<{ n: number }>(sql`select count(*)::int as n from pg_locks where locktype = 'transactionid' and not granted`),
      );
      return rows[0].n > 0 && "waiting";
    };
    // Another import's moment: it holds the team's row and has added the member, not yet committed.
    const waited = await whileLocked(
      sql`insert into team_members (id, workspace_id, team_id, user_id, role)
        select ${newId("tmbr")}, workspace_id, id, ${member.userId}, 'MEMBER' from teams where id = ${target.id} for update`,
      async () => {
        const sent = post(`/teams/${target.id}/import`, { data: doc, update: false }, t.owner.key);
        expect(await Promise.race([sent.then((r) => `answered ${r.status}`), eventually(waitingOnRow)])).toBe("waiting");
        return { sent }; // not awaited here: the lock is let go first
      },
    );
    const answer = await waited.sent;
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.imported.members.filter((m: any) => m.userId === member.userId)).toHaveLength(1);
  });

  it("refuses a bad payload with 422 and the JSON paths of the bad values, writing nothing", async () => {
    const doc = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    // No key has this form (an import creates a status key the team lacks, never a value that cannot be one).
    doc.data.tasks[2].status = "not a status!";
    doc.data.tasks[3].customFields = { severity: "catastrophic" };
    doc.data.comments[0].content = "";
    const before = await counts(t.workspaceId);
    const res = await post(`/teams/${team.id}/import`, { data: doc, update: false }, t.owner.key);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(expect.arrayContaining(["data.data.tasks.2.status", "data.data.comments.0.content"]));
    const typed = structuredClone(doc);
    typed.data.tasks[2].status = "TODO";
    typed.data.comments[0].content = "fine";
    const values = await post(`/teams/${team.id}/import`, { data: typed, update: false }, t.owner.key);
    expect(values.status).toBe(422);
    expect(values.body.errors).toHaveProperty(["data.data.tasks.3.customFields.severity"]);
    expect(await counts(t.workspaceId)).toEqual(before);
    // Wrong kinds of export, unknown keys and a missing body are refused too.
    expect((await post(`/teams/${team.id}/import`, { data: { ...doc, type: "workspace" } }, t.owner.key)).status).toBe(422);
    expect((await post(`/teams/${team.id}/import`, { data: doc, update: false, extra: 1 }, t.owner.key)).status).toBe(422);
    expect((await post(`/teams/${team.id}/import`, { data: { ...doc, version: 2 } }, t.owner.key)).status).toBe(422);
  });

  it("writes nothing when the import fails late, after most of its rows were written", async () => {
    const doc = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    const marker = `fail-late-${crypto.randomUUID()}`;
    doc.data.comments.at(-1).content = marker;
    doc.data.labels.push({ id: "label_late", name: `Late ${marker}`, color: "#123456" });
    // Comments are the import's last statement: a trigger refuses this one comment there, after labels, tasks and
    // the rest were inserted in the same transaction.
    // One statement a call: a one-shot statement goes over the HTTP query, which takes one (as Neon's does).
    await withDb(async (db) => {
      await db.execute(
        sql.raw(`create or replace function refuse_marked_comment() returns trigger language plpgsql as $$
        begin if new.content = '${marker}' then raise exception 'refused by test'; end if; return new; end $$`),
      );
      await db.execute(
        sql.raw("create trigger refuse_marked_comment before insert on comments for each row execute function refuse_marked_comment()"),
      );
    });
    try {
      const before = await counts(t.workspaceId);
      const res = await post(`/teams/${team.id}/import`, { data: doc, update: false }, t.owner.key);
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe("INTERNAL");
      expect(await counts(t.workspaceId)).toEqual(before);
    } finally {
      await withDb(async (db) => {
        await db.execute(sql.raw("drop trigger refuse_marked_comment on comments"));
        await db.execute(sql.raw("drop function refuse_marked_comment()"));
      });
    }
  });

  it("never points at another workspace's users, labels or fields", async () => {
    const other = await newTenant("Other Co");
    const stranger = await addMember(other, "MEMBER");
    const theirLabel = (await post("/labels", { name: "Theirs", color: "#abcdef" }, other.owner.key)).body.label;
    const theirField = (await post("/fields", { key: "severity", name: "Sev", type: "text", recordTypes: ["task"] }, other.owner.key)).body
      .field;
    const doc = (await get(`/tasks/${rootTaskRef}/export`, t.owner.key)).body;
    // A hand-edited export that names the other workspace's user, label and field by id.
    doc.data.users.push({ id: stranger.userId, name: "Stranger", email: stranger.email, avatarUrl: null, type: "HUMAN" });
    doc.data.tasks[0].assigneeId = stranger.userId;
    doc.data.tasks[0].customFields = { severity: "high", owner_user: stranger.userId };
    doc.data.labels.push({ id: theirLabel.id, name: "Hijacked", color: "#000000" });
    doc.data.tasks[0].labelIds = [theirLabel.id];
    doc.data.fields = doc.data.fields.map((f: any) => (f.key === "severity" ? { ...f, id: theirField.id } : f));
    const res = await post(`/teams/${team.id}/import`, { data: doc, update: true }, t.owner.key);
    expect(res.status).toBe(200);
    // update:true: the root task (its id is in this team) is overwritten in place.
    const tasks = (await get(`/teams/${team.id}/export`, t.owner.key)).body.data.tasks;
    const copy = tasks.find((x: any) => x.id === doc.data.tasks[0].id);
    expect(copy.assigneeId).toBeNull();
    expect(copy.customFields).toEqual({ severity: "high" });
    expect(copy.labelIds).toHaveLength(1);
    expect(copy.labelIds[0]).not.toBe(theirLabel.id);
    // The other workspace's label and field are untouched.
    expect((await get(`/labels/${theirLabel.id}`, other.owner.key)).body.label).toMatchObject({ name: "Theirs", color: "#ABCDEF" });
    expect((await get(`/fields/${theirField.id}`, other.owner.key)).body.field).toMatchObject({ type: "text" });
    // Importing into another workspace's team is 404.
    const theirTeam = await newTeam(other);
    expect((await post(`/teams/${theirTeam.id}/import`, { data: doc, update: true }, t.owner.key)).status).toBe(404);
  });

  it("checks the caller's rights: team VIEWER 403, new fields need a workspace ADMIN", async () => {
    const viewer = await addMember(t, "MEMBER");
    await joinTeam(team, viewer, "VIEWER");
    const doc = (await get(`/tasks/${rootTaskRef}/export`, t.owner.key)).body;
    expect((await post(`/teams/${team.id}/import`, { data: doc }, viewer.key)).status).toBe(403);
    doc.data.fields.push({ ...doc.data.fields[0], id: "fdef_x", key: "brand_new" });
    const res = await post(`/teams/${team.id}/import`, { data: doc }, member.key);
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain("brand_new");
  });

  it("applies the rules of the operations it stands for: no team role above one's own, labels and comments only as PATCH allows (403, nothing written)", async () => {
    // A team MEMBER cannot grant OWNER through POST /teams/{id}/members, nor by adding it to an export.
    const agent = (await post("/agents", { name: "Takeover bot" }, member.key)).body.agent;
    const doc = (await get(`/teams/${team.id}/export`, member.key)).body;
    doc.data.users.push({ id: agent.id, name: agent.name, email: `${agent.id}@agents.test`, avatarUrl: null, type: "AGENT" });
    const tamper = (role: string) => {
      const copy = structuredClone(doc);
      copy.data.teams[0].members.push({ id: "tmbr_tamper", userId: agent.id, role });
      return copy;
    };
    expect((await post(`/teams/${team.id}/members`, { userId: agent.id, role: "OWNER" }, member.key)).status).toBe(403);
    const before = await counts(t.workspaceId);
    for (const role of ["OWNER", "ADMIN"]) {
      const res = await post(`/teams/${team.id}/import`, { data: tamper(role), update: false }, member.key);
      expect(res.status, role).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
      expect(res.body.error.message).toContain(role);
    }
    expect(await counts(t.workspaceId)).toEqual(before);
    expect((await get(`/teams/${team.id}/members`, t.owner.key)).body.members.map((m: any) => m.id)).not.toContain(agent.id);
    // A role at or below one's own is what POST /teams/{id}/members allows too.
    const allowed = await post(`/teams/${team.id}/import`, { data: tamper("MEMBER"), update: false }, member.key);
    expect(allowed.status).toBe(200);
    expect(allowed.body.imported.members.find((m: any) => m.userId === agent.id)).toMatchObject({ role: "MEMBER" });

    // update:true overwrites a label only as PATCH /labels would (its creator or a workspace ADMIN/OWNER) …
    const project = (await get(`/projects/${projectId}/export`, member.key)).body;
    const relabel = structuredClone(project);
    relabel.data.labels[0].name = "Renamed by import";
    const labelsBefore = (await get("/labels", t.owner.key)).body.labels;
    const refused = await post(`/teams/${team.id}/import`, { data: relabel, update: true }, member.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/creator/);
    expect((await get("/labels", t.owner.key)).body.labels).toEqual(labelsBefore);
    // … and another author's comment only as PATCH /comments would (never).
    const recomment = structuredClone(project);
    const theirs = recomment.data.comments.findIndex((c: any) => c.authorId === t.owner.userId);
    recomment.data.comments[theirs].content = "Put in the owner's mouth";
    const edit = await post(`/teams/${team.id}/import`, { data: recomment, update: true }, member.key);
    expect(edit.status).toBe(403);
    expect(edit.body.error.details.paths).toEqual([`data.data.comments.${theirs}`]);
    // Unchanged labels and comments are no edit: the same export goes back in.
    expect((await post(`/teams/${team.id}/import`, { data: project, update: true }, member.key)).status).toBe(200);
    // The owner may do both.
    expect((await post(`/teams/${team.id}/import`, { data: relabel, update: true }, t.owner.key)).status).toBe(200);
    expect((await get(`/labels/${relabel.data.labels[0].id}`, t.owner.key)).body.label.name).toBe("Renamed by import");
    await patch(`/labels/${relabel.data.labels[0].id}`, { name: project.data.labels[0].name }, t.owner.key);
  });

  it("refuses an export whose records share an id, or whose teams list a user twice, with 422 at the second one (one was dropped)", async () => {
    const doc = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    doc.data.tasks[1].id = doc.data.tasks[0].id;
    doc.data.comments[1].id = doc.data.labels[0].id;
    doc.data.teams[0].members.push({ ...doc.data.teams[0].members[0], id: "tmbr_twice" });
    const before = await counts(t.workspaceId);
    const res = await post(`/teams/${(await newTeam(t)).id}/import`, { data: doc, update: false }, t.owner.key);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      "data.data.tasks.1.id": ["Another record of the export (tasks.0) has this id"],
      "data.data.comments.1.id": ["Another record of the export (labels.0) has this id"],
      [`data.data.teams.0.members.${doc.data.teams[0].members.length - 1}.userId`]: ["The team lists this user twice"],
    });
    expect((await counts(t.workspaceId)).tasks).toBe(before.tasks);
  });

  it("refuses a workspace export whose teams form a cycle (t1 → t2 → t1, t3 → t3), as PATCH /teams does (422)", async () => {
    const source = await newTenant("Cyclic Co");
    const [t1, t2, t3] = [await newTeam(source), await newTeam(source), await newTeam(source)];
    const doc = (await get(`/workspaces/${source.workspaceId}/export`, source.owner.key)).body;
    const at = (id: string) => doc.data.teams.findIndex((x: any) => x.id === id);
    doc.data.teams[at(t1.id)].parentId = t2.id;
    doc.data.teams[at(t2.id)].parentId = t1.id;
    doc.data.teams[at(t3.id)].parentId = t3.id;
    const res = await post("/workspaces/import", { data: doc }, source.owner.key);
    expect(res.status).toBe(422);
    const cycle = ["Teams must not form a cycle (a team under itself or one of its sub-teams)"];
    expect(res.body.errors).toEqual({ [`data.data.teams.${at(t1.id)}.parentId`]: cycle, [`data.data.teams.${at(t3.id)}.parentId`]: cycle });
    // A proper tree imports, parents before children whatever the export's order.
    doc.data.teams[at(t1.id)].parentId = t2.id;
    doc.data.teams[at(t2.id)].parentId = null;
    doc.data.teams[at(t3.id)].parentId = t1.id;
    const ok = await post("/workspaces/import", { data: doc }, source.owner.key);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
  });

  it("imports a workspace into a new one owned by the caller (201, Location) and it round-trips", async () => {
    const source = await newTenant("Solo Co");
    const solo = await newTeam(source, { name: "Solo" });
    await post("/labels", { name: "Ops", color: "#010203" }, source.owner.key);
    // A field's recordTypes is an array column: an import writes it as one array per row, not flattened.
    const field = { key: "risk", name: "Risk", type: "select", recordTypes: ["task", "project"], metadata: { options: ["low", "high"] } };
    expect((await post("/fields", field, source.owner.key)).status).toBe(201);
    const p = (await post("/projects", { teamId: solo.id, name: "Plan" }, source.owner.key)).body.project;
    const parent = (
      await post(
        "/tasks",
        { teamId: solo.id, title: "Parent", projectId: p.id, assigneeId: source.owner.userId, customFields: { risk: "high" } },
        source.owner.key,
      )
    ).body.task;
    await post("/tasks", { teamId: solo.id, title: "Child", parentId: parent.id }, source.owner.key);
    await post("/comments", { taskId: parent.id, content: "Hi" }, source.owner.key);
    const first = (await get(`/workspaces/${source.workspaceId}/export`, source.owner.key)).body;

    expect((await post("/workspaces/import", { data: first, update: false }, member.key)).status).toBe(403);
    const res = await post("/workspaces/import", { data: first, update: false }, source.owner.key);
    expect(res.status).toBe(201);
    const ws = res.body.workspace;
    expect(res.headers.get("location")).toBe(`/workspaces/${ws.id}`);
    expect(ws).toMatchObject({ name: "Solo Co" });
    expect(ws.id).not.toBe(source.workspaceId);
    const key = await withDb(async (db) => {
      const { joinWorkspaceWithKey } = await import("../../../src/auth/accounts/membership");
      return joinWorkspaceWithKey(db, { workspaceId: ws.id, userId: source.owner.userId, role: "OWNER", keyName: "test" });
    });
    expect((await get("/me", key)).body.role).toBe("OWNER");
    const second = (await get(`/workspaces/${ws.id}/export`, key)).body;
    const strip = (c: any) => ({ ...c, workspace: undefined });
    expect(strip(content(second))).toEqual(strip(content(first)));
    expect(second.data.tasks.map((x: any) => x.reference)).toEqual(first.data.tasks.map((x: any) => x.reference));
    expect((await get("/fields?filter[eq][key]=risk&fields=recordTypes", key)).body.fields).toEqual([{ recordTypes: ["task", "project"] }]);
    // A team or task export is not a workspace export.
    expect(
      (await post("/workspaces/import", { data: (await get(`/teams/${solo.id}/export`, source.owner.key)).body }, source.owner.key)).status,
    ).toBe(422);
  });

  it("imports 5,000 tasks with their comments in one request (bodies up to 32 MiB), in statements of a page (1,000 rows) each", async () => {
    const big = await newTeam(t, { name: "Big" });
    const doc = (await get(`/tasks/${rootTaskRef}/export`, t.owner.key)).body;
    const task = doc.data.tasks[0];
    const comment = doc.data.comments[0];
    doc.data.tasks = Array.from({ length: 5000 }, (_, i) => ({
      ...task,
      id: `task_bulk${i}`,
      title: `Bulk task ${i}`,
      description: "x".repeat(200),
      parentId: i % 10 === 0 ? null : `task_bulk${i - (i % 10)}`,
    }));
    doc.data.comments = doc.data.tasks.map((x: any, i: number) => ({
      ...comment,
      id: `cmnt_bulk${i}`,
      taskId: x.id,
      content: `Comment ${i}`,
    }));
    const body = JSON.stringify({ data: doc, update: false });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const started = Date.now();
    const res = await api("POST", `/teams/${big.id}/import`, {
      rawBody: body,
      key: t.owner.key,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
    console.log(
      `import of 5,000 tasks + 5,000 comments (${(body.length / 1e6).toFixed(1)} MB): ${Date.now() - started} ms, ${res.queries} queries`,
    );
    // The caller, the target, the counters, the small collections, then per page of 1,000: tasks, their labels, comments.
    expect(res.queries).toBeLessThanOrEqual(15 + 3 * 5);
    const after = (await get(`/teams/${big.id}/export`, t.owner.key)).body.data;
    expect(after.tasks).toHaveLength(5000);
    expect(after.comments).toHaveLength(5000);
    expect(after.tasks[4999].reference).toBe(`${big.prefix}-5000`);
    expect(after.tasks[11].parentId).toBe(after.tasks[10].id);
    // Over 32 MiB is 413 with the JSON error body; other routes keep 1 MiB.
    const huge = await api("POST", `/teams/${big.id}/import`, {
      rawBody: "x".repeat(33 * 1024 * 1024),
      key: t.owner.key,
      headers: { "content-type": "application/json" },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    const tasks = await api("POST", "/tasks", { rawBody: body, key: t.owner.key, headers: { "content-type": "application/json" } });
    expect(tasks.status).toBe(413);
  });

  it("lets a member rename what they imported like any record", async () => {
    const tasks = (await get(`/teams/${team.id}/export`, t.owner.key)).body.data.tasks;
    const res = await patch(`/tasks/${tasks.at(-1).id}`, { title: "Renamed after import" }, member.key);
    expect(res.status).toBe(200);
  });
});
