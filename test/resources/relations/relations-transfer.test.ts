// Relations travel in exports and imports (docs/api.md, export and import, "Task relations"): the stored edges among the
// exported tasks, imported by the rules of POST /tasks/{id}/relations, in the import's one transaction.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { EXPORT_PAGE } from "../../../src/resources/transfer/export";
import { api, del, fetchApp, get, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

type Doc = { type: string; data: { tasks: Array<{ id: string; title: string }>; relations: Relation[]; [k: string]: unknown } };
type Relation = { id: string; type: string; sourceTaskId: string; targetTaskId: string; createdAt: string; createdBy: string | null };

/**
 * A document's relations by what they join (the tasks' titles), sorted: the same relations wherever they were imported
 * (`related` has no direction: its tasks in title order, as ids order it only where they are).
 */
function relationsOf(doc: Doc) {
  const title = new Map(doc.data.tasks.map((t) => [t.id, t.title]));
  return doc.data.relations
    .map((r) => {
      const ends = [title.get(r.sourceTaskId), title.get(r.targetTaskId)];
      const [from, to] = r.type === "related" ? ends.sort() : ends;
      return `${from} ${r.type} ${to}`;
    })
    .sort();
}

/** Rows of the workspace's tasks, relations and events, to prove a refused import wrote nothing. */
const counts = (workspaceId: string) =>
  withDb(async (db) => {
    const { rows } = await db.execute<{ tasks: number; relations: number; events: number }>(sql`select
      (select count(*) from tasks where workspace_id = ${workspaceId})::int as tasks,
      (select count(*) from task_relations where workspace_id = ${workspaceId})::int as relations,
      (select count(*) from events where workspace_id = ${workspaceId})::int as events`);
    return rows[0];
  });

describe("relations in export and import", () => {
  let t: Tenant;
  let team: TeamFixture;
  let elsewhere: TeamFixture;
  let tasks: Record<"a" | "b" | "c" | "d" | "x", { id: string; reference: string }>;

  const task = async (teamId: string, title: string) => (await post("/tasks", { teamId, title }, t.owner.key)).body.task;
  const relate = (from: string, type: string, to: string) => post(`/tasks/${from}/relations`, { type, taskId: to }, t.owner.key);
  const exportOf = async (path: string): Promise<Doc> => {
    const res = await get(path, t.owner.key);
    expect(res.status).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    t = await newTenant("Relations Transfer Co");
    team = await newTeam(t, { name: "Rel" });
    elsewhere = await newTeam(t, { name: "Elsewhere" });
    const project = (await post("/projects", { teamId: team.id, name: "Plan" }, t.owner.key)).body.project;
    tasks = {
      a: (await post("/tasks", { teamId: team.id, title: "A", projectId: project.id }, t.owner.key)).body.task,
      b: (await post("/tasks", { teamId: team.id, title: "B", projectId: project.id }, t.owner.key)).body.task,
      c: await task(team.id, "C"),
      d: await task(team.id, "D"),
      x: await task(elsewhere.id, "X"),
    };
    // A blocks B blocks C; A related C; D duplicate_of C; X (another team) blocks A.
    for (const [from, type, to] of [
      ["a", "blocks", "b"],
      ["c", "blocked_by", "b"],
      ["c", "related", "a"],
      ["d", "duplicate_of", "c"],
      ["x", "blocks", "a"],
    ] as const)
      expect((await relate(tasks[from].id, type, tasks[to].id)).status).toBe(201);
  });

  it("a team export carries the relations with both tasks in the team, as stored edges; a project or task export those among its tasks", async () => {
    const doc = await exportOf(`/teams/${team.id}/export`);
    expect(relationsOf(doc)).toEqual(["A blocks B", "A related C", "B blocks C", "D duplicate_of C"].sort());
    expect(doc.data.relations[0]).toEqual({
      id: expect.stringMatching(/^rel_/),
      type: "blocks",
      sourceTaskId: tasks.a.id,
      targetTaskId: tasks.b.id,
      createdAt: expect.any(String),
      createdBy: t.owner.userId,
    });
    expect(relationsOf(await exportOf(`/projects/${(doc.data.projects as Array<{ id: string }>)[0].id}/export`))).toEqual(["A blocks B"]);
    expect(relationsOf(await exportOf(`/tasks/${tasks.c.id}/export`))).toEqual([]);
    const ws = await exportOf(`/workspaces/${t.workspaceId}/export`);
    expect(relationsOf(ws)).toEqual(["A blocks B", "A related C", "B blocks C", "D duplicate_of C", "X blocks A"].sort());
  });

  it("a team round trip: new ids, the same relations, each written with its task_relation.created event", async () => {
    const copy = await newTeam(t, { name: "Rel copy" });
    const doc = await exportOf(`/teams/${team.id}/export`);
    const res = await api("POST", `/teams/${copy.id}/import`, { body: { data: doc, update: false }, key: t.owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const again = await exportOf(`/teams/${copy.id}/export`);
    expect(relationsOf(again)).toEqual(relationsOf(doc));
    const ids = new Set(doc.data.relations.map((r) => r.id));
    expect(again.data.relations.every((r) => !ids.has(r.id))).toBe(true);
    // Seen through the API as any relation, blockers counted.
    const copiedC = again.data.tasks.find((x) => x.title === "C") as { id: string };
    expect((await get(`/tasks/${copiedC.id}`, t.owner.key)).body.task.blockedByCount).toBe(1);
    const history = (await get(`/tasks/${copiedC.id}/history`, t.owner.key)).body.events.map((e: { type: string }) => e.type);
    expect(history.filter((type: string) => type === "task_relation.created")).toHaveLength(3);
  });

  it("a workspace round trip carries every relation, cross-team ones included", async () => {
    const doc = await exportOf(`/workspaces/${t.workspaceId}/export`);
    const res = await post("/workspaces/import", { data: doc }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const key = await withDb(async (db) => {
      const { joinWorkspaceWithKey } = await import("../../../src/auth/accounts/membership");
      return joinWorkspaceWithKey(db, { workspaceId: res.body.workspace.id, userId: t.owner.userId, role: "OWNER", keyName: "test" });
    });
    const again = (await get(`/workspaces/${res.body.workspace.id}/export`, key)).body;
    expect(relationsOf(again)).toEqual(relationsOf(doc));
    expect(again.data.relations.map((r: Relation) => r.createdBy)).toEqual(doc.data.relations.map(() => t.owner.userId));
  });

  it("update:true keeps the target's relation ids, writes the missing ones anew, and refuses a cycle with the target's own edges", async () => {
    const target = await newTeam(t, { name: "Upd" });
    const [p, q, r] = [await task(target.id, "P"), await task(target.id, "Q"), await task(target.id, "R")];
    const pq = (await relate(p.id, "blocks", q.id)).body.relation;
    const qr = (await relate(q.id, "blocks", r.id)).body.relation;
    const doc = await exportOf(`/teams/${target.id}/export`);
    expect((await del(`/tasks/${q.id}/relations/${qr.id}`, t.owner.key)).status).toBe(204);
    const before = await counts(t.workspaceId);
    const res = await api("POST", `/teams/${target.id}/import`, { body: { data: doc, update: true }, key: t.owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = await exportOf(`/teams/${target.id}/export`);
    expect(relationsOf(after)).toEqual(["P blocks Q", "Q blocks R"]);
    // The kept one is untouched (no new event); the deleted one came back as a new relation.
    expect(after.data.relations.map((x) => x.id)).toContain(pq.id);
    expect(after.data.relations.map((x) => x.id)).not.toContain(qr.id);
    expect((await counts(t.workspaceId)).relations).toBe(before.relations + 1);

    // R blocks P now, in the target: the export's P blocks Q blocks R would close a cycle with it.
    const again = after.data.relations.find((x) => x.sourceTaskId === q.id) as Relation;
    expect((await del(`/tasks/${q.id}/relations/${again.id}`, t.owner.key)).status).toBe(204);
    expect((await relate(r.id, "blocks", p.id)).status).toBe(201);
    const held = await counts(t.workspaceId);
    const refused = await api("POST", `/teams/${target.id}/import`, { body: { data: doc, update: true }, key: t.owner.key });
    expect(refused.status).toBe(422);
    // Named at the first imported `blocks` edge on it, as POST names a new edge's cycle.
    const at = doc.data.relations.findIndex((x) => x.id === pq.id);
    expect(refused.body.errors).toEqual({
      [`data.data.relations.${at}`]: [
        `Would close a cycle: ${p.reference} blocks ${q.reference} blocks ${r.reference} blocks ${p.reference}`,
      ],
    });
    expect(await counts(t.workspaceId)).toEqual(held);
  });

  it("update:true refuses an edge the target already has under another id (one relation per pair and meaning)", async () => {
    const target = await newTeam(t, { name: "Twice" });
    const [p, q] = [await task(target.id, "P"), await task(target.id, "Q")];
    const first = (await relate(p.id, "related", q.id)).body.relation;
    const doc = await exportOf(`/teams/${target.id}/export`);
    expect((await del(`/tasks/${p.id}/relations/${first.id}`, t.owner.key)).status).toBe(204);
    const second = (await relate(q.id, "related", p.id)).body.relation;
    const held = await counts(t.workspaceId);
    const res = await api("POST", `/teams/${target.id}/import`, { body: { data: doc, update: true }, key: t.owner.key });
    expect(res.status).toBe(422);
    expect(res.body.errors["data.data.relations.0"][0]).toContain(second.id);
    expect(await counts(t.workspaceId)).toEqual(held);
  });

  describe("refusals write nothing", () => {
    let doc: Doc;
    let copy: TeamFixture;
    const importing = (data: Doc) => api("POST", `/teams/${copy.id}/import`, { body: { data, update: false }, key: t.owner.key });
    const edited = (edit: (relations: Relation[]) => void): Doc => {
      const d = structuredClone(doc);
      edit(d.data.relations);
      return d;
    };
    const idOf = (title: string) => (doc.data.tasks.find((x) => x.title === title) as { id: string }).id;

    beforeAll(async () => {
      copy = await newTeam(t, { name: "Refusing" });
      doc = await exportOf(`/teams/${team.id}/export`);
    });

    it("a relation to a task outside the import is 422 at its path", async () => {
      const held = await counts(t.workspaceId);
      const res = await importing(edited((rs) => rs.push({ ...rs[0], id: "rel_outside", sourceTaskId: tasks.x.id })));
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ [`data.data.relations.${doc.data.relations.length}.sourceTaskId`]: ["Not a task of the export"] });
      expect(await counts(t.workspaceId)).toEqual(held);
    });

    it("a blocks cycle among the imported edges is 422 naming it", async () => {
      const held = await counts(t.workspaceId);
      const res = await importing(
        edited((rs) => rs.push({ ...rs[0], id: "rel_back", type: "blocks", sourceTaskId: idOf("C"), targetTaskId: idOf("A") })),
      );
      expect(res.status).toBe(422);
      const [[path, [message]]] = Object.entries(res.body.errors as Record<string, string[]>);
      expect(path).toMatch(/^data\.data\.relations\.\d+$/);
      expect(message).toMatch(new RegExp(`^Would close a cycle: (${copy.prefix}-\\d+ blocks ){3}${copy.prefix}-\\d+$`));
      expect(await counts(t.workspaceId)).toEqual(held);
    });

    it("the same pair and meaning twice (related either way round), or a task with itself, is 422", async () => {
      const held = await counts(t.workspaceId);
      const n = doc.data.relations.length;
      const res = await importing(
        edited((rs) => {
          const related = rs.find((r) => r.type === "related") as Relation;
          rs.push({ ...related, id: "rel_again", sourceTaskId: related.targetTaskId, targetTaskId: related.sourceTaskId });
          rs.push({ ...related, id: "rel_self", type: "blocks", targetTaskId: related.sourceTaskId });
        }),
      );
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors).sort()).toEqual([`data.data.relations.${n}`, `data.data.relations.${n + 1}.targetTaskId`]);
      expect(await counts(t.workspaceId)).toEqual(held);
    });

    it("a document from before relations travelled (no `relations`) still imports", async () => {
      const { relations: _r, ...data } = doc.data;
      const res = await importing({ ...doc, data: data as Doc["data"] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });
  });
});

describe("relations in a streamed export and an import in parts", () => {
  let t: Tenant;
  let big: TeamFixture;
  const TASKS = 50;
  const RELATED = EXPORT_PAGE + 25; // more than a page: the export streams

  beforeAll(async () => {
    t = await newTenant("Streamed Relations Co");
    big = await newTeam(t, { name: "Many" });
    await withDb(async (db) => {
      await db.execute(sql`insert into tasks (id, workspace_id, team_id, number, title)
        select pm_typeid('task'), ${t.workspaceId}, ${big.id}, n, 'T' || n from generate_series(1, ${TASKS}) n`);
      await db.execute(sql`update teams set task_counter = ${TASKS} where id = ${big.id}`);
      // `related` between the first pairs of tasks, lower id first as stored; and a chain T1 blocks T2 blocks … T50.
      await db.execute(sql`insert into task_relations (id, workspace_id, type, source_task_id, target_task_id, source_team_id, target_team_id, creator_id)
        select pm_typeid('rel'), ${t.workspaceId}, 'related', least(x.id, y.id), greatest(x.id, y.id), ${big.id}, ${big.id}, ${t.owner.userId}
        from tasks x join tasks y on x.team_id = y.team_id and x.number < y.number where x.team_id = ${big.id}
        order by x.number, y.number limit ${RELATED}`);
      await db.execute(sql`insert into task_relations (id, workspace_id, type, source_task_id, target_task_id, source_team_id, target_team_id, creator_id)
        select pm_typeid('rel'), ${t.workspaceId}, 'blocks', x.id, y.id, ${big.id}, ${big.id}, ${t.owner.userId}
        from tasks x join tasks y on y.team_id = x.team_id and y.number = x.number + 1 where x.team_id = ${big.id}`);
    });
  });

  it("streams more than a page of relations, each once, and they import back whole", async () => {
    const res = await fetchApp(new Request(`http://api.test/teams/${big.id}/export`, { headers: { "svc-api-key": t.owner.key } }));
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let [text, chunks] = ["", 0];
    for (let part = await reader.read(); !part.done; part = await reader.read(), chunks++)
      text += decoder.decode(part.value, { stream: true });
    expect(chunks).toBeGreaterThan(2);
    const doc: Doc = JSON.parse(text + decoder.decode());
    expect(doc.data.relations).toHaveLength(RELATED + TASKS - 1);
    expect(new Set(doc.data.relations.map((r) => r.id)).size).toBe(RELATED + TASKS - 1);
    expect((doc.data.users as Array<{ id: string }>).map((u) => u.id)).toContain(t.owner.userId);

    const copy = await newTeam(t, { name: "Many copy" });
    const imported = await api("POST", `/teams/${copy.id}/import`, { body: { data: doc, update: false }, key: t.owner.key });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(relationsOf((await get(`/teams/${copy.id}/export`, t.owner.key)).body)).toEqual(relationsOf(doc));
  });

  it("an import in parts takes relations in any part, before their tasks too, by the same rules", async () => {
    const doc: Doc = (await get(`/teams/${big.id}/export`, t.owner.key)).body;
    const { tasks, relations, ...head } = doc.data;
    const empty = { users: [], labels: [], fields: [], teams: [], projects: [], milestones: [], tasks: [], comments: [], relations: [] };
    const part = (data: Record<string, unknown>) => ({ ...doc, data: { ...empty, root: doc.data.root, ...data } });
    const send = async (parts: unknown[]) => {
      const opened = await post("/imports", { teamId: copy.id }, t.owner.key);
      expect(opened.status).toBe(201);
      for (const [i, data] of parts.entries())
        expect((await api("PUT", `/imports/${opened.body.import.id}/parts/${i + 1}`, { body: { data }, key: t.owner.key })).status).toBe(
          200,
        );
      return post(`/imports/${opened.body.import.id}/commit`, undefined, t.owner.key);
    };
    const copy = await newTeam(t, { name: "Parts copy" });
    // The last task closes the chain: T50 blocks T1 is a cycle, refused at the commit, naming the part.
    const [first, last] = [tasks[0], tasks[tasks.length - 1]];
    const cycle = { ...relations[0], id: "rel_cycle", type: "blocks", sourceTaskId: last.id, targetTaskId: first.id };
    const held = await counts(t.workspaceId);
    const refused = await send([
      part({ ...head, relations: [cycle, ...relations.slice(0, 10)] }),
      part({ tasks }),
      part({ relations: relations.slice(10) }),
    ]);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["parts.1.data.data.relations.0"]);
    expect(await counts(t.workspaceId)).toEqual(held);

    const ok = await send([
      part({ ...head, relations: relations.slice(0, 10) }),
      part({ tasks }),
      part({ relations: relations.slice(10) }),
    ]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(relationsOf((await get(`/teams/${copy.id}/export`, t.owner.key)).body)).toEqual(relationsOf(doc));
  });
});
