// Links in export and import (docs/api.md, "Links"): an export carries its tasks' links; an import writes them by the
// rules of POST /tasks/{id}/links (an http(s) URL, the parser's form, one link per URL a task), in its one transaction.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { EXPORT_PAGE } from "../../../src/resources/transfer/export";
import { api, fetchApp, get, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

type Link = { id: string; taskId: string; url: string; title: string | null; createdBy: string | null; createdAt: string };
type Doc = { type: string; data: { tasks: Array<{ id: string; title: string }>; links: Link[]; [k: string]: unknown } };

/** A document's links by their task's title, sorted: the same wherever they were imported. */
function linksOf(doc: Doc) {
  const title = new Map(doc.data.tasks.map((t) => [t.id, t.title]));
  return doc.data.links.map((l) => `${title.get(l.taskId)} ${l.url} ${l.title}`).sort();
}

const linkCount = (workspaceId: string) =>
  withDb(async (db) => {
    const { rows } = await db.execute<{ n: number }>(sql`select count(*)::int as n from task_links where workspace_id = ${workspaceId}`);
    return rows[0].n;
  });

describe("links in export and import", () => {
  let t: Tenant;
  let team: TeamFixture;
  let tasks: Record<"a" | "b" | "sub" | "x", { id: string; reference: string }>;
  const exportOf = async (path: string): Promise<Doc> => {
    const res = await get(path, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const importInto = (teamId: string, data: unknown, update = false) =>
    api("POST", `/teams/${teamId}/import`, { body: { data, update }, key: t.owner.key });

  beforeAll(async () => {
    t = await newTenant("Links Transfer Co");
    team = await newTeam(t, { name: "Linked" });
    const elsewhere = await newTeam(t, { name: "Elsewhere" });
    const project = (await post("/projects", { teamId: team.id, name: "Plan" }, t.owner.key)).body.project;
    const a = (await post("/tasks", { teamId: team.id, title: "A", projectId: project.id }, t.owner.key)).body.task;
    tasks = {
      a,
      b: (await post("/tasks", { teamId: team.id, title: "B" }, t.owner.key)).body.task,
      sub: (await post("/tasks", { teamId: team.id, title: "Sub", parentId: a.id }, t.owner.key)).body.task,
      x: (await post("/tasks", { teamId: elsewhere.id, title: "X" }, t.owner.key)).body.task,
    };
    for (const [task, url, title] of [
      ["a", "https://example.com/a", "PR"],
      ["a", "https://example.com/log", null],
      ["b", "https://example.com/b", "Doc"],
      ["sub", "http://example.com/sub", null],
      ["x", "https://example.com/x", null],
    ] as const)
      expect((await post(`/tasks/${tasks[task].id}/links`, { url, title }, t.owner.key)).status).toBe(201);
  });

  it("a team, project, task or workspace export carries the links of its tasks", async () => {
    const doc = await exportOf(`/teams/${team.id}/export`);
    expect(linksOf(doc)).toEqual(
      [
        "A https://example.com/a PR",
        "A https://example.com/log null",
        "B https://example.com/b Doc",
        "Sub http://example.com/sub null",
      ].sort(),
    );
    expect(doc.data.links[0]).toEqual({
      id: expect.stringMatching(/^lnk_/),
      taskId: tasks.a.id,
      url: "https://example.com/a",
      title: "PR",
      createdBy: t.owner.userId,
      createdAt: expect.any(String),
    });
    const project = (doc.data.projects as Array<{ id: string }>)[0];
    expect(linksOf(await exportOf(`/projects/${project.id}/export`))).toEqual([
      "A https://example.com/a PR",
      "A https://example.com/log null",
    ]);
    expect(linksOf(await exportOf(`/tasks/${tasks.a.reference}/export`))).toEqual(
      ["A https://example.com/a PR", "A https://example.com/log null", "Sub http://example.com/sub null"].sort(),
    );
    expect((await exportOf(`/workspaces/${t.workspaceId}/export`)).data.links).toHaveLength(5);
  });

  it("a team round trip: new ids, the same links, each written with its link.created event in its task's history", async () => {
    const copy = await newTeam(t, { name: "Linked copy" });
    const doc = await exportOf(`/teams/${team.id}/export`);
    const res = await importInto(copy.id, doc);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const again = await exportOf(`/teams/${copy.id}/export`);
    expect(linksOf(again)).toEqual(linksOf(doc));
    const ids = new Set(doc.data.links.map((l) => l.id));
    expect(again.data.links.every((l) => !ids.has(l.id))).toBe(true);
    const copiedA = again.data.tasks.find((x) => x.title === "A") as { id: string };
    const listed = (await get(`/tasks/${copiedA.id}/links`, t.owner.key)).body.links;
    expect(listed.map((l: Link) => l.url)).toEqual(["https://example.com/a", "https://example.com/log"]);
    const history = (await get(`/tasks/${copiedA.id}/history`, t.owner.key)).body.events.map((e: { type: string }) => e.type);
    expect(history.filter((type: string) => type === "link.created")).toHaveLength(2);
  });

  it("update:true keeps the links the target has (by id, or its task's URL) and adds the others once", async () => {
    const target = await newTeam(t, { name: "Upd links" });
    const p = (await post("/tasks", { teamId: target.id, title: "P" }, t.owner.key)).body.task;
    const kept = (await post(`/tasks/${p.id}/links`, { url: "https://example.com/p" }, t.owner.key)).body.link;
    const doc = await exportOf(`/teams/${target.id}/export`);
    // The same link again under a new id and spelled otherwise, and a new one.
    doc.data.links.push({ ...kept, id: "lnk_other", url: "HTTPS://EXAMPLE.com/p", title: "Again" });
    doc.data.links.push({ ...kept, id: "lnk_new", url: "https://example.com/q", title: "Q" });
    const before = await linkCount(t.workspaceId);
    const res = await importInto(target.id, doc, true);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const links = (await get(`/tasks/${p.id}/links`, t.owner.key)).body.links;
    expect(links.map((l: Link) => [l.url, l.title])).toEqual([
      ["https://example.com/p", null],
      ["https://example.com/q", "Q"],
    ]);
    expect(links[0]).toEqual(kept);
    expect(await linkCount(t.workspaceId)).toBe(before + 1);
  });

  it("update:true keeps a link the target has by its id even when the document spells another URL: links never change", async () => {
    const target = await newTeam(t, { name: "Upd link ids" });
    const p = (await post("/tasks", { teamId: target.id, title: "P" }, t.owner.key)).body.task;
    const kept = (await post(`/tasks/${p.id}/links`, { url: "https://example.com/kept" }, t.owner.key)).body.link;
    const doc = await exportOf(`/teams/${target.id}/export`);
    doc.data.links[0].url = "https://example.com/changed";
    const before = await linkCount(t.workspaceId);
    const res = await importInto(target.id, doc, true);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await get(`/tasks/${p.id}/links`, t.owner.key)).body.links).toEqual([kept]);
    expect(await linkCount(t.workspaceId)).toBe(before);
  });

  it("refuses a link that is not an http(s) URL, or is on a task outside the export, naming it; nothing is written", async () => {
    const copy = await newTeam(t, { name: "Refused links" });
    const doc = await exportOf(`/teams/${team.id}/export`);
    const before = await linkCount(t.workspaceId);
    const bad = structuredClone(doc);
    bad.data.links[1].url = "javascript:alert(1)";
    const refused = await importInto(copy.id, bad);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["data.data.links.1.url"]);
    const outside = structuredClone(doc);
    outside.data.links[0].taskId = tasks.x.id;
    const refusedOutside = await importInto(copy.id, outside);
    expect(refusedOutside.status).toBe(422);
    expect(Object.keys(refusedOutside.body.errors)).toEqual(["data.data.links.0.taskId"]);
    expect(await linkCount(t.workspaceId)).toBe(before);
    expect((await get(`/teams/${copy.id}/export`, t.owner.key)).body.data.tasks).toEqual([]);
  });
});

