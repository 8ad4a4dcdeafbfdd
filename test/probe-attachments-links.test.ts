// An outsider's probe of links, attachments and relations through HTTP: what a key that reads a task reads of it.
// A `<records>:write` scope reads its records and, for comments, the tasks they are on (docs/api.md, "Least
// privilege"); whoever reads a task reads its links and relations, as they come embedded in its answer.
import { beforeAll, describe, expect, it } from "vitest";
import { get, post } from "./helpers/api";
import { upload } from "./helpers/attachments";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";
import { keyWith } from "./helpers/least-privilege";

describe("probe: a comments:write key reads what its task shows", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let a: { id: string; reference: string };
  let b: { id: string; reference: string };

  beforeAll(async () => {
    t = await newTenant("Probe Co");
    eng = await newTeam(t, { prefix: "PRB" });
    a = (await post("/tasks", { title: "A", teamId: eng.id }, t.owner.key)).body.task;
    b = (await post("/tasks", { title: "B", teamId: eng.id }, t.owner.key)).body.task;
    expect((await post(`/tasks/${a.id}/links`, { url: "https://example.com/pr/1" }, t.owner.key)).status).toBe(201);
    expect((await post(`/tasks/${a.id}/relations`, { type: "blocks", taskId: b.id }, t.owner.key)).status).toBe(201);
  });

  it("lists the links and relations of a task it reads, as the task's answer embeds them", async () => {
    const key = await keyWith(t.owner.key, { scopes: ["comments:write"] });
    const task = await get(`/tasks/${a.reference}?fields=links{url},relations{type}`, key);
    expect(task.status, JSON.stringify(task.body)).toBe(200);
    expect(task.body.task).toEqual({ links: [{ url: "https://example.com/pr/1" }], relations: [{ type: "blocks" }] });

    const links = await get(`/tasks/${a.reference}/links`, key);
    expect(links.status, JSON.stringify(links.body)).toBe(200);
    expect(links.body.links.map((l: { url: string }) => l.url)).toEqual(["https://example.com/pr/1"]);
    const relations = await get(`/tasks/${a.reference}/relations`, key);
    expect(relations.status, JSON.stringify(relations.body)).toBe(200);
    expect(relations.body.relations.map((r: { type: string }) => r.type)).toEqual(["blocks"]);
    expect((await get("/me", key)).body.reads).toEqual(expect.arrayContaining(["links", "relations"]));
  });

  it("a key with a scope that reads no tasks still gets 403 naming read", async () => {
    const key = await keyWith(t.owner.key, { scopes: ["labels:write"] });
    const res = await get(`/tasks/${a.reference}/links`, key);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: "FORBIDDEN", message: expect.any(String), details: { requiredScope: "read" } } });
  });
});

describe("probe: an import checks a file entry by the upload's rules", () => {
  // A team's export holding one file, a team to import it into, and the import of the export with its file entry changed.
  async function filedExport(name: string, prefixes: [string, string]) {
    const t = await newTenant(name);
    const source = await newTeam(t, { prefix: prefixes[0] });
    const task = (await post("/tasks", { title: "filed", teamId: source.id }, t.owner.key)).body.task;
    expect((await upload(`/tasks/${task.id}`, t.owner.key, new TextEncoder().encode("x"), "shot.png")).status).toBe(201);
    const doc = (await get(`/teams/${source.id}/export`, t.owner.key)).body;
    const target = await newTeam(t, { prefix: prefixes[1] });
    return {
      importWith: (change: Record<string, unknown>) => {
        const data = { ...doc, data: { ...doc.data, attachments: [{ ...doc.data.attachments[0], ...change }] } };
        return post(`/teams/${target.id}/import`, { data, update: false }, t.owner.key);
      },
      imported: async () => (await get(`/tasks?filter[eq][teamId]=${target.id}`, t.owner.key)).body.tasks,
    };
  }

  it("a file name an upload refuses (a path, a control character) is 422 at its path, and nothing is imported", async () => {
    const { importWith, imported } = await filedExport("Probe Files", ["PSRC", "PDST"]);
    for (const filename of ["../../etc/passwd", "a\\b", "line\nbreak", "\u202egnp.exe", "c1\u0085.txt"]) {
      const res = await importWith({ filename });
      expect(res.status, `${JSON.stringify(filename)}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body).toEqual({
        errors: {
          "data.data.attachments.0.filename": ["Must be a file name: no control or direction-override characters, no / or \\, not . or .."],
        },
      });
    }
    expect(await imported()).toEqual([]);
  });

  it("a file on a task or comment the document does not hold is 422 at that id, and nothing is imported", async () => {
    const { importWith, imported } = await filedExport("Probe Filed", ["PFSR", "PFDS"]);
    const cases = [
      [{ taskId: "task_nope" }, "data.data.attachments.0.taskId", "Not a task of the export"],
      [{ commentId: "cmnt_nope" }, "data.data.attachments.0.commentId", "Not a comment of the export"],
    ] as const;
    for (const [change, path, message] of cases) {
      const res = await importWith(change);
      expect([res.status, res.body]).toEqual([422, { errors: { [path]: [message] } }]);
    }
    expect(await imported()).toEqual([]);
  });
});
