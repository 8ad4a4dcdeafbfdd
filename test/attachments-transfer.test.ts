// Attachments in export and import (docs/api.md, "Attachments"): an export carries the files of its tasks and their
// comments with `path` (where `pm export --files` stores the bytes, by content); an import accepts them and skips them.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { EXPORT_PAGE } from "../src/resources/transfer/export";
import { api, fetchApp, get, post } from "./helpers/api";
import { upload } from "./helpers/attachments";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "./helpers/fixtures";

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