describe("links in a streamed export and an import in parts", () => {
  let t: Tenant;
  let big: TeamFixture;
  const TASKS = 20;
  const LINKS = EXPORT_PAGE + 25; // more than a page: the export streams

  beforeAll(async () => {
    t = await newTenant("Streamed Links Co");
    big = await newTeam(t, { name: "Many links" });
    await withDb(async (db) => {
      await db.execute(sql`insert into tasks (id, workspace_id, team_id, number, title)
        select pm_typeid('task'), ${t.workspaceId}, ${big.id}, n, 'T' || n from generate_series(1, ${TASKS}) n`);
      await db.execute(sql`update teams set task_counter = ${TASKS} where id = ${big.id}`);
      await db.execute(sql`insert into task_links (id, workspace_id, team_id, task_id, url, created_by)
        select pm_typeid('lnk'), ${t.workspaceId}, ${big.id}, t.id, 'https://example.com/' || n, ${t.owner.userId}
        from generate_series(1, ${LINKS}) n join tasks t on t.team_id = ${big.id} and t.number = 1 + n % ${TASKS}`);
    });
  });

  it("streams more than a page of links, each once; an import in parts takes them in a part of their own", async () => {
    const res = await fetchApp(new Request(`http://api.test/teams/${big.id}/export`, { headers: { "svc-api-key": t.owner.key } }));
    expect(res.status).toBe(200);
    const doc: Doc = JSON.parse(await res.text());
    expect(doc.data.links).toHaveLength(LINKS);
    expect(new Set(doc.data.links.map((l) => l.id)).size).toBe(LINKS);

    const copy = await newTeam(t, { name: "Parts copy" });
    const { tasks, links, ...head } = doc.data;
    const empty = {
      users: [],
      labels: [],
      fields: [],
      teams: [],
      projects: [],
      milestones: [],
      tasks: [],
      comments: [],
      relations: [],
      links: [],
    };
    const part = (data: Record<string, unknown>) => ({ ...doc, data: { ...empty, root: doc.data.root, ...data } });
    const opened = await post("/imports", { teamId: copy.id }, t.owner.key);
    expect(opened.status).toBe(201);
    // The links before their tasks: written after them all the same.
    for (const [i, data] of [part({ ...head, links }), part({ tasks })].entries()) {
      const put = await api("PUT", `/imports/${opened.body.import.id}/parts/${i + 1}`, { body: { data }, key: t.owner.key });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    const committed = await post(`/imports/${opened.body.import.id}/commit`, undefined, t.owner.key);
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    const again: Doc = JSON.parse(
      await (await fetchApp(new Request(`http://api.test/teams/${copy.id}/export`, { headers: { "svc-api-key": t.owner.key } }))).text(),
    );
    expect(linksOf(again)).toEqual(linksOf(doc));
  });
});
