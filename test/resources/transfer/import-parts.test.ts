// An import sent in parts (src/resources/transfer/staged.ts): an export split over several requests, committed in one
// transaction by the rules of POST /teams/{id}/import and POST /workspaces/import. Parts may come in any order of their
// records (a subtask before its parent, a comment before its task), a bad value is a 422 at its part's path, and a
// refused commit writes nothing and leaves the import open.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { pruneImports } from "../../../src/resources/transfer/staged";
import { api, del, get, post } from "../../helpers/api";
import { addMember, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

const put = (path: string, body: unknown, key: string) => api("PUT", path, { body, key });

/** `doc` cut into parts: the first holds everything but tasks and comments, the others `size` tasks or comments each, tasks last first. */
function split(doc: any, size: number) {
  const empty = { users: [], labels: [], fields: [], teams: [], projects: [], milestones: [], tasks: [], comments: [] };
  const part = (data: Record<string, unknown>) => ({ ...doc, data: { ...empty, root: doc.data.root, ...data } });
  const { tasks, comments, ...head } = doc.data;
  const parts = [part(head)];
  const reversed = [...tasks].reverse();
  for (let i = 0; i < reversed.length; i += size) parts.push(part({ tasks: reversed.slice(i, i + size) }));
  for (let i = 0; i < comments.length; i += size) parts.splice(1, 0, part({ comments: comments.slice(i, i + size) }));
  return parts;
}

async function sendParts(key: string, body: Record<string, unknown>, parts: unknown[]) {
  const opened = await post("/imports", body, key);
  expect(opened.status).toBe(201);
  expect(opened.headers.get("location")).toBe(`/imports/${opened.body.import.id}`);
  for (const [i, data] of parts.entries())
    expect((await put(`/imports/${opened.body.import.id}/parts/${i + 1}`, { data }, key)).status).toBe(200);
  return opened.body.import.id as string;
}

const count = (workspaceId: string) =>
  withDb(async (db) => {
    const { rows } = await db.execute<{ tasks: number; comments: number }>(sql`select
      (select count(*) from tasks where workspace_id = ${workspaceId})::int as tasks,
      (select count(*) from comments where workspace_id = ${workspaceId})::int as comments`);
    return rows[0];
  });

describe("an import sent in parts", () => {
  let t: Tenant;
  let source: TeamFixture;
  let exported: any;

  beforeAll(async () => {
    t = await newTenant("Parts Co");
    source = await newTeam(t, { name: "Source" });
    const key = t.owner.key;
    const label = (await post("/labels", { name: "Bug", color: "#ff0000" }, key)).body.label;
    const project = (await post("/projects", { teamId: source.id, name: "Launch" }, key)).body.project;
    let parent: string | null = null;
    for (let i = 0; i < 30; i++) {
      const task: any = (
        await post(
          "/tasks",
          { teamId: source.id, title: `Task ${i}`, parentId: parent, labelIds: i % 2 ? [label.id] : [], projectId: project.id },
          key,
        )
      ).body.task;
      parent = i % 3 === 2 ? null : task.id;
      await post("/comments", { taskId: task.id, content: `On ${i}` }, key);
    }
    exported = (await get(`/teams/${source.id}/export`, key)).body;
  });

  it("into a team: the same as one request, whatever part a record is in (subtasks before parents, comments before tasks)", async () => {
    const target = await newTeam(t, { name: "Target" });
    const parts = split(exported, 7);
    expect(parts.length).toBeGreaterThan(5);
    const id = await sendParts(t.owner.key, { teamId: target.id }, parts);
    const read = await get(`/imports/${id}`, t.owner.key);
    expect(read.body.import).toMatchObject({ id, teamId: target.id, update: false, status: "open", committedAt: null });
    expect(read.body.import.parts.map((p: any) => p.number)).toEqual(parts.map((_, i) => i + 1));
    const records = (name: string) => read.body.import.parts.reduce((sum: number, p: any) => sum + p.records[name], 0);
    expect([records("tasks"), records("comments"), records("teams")]).toEqual([30, 30, 1]);

    const committed = await post(`/imports/${id}/commit`, undefined, t.owner.key);
    expect(committed.status).toBe(200);
    expect(committed.body.imported.id).toBe(target.id);
    const copy = (await get(`/teams/${target.id}/export`, t.owner.key)).body.data;
    expect(copy.tasks).toHaveLength(30);
    expect(copy.comments).toHaveLength(30);
    const title = new Map(copy.tasks.map((x: any) => [x.id, x.title]));
    const sourceTitle = new Map(exported.data.tasks.map((x: any) => [x.id, x.title]));
    const parentsOf = (tasks: any[], titles: Map<unknown, unknown>) =>
      tasks.map((x) => `${x.title} < ${x.parentId ? titles.get(x.parentId) : "-"}`).sort();
    expect(parentsOf(copy.tasks, title)).toEqual(parentsOf(exported.data.tasks, sourceTitle));
    expect(copy.comments.map((c: any) => `${title.get(c.taskId)}: ${c.content}`).sort()).toEqual(
      exported.data.comments.map((c: any) => `${sourceTitle.get(c.taskId)}: ${c.content}`).sort(),
    );
    // References follow the order of the parts (the last tasks of the export came first).
    expect(copy.tasks.find((x: any) => x.title === "Task 29").reference).toBe(`${target.prefix}-1`);

    // Committed: closed to anything but reading and discarding.
    expect((await get(`/imports/${id}`, t.owner.key)).body.import.status).toBe("committed");
    expect((await post(`/imports/${id}/commit`, undefined, t.owner.key)).status).toBe(409);
    expect((await put(`/imports/${id}/parts/1`, { data: parts[0] }, t.owner.key)).status).toBe(409);
    expect((await del(`/imports/${id}`, t.owner.key)).status).toBe(204);
    expect((await get(`/imports/${id}`, t.owner.key)).status).toBe(404);
    expect((await get(`/teams/${target.id}/export`, t.owner.key)).body.data.tasks).toHaveLength(30);
  });

  it("into a new workspace: 201 with its Location, as POST /workspaces/import", async () => {
    const whole = (await get(`/workspaces/${t.workspaceId}/export`, t.owner.key)).body;
    const id = await sendParts(t.owner.key, {}, split(whole, 25));
    const committed = await post(`/imports/${id}/commit`, undefined, t.owner.key);
    expect(committed.status).toBe(201);
    expect(committed.headers.get("location")).toBe(`/workspaces/${committed.body.workspace.id}`);
    expect(await count(committed.body.workspace.id)).toEqual(await count(t.workspaceId));
  });

  it("checks each part as a whole import's body is, and the parts against each other (422 at the part's paths)", async () => {
    const target = await newTeam(t);
    const id = (await post("/imports", { teamId: target.id }, t.owner.key)).body.import.id;
    const [head, ...others] = split(exported, 10);
    const rest = others.filter((p: any) => p.data.tasks.length);
    const bad = structuredClone(rest[0]);
    bad.data.tasks[1].status = "some day";
    const invalid = await put(`/imports/${id}/parts/1`, { data: bad }, t.owner.key);
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors)).toEqual(["data.data.tasks.1.status"]);

    expect((await put(`/imports/${id}/parts/1`, { data: head }, t.owner.key)).status).toBe(200);
    // The same records again in another part: 422 at each repeated id, naming the first part.
    const again = await put(`/imports/${id}/parts/2`, { data: head }, t.owner.key);
    expect(again.status).toBe(422);
    expect(again.body.errors["data.data.teams.0.id"]).toEqual(["Another record of this import (part 1) has this id"]);
    // Another export's part, or another kind of export.
    const foreign = { ...rest[0], data: { ...rest[0].data, root: "team_other" } };
    expect((await put(`/imports/${id}/parts/2`, { data: foreign }, t.owner.key)).body.errors).toHaveProperty(["data.data.root"]);
    const workspacePart = { ...rest[0], type: "workspace" };
    expect((await put(`/imports/${id}/parts/2`, { data: workspacePart }, t.owner.key)).body.errors).toHaveProperty(["data.type"]);
    // Part numbers are 1…1000; a part is `{data}`.
    expect((await put(`/imports/${id}/parts/0`, { data: rest[0] }, t.owner.key)).status).toBe(422);
    expect((await put(`/imports/${id}/parts/1001`, { data: rest[0] }, t.owner.key)).status).toBe(422);
    expect((await put(`/imports/${id}/parts/2`, rest[0], t.owner.key)).status).toBe(422);
    // Sending a part again replaces it.
    expect((await put(`/imports/${id}/parts/2`, { data: rest[0] }, t.owner.key)).status).toBe(200);
    const replaced = await put(`/imports/${id}/parts/2`, { data: rest[1] }, t.owner.key);
    expect(replaced.status).toBe(200);
    expect(replaced.body.import.parts).toHaveLength(2);
  });

  it("a refused commit names the part, writes nothing, and leaves the import open to be fixed", async () => {
    const target = await newTeam(t);
    const before = await count(t.workspaceId);
    const parts = split(exported, 10);
    // A comment on a task that no part holds.
    const withoutTask = structuredClone(parts);
    const comments = withoutTask.findIndex((p: any) => p.data.comments.length);
    const taskId = withoutTask[comments].data.comments[0].taskId;
    const holder = withoutTask.findIndex((p: any) => p.data.tasks.some((x: any) => x.id === taskId));
    withoutTask[holder].data.tasks = withoutTask[holder].data.tasks.filter((x: any) => x.id !== taskId);
    const id = await sendParts(t.owner.key, { teamId: target.id }, withoutTask);
    const refused = await post(`/imports/${id}/commit`, undefined, t.owner.key);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toHaveProperty([`parts.${comments + 1}.data.data.comments.0.taskId`]);
    expect(await count(t.workspaceId)).toEqual(before);
    expect((await get(`/imports/${id}`, t.owner.key)).body.import.status).toBe("open");

    // The part sent again, whole: the commit goes through.
    expect((await put(`/imports/${id}/parts/${holder + 1}`, { data: parts[holder] }, t.owner.key)).status).toBe(200);
    expect((await post(`/imports/${id}/commit`, undefined, t.owner.key)).status).toBe(200);
    expect((await count(t.workspaceId)).tasks).toBe(before.tasks + 30);
  });

  it("subtasks whose parents form a cycle across parts: 422, nothing written", async () => {
    const target = await newTeam(t);
    const before = await count(t.workspaceId);
    const cyclic = structuredClone(exported);
    const [a, b] = cyclic.data.tasks;
    a.parentId = b.id;
    b.parentId = a.id;
    const refused = await post(
      `/imports/${await sendParts(t.owner.key, { teamId: target.id }, split(cyclic, 10))}/commit`,
      undefined,
      t.owner.key,
    );
    expect(refused.status).toBe(422);
    expect(Object.values(refused.body.errors).flat()).toContain("Subtasks must not form a cycle");
    expect(await count(t.workspaceId)).toEqual(before);
  });

  it("with update: records whose id is in the team are overwritten, as POST /teams/{id}/import does", async () => {
    const changed = structuredClone(exported);
    changed.data.tasks[0].title = "Renamed through parts";
    const id = await sendParts(t.owner.key, { teamId: source.id, update: true }, split(changed, 10));
    expect((await post(`/imports/${id}/commit`, undefined, t.owner.key)).status).toBe(200);
    const task = (await get(`/tasks/${exported.data.tasks[0].id}`, t.owner.key)).body.task;
    expect(task).toMatchObject({ title: "Renamed through parts", reference: exported.data.tasks[0].reference });
    expect((await get(`/teams/${source.id}/export`, t.owner.key)).body.data.tasks).toHaveLength(30);
  });

  it("is its creator's alone, needs the import's rights when opened, and expires", async () => {
    const target = await newTeam(t);
    const id = (await post("/imports", { teamId: target.id }, t.owner.key)).body.import.id;
    const colleague = await addMember(t, "ADMIN");
    expect((await get(`/imports/${id}`, colleague.key)).status).toBe(404);
    expect((await post(`/imports/${id}/commit`, undefined, colleague.key)).status).toBe(404);
    expect((await del(`/imports/${id}`, colleague.key)).status).toBe(404);
    // A team not in the workspace; a workspace import needs its OWNER; a team import, a role in the team (a MEMBER has none).
    expect((await post("/imports", { teamId: "team_unknown" }, t.owner.key)).status).toBe(404);
    expect((await post("/imports", {}, colleague.key)).status).toBe(403);
    const member = await addMember(t, "MEMBER");
    expect((await post("/imports", { teamId: target.id }, member.key)).status).toBe(403);
    expect((await post(`/imports/${id}/commit`, undefined, t.owner.key)).status).toBe(422);
    expect((await post("/imports", { teamId: target.id, bogus: 1 }, t.owner.key)).status).toBe(422);

    // Past its 24 h it is gone; the Cron Trigger's sweep deletes it and its parts.
    const expiring = await sendParts(t.owner.key, { teamId: target.id }, split(exported, 10).slice(0, 2));
    await withDb((db) => db.execute(sql`update imports set expires_at = now() - interval '1 second' where id = ${expiring}`));
    expect((await get(`/imports/${expiring}`, t.owner.key)).status).toBe(404);
    await withDb(pruneImports);
    const left = await withDb(async (db) => {
      const { rows } = await db.execute<{ n: number }>(sql`select
        (select count(*) from imports where id = ${expiring})::int + (select count(*) from import_records where import_id = ${expiring})::int as n`);
      return rows[0].n;
    });
    expect(left).toBe(0);
  });
});
