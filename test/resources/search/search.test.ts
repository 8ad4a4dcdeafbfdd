import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { RANKED_MATCHES } from "../../../src/resources/search/queries";
import { get, patch, post } from "../../helpers/api";
import { newTeam, newTenant, type Tenant, withDb } from "../../helpers/fixtures";

const search = (query: string, key: string) => get(`/search?${query}`, key);

describe("search", () => {
  let t: Tenant;
  let other: Tenant;
  let titled: string;
  let described: string;
  let exactRef: string;
  beforeAll(async () => {
    t = await newTenant("Search Co");
    other = await newTenant("Search Elsewhere");
    const team = await newTeam(t, { prefix: "SRC" });
    const task = async (title: string, description = "") =>
      (await post("/tasks", { title, description, teamId: team.id }, t.owner.key)).body.task;
    exactRef = (await task("Nothing to see", "plain words")).reference;
    titled = (await task("Flux capacitor repair", "needs parts")).id;
    described = (await task("Garage cleanup", "the flux capacitor sits behind <b>boxes</b>")).id;
    for (let i = 0; i < 7; i++) await task(`Widget ${i}`, `widget note number ${i}`);
    const project = (await post("/projects", { name: "Flux programme", teamId: team.id }, t.owner.key)).body.project;
    expect((await post("/milestones", { name: "Flux alpha", projectId: project.id }, t.owner.key)).status).toBe(201);
    const otherTeam = await newTeam(other, { prefix: "SRC" });
    for (const title of ["Flux capacitor elsewhere", "Widget elsewhere"])
      await post("/tasks", { title, teamId: otherTeam.id }, other.owner.key);
  });

  it("ranks a title match above a description match, with a marked snippet, in one query", async () => {
    const res = await search("q=flux%20capacitor&types=task", t.owner.key);
    expect(res.status).toBe(200);
    expect(res.queries).toBe(1);
    const ids = res.body.results.map((r: { id: string }) => r.id);
    expect(ids).toEqual([titled, described]);
    const [first, second] = res.body.results;
    expect(first).toMatchObject({ type: "task", title: "Flux capacitor repair", reference: expect.stringMatching(/^SRC-\d+$/) });
    expect(first.score).toBeGreaterThan(second.score);
    expect(second.snippet).toContain("«flux» «capacitor»");
    expect(second.snippet).not.toContain("<b>"); // the parser drops markup: the snippet is plain text
    expect(first.snippet).toContain("«Flux»"); // the description has no match: the title's headline
  });

  it("puts an exact reference first, in any case", async () => {
    const res = await search(`q=${exactRef.toLowerCase()}`, t.owner.key);
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ reference: exactRef, score: 1000 });
  });

  it("filters by types and searches projects and milestones", async () => {
    const all = await search("q=flux", t.owner.key);
    expect(new Set(all.body.results.map((r: { type: string }) => r.type))).toEqual(new Set(["task", "project", "milestone"]));
    const some = await search("q=flux&types=project,milestone", t.owner.key);
    expect(some.body.results.map((r: { type: string }) => r.type).sort()).toEqual(["milestone", "project"]);
    expect(some.body.results.find((r: { type: string }) => r.type === "project").reference).toMatch(/^SRC-P\d+$/);
    expect(some.body.results.find((r: { type: string }) => r.type === "milestone").reference).toBeUndefined();
  });

  it("pages with a cursor without duplicates or omissions, never showing another workspace", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Awaited<ReturnType<typeof search>> = await search(
        `q=widget&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        t.owner.key,
      );
      expect(res.status).toBe(200);
      expect(res.queries).toBe(1);
      seen.push(...res.body.results.map((r: { id: string }) => r.id));
      cursor = res.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    const once = await search("q=widget&limit=250", t.owner.key);
    expect(once.body.results.map((r: { id: string }) => r.id)).toEqual(seen);
  });

  it("keeps workspaces apart: results and cursors", async () => {
    const mine = await search("q=elsewhere", t.owner.key);
    expect(mine.status).toBe(200);
    expect(mine.body.results).toEqual([]);
    const page = await search("q=widget&limit=1", t.owner.key);
    const foreign = await search(`q=widget&limit=1&cursor=${encodeURIComponent(page.body.pagination.nextCursor)}`, other.owner.key);
    expect(foreign.status).toBe(400);
    const otherQuery = await search(`q=flux&limit=1&cursor=${encodeURIComponent(page.body.pagination.nextCursor)}`, t.owner.key);
    expect(otherQuery.status).toBe(400);
  });

  // Migration 0015: the search indexes lead with the workspace, so a search finds only its own workspace's matches in the
  // index (its plan at a million tasks: docs/performance.md, "A million tasks"). Before, the index answered every
  // workspace's matches, and a search in a small workspace read a large neighbour's matching rows to drop them one by one.
  it("finds its matches in indexes that lead with the workspace", async () => {
    const { rows } = await withDb((db) =>
      db.execute(sql`select tablename, indexdef from pg_indexes where indexname like '%search_idx' order by tablename`),
    );
    const gin = (table: string) => ({ tablename: table, indexdef: expect.stringMatching(/USING gin \(workspace_id, search_vector\)$/) });
    expect(rows).toEqual([gin("milestones"), gin("projects"), gin("tasks")]);
  });

  // A search's cost is that of the matches it ranks (docs/performance.md, "Writes and search"): past RANKED_MATCHES text
  // matches of a type the rest are not ranked, so a very common word costs the same in a workspace of any size.
  it("ranks at most RANKED_MATCHES text matches of a type, and still puts an exact reference first", async () => {
    const many = await newTenant("Search Many");
    const team = await newTeam(many, { prefix: "MNY" });
    const count = RANKED_MATCHES + 10;
    await withDb((db) =>
      db.execute(sql`insert into tasks (id, workspace_id, team_id, number, title)
        select 'task_many' || i, ${many.workspaceId}, ${team.id}, i, 'common word ' || i from generate_series(1, ${count}) i`),
    );
    const seen = new Set<string>();
    let cursor: string | null = null;
    do {
      const res: Awaited<ReturnType<typeof search>> = await search(
        `q=common&types=task&limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        many.owner.key,
      );
      expect(res.status).toBe(200);
      expect(res.queries).toBe(1);
      for (const r of res.body.results) seen.add(r.id);
      cursor = res.body.pagination.nextCursor;
    } while (cursor);
    expect(seen.size).toBe(RANKED_MATCHES);
    // The last task stored is past the cap; named by its reference it still comes first.
    const exact = await search(`q=mny-${count}`, many.owner.key);
    expect(exact.body.results[0]).toMatchObject({ id: `task_many${count}`, reference: `MNY-${count}`, score: 1000 });
    expect(exact.body.results.filter((r: { id: string }) => r.id === `task_many${count}`)).toHaveLength(1);
  });

  it("follows writes of a title, name or description, and keeps its words through other writes", async () => {
    const team = await newTeam(t, { prefix: "SRW" });
    const ids = async (q: string) => (await search(`q=${q}`, t.owner.key)).body.results.map((r: { id: string }) => r.id);
    const task = (await post("/tasks", { title: "Quokka census", description: "count the wombats", teamId: team.id }, t.owner.key)).body
      .task;
    const project = (await post("/projects", { name: "Quokka park", description: "fences", teamId: team.id }, t.owner.key)).body.project;
    const milestone = (await post("/milestones", { name: "Quokka gate", projectId: project.id }, t.owner.key)).body.milestone;
    expect(new Set(await ids("quokka"))).toEqual(new Set([task.id, project.id, milestone.id]));
    expect(await ids("wombats")).toEqual([task.id]);
    // A write that names neither keeps the vector as it was.
    expect((await patch(`/tasks/${task.id}`, { priority: "HIGH" }, t.owner.key)).status).toBe(200);
    expect((await patch(`/projects/${project.id}`, { status: "COMPLETED" }, t.owner.key)).status).toBe(200);
    expect(new Set(await ids("quokka"))).toEqual(new Set([task.id, project.id, milestone.id]));
    // A new title, name or description is searched by its words, and no longer by the old ones.
    expect((await patch(`/tasks/${task.id}`, { description: "count the numbats" }, t.owner.key)).status).toBe(200);
    expect((await patch(`/projects/${project.id}`, { name: "Dingo park" }, t.owner.key)).status).toBe(200);
    expect((await patch(`/milestones/${milestone.id}`, { description: "platypus crossing" }, t.owner.key)).status).toBe(200);
    expect(await ids("wombats")).toEqual([]);
    expect(await ids("numbats")).toEqual([task.id]);
    expect(new Set(await ids("quokka"))).toEqual(new Set([task.id, milestone.id]));
    expect(await ids("dingo")).toEqual([project.id]);
    expect(await ids("platypus")).toEqual([milestone.id]);
  });

  it("rejects bad input with 422, a bad cursor with 400, no credential with 401", async () => {
    for (const query of ["", "q=", "q=%20%20", `q=${"a".repeat(201)}`, "q=x&types=task,user", "q=x&limit=0", "q=x&limit=251"]) {
      const res = await search(query, t.owner.key);
      expect(res.status, query).toBe(422);
      expect(res.body.errors).toBeDefined();
    }
    expect((await search("q=x&cursor=nope", t.owner.key)).status).toBe(400);
    expect((await get("/search?q=x")).status).toBe(401);
    expect((await search("q=x", "pm_bad")).status).toBe(401);
  });

  it("treats websearch syntax as data, never an error", async () => {
    for (const q of ['"unterminated', "-", "a & b | !c", "(((", "'"]) {
      expect((await search(`q=${encodeURIComponent(q)}`, t.owner.key)).status, q).toBe(200);
    }
  });
});
