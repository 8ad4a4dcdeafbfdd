// Attachments in export and import (docs/api.md, "Attachments"): an export carries the files of its tasks and their
// comments with `path` (where `pm export --files` stores the bytes, by content); an import accepts them and skips them.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { EXPORT_PAGE } from "../../../src/resources/transfer/export";
import { api, fetchApp, get, post } from "../../helpers/api";
import { upload } from "../../helpers/attachments";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
const sha256 = async (bytes: Uint8Array) => hex(await crypto.subtle.digest("SHA-256", bytes));

describe("attachments in export and import", () => {
  let t: Tenant;
  let team: TeamFixture;
  let task: { id: string; reference: string };
  let other: { id: string };
  let comment: { id: string };
  const bytes = new TextEncoder().encode("exported bytes\n");

  beforeAll(async () => {
    t = await newTenant("Files Transfer Co");
    team = await newTeam(t, { name: "Filed" });
    const elsewhere = await newTeam(t, { name: "Apart" });
    task = (await post("/tasks", { teamId: team.id, title: "With files" }, t.owner.key)).body.task;
    other = (await post("/tasks", { teamId: elsewhere.id, title: "Not exported" }, t.owner.key)).body.task;
    comment = (await post("/comments", { taskId: task.id, content: "see log" }, t.owner.key)).body.comment;
    expect((await upload(`/tasks/${task.id}`, t.owner.key, bytes, "a.txt")).status).toBe(201);
    expect((await upload(`/comments/${comment.id}`, t.owner.key, bytes, "log.txt")).status).toBe(201);
    expect((await upload(`/tasks/${other.id}`, t.owner.key, bytes, "x.txt")).status).toBe(201);
  });

  it("a team, task or workspace export carries its tasks' and comments' files, each with a content-addressed path", async () => {
    const digest = await sha256(bytes);
    const doc = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    expect(doc.data.attachments).toEqual([
      {
        id: expect.stringMatching(/^att_/),
        taskId: task.id,
        commentId: null,
        filename: "a.txt",
        contentType: "text/plain",
        size: bytes.byteLength,
        sha256: digest,
        path: `files/${digest}`,
        createdBy: t.owner.userId,
        createdAt: expect.any(String),
      },
      expect.objectContaining({ taskId: task.id, commentId: comment.id, filename: "log.txt", path: `files/${digest}` }),
    ]);
    const ofTask = (await get(`/tasks/${task.reference}/export`, t.owner.key)).body;
    expect(ofTask.data.attachments.map((a: { filename: string }) => a.filename)).toEqual(["a.txt", "log.txt"]);
    const whole = (await get(`/workspaces/${t.workspaceId}/export`, t.owner.key)).body;
    expect(whole.data.attachments.map((a: { filename: string }) => a.filename).sort()).toEqual(["a.txt", "log.txt", "x.txt"]);
  });

  it("an import accepts the files and restores none (their bytes are not in the document); a bad one is a 422", async () => {
    const doc = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    const target = await newTeam(t, { name: "Copy" });
    const res = await api("POST", `/teams/${target.id}/import`, { body: { data: doc, update: false }, key: t.owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const copied = (await get(`/teams/${target.id}/export`, t.owner.key)).body.data;
    expect(copied.tasks.map((c: { title: string }) => c.title)).toEqual(["With files"]);
    expect(copied.comments).toHaveLength(1);
    expect(copied.attachments).toEqual([]);

    doc.data.attachments[0].path = "../etc/passwd";
    const bad = await api("POST", `/teams/${target.id}/import`, { body: { data: doc, update: false }, key: t.owner.key });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain("attachments");
  });

  it("an import answers where each filed task and comment went, by id: two tasks of the same title keep their own files", async () => {
    const twins = await newTeam(t, { name: "Twins" });
    const first = (await post("/tasks", { teamId: twins.id, title: "Same", description: "first" }, t.owner.key)).body.task;
    const second = (await post("/tasks", { teamId: twins.id, title: "Same", description: "second" }, t.owner.key)).body.task;
    await post("/tasks", { teamId: twins.id, title: "Same", description: "no file" }, t.owner.key);
    const note = (await post("/comments", { taskId: second.id, content: "same text" }, t.owner.key)).body.comment;
    await post("/comments", { taskId: first.id, content: "same text" }, t.owner.key);
    for (const [path, name] of [
      [`/tasks/${first.id}`, "1.txt"],
      [`/tasks/${second.id}`, "2.txt"],
      [`/comments/${note.id}`, "c.txt"],
    ])
      expect((await upload(path, t.owner.key, bytes, name)).status).toBe(201);
    const doc = (await get(`/teams/${twins.id}/export`, t.owner.key)).body;
    const description = async (id: string) => (await get(`/tasks/${id}`, t.owner.key)).body.task.description;

    const target = await newTeam(t, { name: "Twins copy" });
    const res = await post(`/teams/${target.id}/import`, { data: doc, update: false }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.imported.id).toBe(target.id);
    const { tasks, comments } = res.body.ids;
    // Only the records files hang on, each a new record of the target.
    expect(Object.keys(tasks).sort()).toEqual([first.id, second.id].sort());
    expect(Object.keys(comments)).toEqual([note.id]);
    expect([await description(tasks[first.id]), await description(tasks[second.id])]).toEqual(["first", "second"]);
    const copied = (await get(`/comments/${comments[note.id]}`, t.owner.key)).body.comment;
    expect(copied).toMatchObject({ taskId: tasks[second.id], content: "same text" });

    // Sent in parts, the commit answers the same way.
    const parted = await newTeam(t, { name: "Twins parted" });
    const open = (await post("/imports", { teamId: parted.id }, t.owner.key)).body.import;
    // The files in a part of their own: every other collection is empty there (a record is in one part).
    const none = Object.fromEntries(Object.entries(doc.data).map(([k, v]) => [k, Array.isArray(v) ? [] : v]));
    for (const [n, data] of [
      [1, { ...doc.data, attachments: [] }],
      [2, { ...none, attachments: doc.data.attachments }],
    ] as const)
      expect((await api("PUT", `/imports/${open.id}/parts/${n}`, { body: { data: { ...doc, data } }, key: t.owner.key })).status).toBe(200);
    const viaParts = await post(`/imports/${open.id}/commit`, undefined, t.owner.key);
    expect(viaParts.status, JSON.stringify(viaParts.body)).toBe(200);
    expect(viaParts.body.imported.id).toBe(parted.id);
    const placed = viaParts.body.ids;
    expect([await description(placed.tasks[first.id]), await description(placed.tasks[second.id])]).toEqual(["first", "second"]);
    expect((await get(`/comments/${placed.comments[note.id]}`, t.owner.key)).body.comment.taskId).toBe(placed.tasks[second.id]);

    // With update into the team it came from, a kept record is itself.
    const again = await post(`/teams/${twins.id}/import`, { data: doc, update: true }, t.owner.key);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.ids).toEqual({ tasks: { [first.id]: first.id, [second.id]: second.id }, comments: { [note.id]: note.id } });

    // A document without files: nothing to place.
    const bare = { ...doc, data: { ...doc.data, attachments: [] } };
    expect((await post(`/teams/${target.id}/import`, { data: bare, update: false }, t.owner.key)).body.ids).toEqual({
      tasks: {},
      comments: {},
    });

    // A new workspace, whole or in parts: the records are the new workspace's.
    const whole = (await get(`/workspaces/${t.workspaceId}/export`, t.owner.key)).body;
    const inWorkspace = async (answer: any) => {
      const ws = answer.workspace.id;
      const ids = [first.id, second.id].map((id) => answer.ids.tasks[id]);
      const { rows } = await withDb((db) =>
        db.execute<{ description: string }>(
          sql`select description from tasks where workspace_id = ${ws} and id = any(${sql.param(ids)}::text[])
            order by array_position(${sql.param(ids)}::text[], id)`,
        ),
      );
      expect(rows.map((r) => r.description)).toEqual(["first", "second"]);
      const comment = await withDb((db) =>
        db.execute(sql`select task_id from comments where workspace_id = ${ws} and id = ${answer.ids.comments[note.id]}`),
      );
      expect(comment.rows).toEqual([{ task_id: answer.ids.tasks[second.id] }]);
    };
    const created = await post("/workspaces/import", { data: whole, update: false }, t.owner.key);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await inWorkspace(created.body);
    const opened = (await post("/imports", {}, t.owner.key)).body.import;
    expect((await api("PUT", `/imports/${opened.id}/parts/1`, { body: { data: whole }, key: t.owner.key })).status).toBe(200);
    const committed = await post(`/imports/${opened.id}/commit`, undefined, t.owner.key);
    expect(committed.status, JSON.stringify(committed.body)).toBe(201);
    expect(committed.headers.get("location")).toBe(`/workspaces/${committed.body.workspace.id}`);
    await inWorkspace(committed.body);
  });

  it("streams more than a page of files, each once", async () => {
    const big = await newTeam(t, { name: "Many files" });
    const one = (await post("/tasks", { teamId: big.id, title: "Full" }, t.owner.key)).body.task;
    const many = EXPORT_PAGE + 5;
    // The records alone (the export reads no bytes).
    await withDb((db) =>
      db.execute(sql`insert into attachments (id, workspace_id, team_id, task_id, filename, content_type, size, sha256, object_key, creator_id)
        select 'att_' || lpad(g::text, 26, '0'), ${t.workspaceId}, ${big.id}, ${one.id}, 'f' || g || '.txt', 'text/plain', 1,
          repeat('a', 64), ${t.workspaceId} || '/x' || g, ${t.owner.userId} from generate_series(1, ${many}) g`),
    );
    const res = await fetchApp(new Request(`http://api.test/teams/${big.id}/export`, { headers: { "svc-api-key": t.owner.key } }));
    expect(res.status).toBe(200);
    const doc = JSON.parse(await res.text());
    expect(doc.data.attachments).toHaveLength(many);
    expect(new Set(doc.data.attachments.map((a: { id: string }) => a.id)).size).toBe(many);
    expect(doc.data.attachments[0].path).toBe(`files/${"a".repeat(64)}`);
  });
});
