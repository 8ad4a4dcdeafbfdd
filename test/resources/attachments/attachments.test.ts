// Attachments (docs/api.md, "Attachments"): upload, list, read, download (headers, ETag, Range), delete, the limits,
// the digest, rights and tenancy, through HTTP against the real database and miniflare's R2.
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, post, testEnv } from "../../helpers/api";
import { send, upload } from "../../helpers/attachments";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";
import { keyWith } from "../../helpers/least-privilege";

const ATT_ID = /^att_[0-9a-z]{26}$/;
const FILES_REFUSAL = "Only the comment's author or a workspace ADMIN may add or remove its files";

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
const sha256 = async (bytes: Uint8Array) => hex(await crypto.subtle.digest("SHA-256", bytes));
const digestHeader = async (bytes: Uint8Array) =>
  `sha-256=:${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))))}:`;

const objectCount = async (workspaceId: string) => (await testEnv.FILES.list({ prefix: `${workspaceId}/` })).objects.length;

describe("attachments", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let member: Member;
  let viewer: Member;
  let task: { id: string; reference: string };
  const text = new TextEncoder().encode("hello, attachments\n");

  beforeAll(async () => {
    t = await newTenant("Files Co");
    eng = await newTeam(t, { prefix: "FIL", name: "Files" });
    member = await addMember(t, "MEMBER");
    await joinTeam(eng, member, "MEMBER");
    viewer = await addMember(t, "MEMBER");
    await joinTeam(eng, viewer, "VIEWER");
    task = (await post("/tasks", { teamId: eng.id, title: "with files" }, t.owner.key)).body.task;
  });

  it("refuses the JSON {} (a JSON-encoded Blob: 400 naming the fix, nothing stored); a JSON file is stored as sent", async () => {
    const encoder = new TextEncoder();
    const count = async () => (await get(`/tasks/${task.id}/attachments?limit=250`, member.key)).body.attachments.length;
    const before = await count();
    for (const [type, body] of [
      ["application/json", "{}"],
      ["application/json; charset=utf-8", " { } "],
      ["application/problem+json", "{}"],
    ]) {
      const res = await upload(`/tasks/${task.reference}`, member.key, encoder.encode(body), "shot.png", { "content-type": type });
      expect(res.status, type).toBe(400);
      expect(res.body.error).toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/^The body is the JSON \{\}, not a file's bytes/),
      });
    }
    expect(await count()).toBe(before);
    const config = encoder.encode('{"retries":3}');
    const json = await upload(`/tasks/${task.reference}`, member.key, config, "config.json", { "content-type": "application/json" });
    expect(json.status, JSON.stringify(json.body)).toBe(201);
    expect(json.body.attachment).toMatchObject({ contentType: "application/json", size: config.byteLength, sha256: await sha256(config) });
    const empty = await upload(`/tasks/${task.reference}`, member.key, encoder.encode("{}"), "empty.bin", {
      "content-type": "application/octet-stream",
    });
    expect(empty.status).toBe(201);
  });

  it("uploads raw bytes to a task (201 with the record and Location), lists it, reads it and downloads the same bytes", async () => {
    const res = await upload(`/tasks/${task.reference}`, member.key, text, "notes.txt");
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.attachment).toEqual({
      id: expect.stringMatching(ATT_ID),
      taskId: task.id,
      commentId: null,
      filename: "notes.txt",
      contentType: "text/plain",
      size: text.byteLength,
      sha256: await sha256(text),
      createdBy: member.userId,
      createdAt: expect.any(String),
    });
    const id = res.body.attachment.id;
    expect(res.headers.get("location")).toBe(`/attachments/${id}`);
    expect((await get(`/attachments/${id}`, viewer.key)).body.attachment).toEqual(res.body.attachment);
    const list = await get(`/tasks/${task.id}/attachments`, viewer.key);
    expect(list.status).toBe(200);
    expect(list.body.attachments.map((a: { id: string }) => a.id)).toContain(id);

    const download = await send("GET", `/attachments/${id}/content`, viewer.key);
    expect(download.status).toBe(200);
    expect(new TextDecoder().decode(download.body)).toBe("hello, attachments\n");
    expect(download.headers.get("content-type")).toBe("text/plain");
    expect(download.headers.get("content-length")).toBe(String(text.byteLength));
    expect(download.headers.get("etag")).toBe(`"${await sha256(text)}"`);
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(download.headers.get("content-security-policy")).toBe("sandbox");
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`);
  });

  it("an HTML or SVG file downloads as an attachment under a sandbox, never as a page; a non-ASCII name is RFC 6266's filename*", async () => {
    const svg = new TextEncoder().encode(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`);
    const res = await upload(`/tasks/${task.id}`, member.key, svg, 'résumé "x".svg', { "content-type": "image/svg+xml" });
    expect(res.status).toBe(201);
    const download = await send("GET", `/attachments/${res.body.attachment.id}/content`, member.key);
    expect(download.headers.get("content-disposition")).toBe(
      `attachment; filename="r_sum_ _x_.svg"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22x%22.svg`,
    );
    expect(download.headers.get("content-security-policy")).toBe("sandbox");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("If-None-Match with the ETag is 304; Range is 206 with Content-Range; a range beyond the end is 416", async () => {
    const bytes = new TextEncoder().encode("0123456789");
    const id = (await upload(`/tasks/${task.id}`, member.key, bytes, "digits.txt")).body.attachment.id;
    const etag = `"${await sha256(bytes)}"`;
    const notModified = await send("GET", `/attachments/${id}/content`, member.key, { headers: { "if-none-match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);
    const part = await send("GET", `/attachments/${id}/content`, member.key, { headers: { range: "bytes=2-5" } });
    expect(part.status).toBe(206);
    expect(new TextDecoder().decode(part.body)).toBe("2345");
    expect(part.headers.get("content-range")).toBe("bytes 2-5/10");
    expect(part.headers.get("content-length")).toBe("4");
    const tail = await send("GET", `/attachments/${id}/content`, member.key, { headers: { range: "bytes=-3" } });
    expect([tail.status, new TextDecoder().decode(tail.body)]).toEqual([206, "789"]);
    const open = await send("GET", `/attachments/${id}/content`, member.key, { headers: { range: "bytes=7-" } });
    expect([open.status, new TextDecoder().decode(open.body), open.headers.get("content-range")]).toEqual([206, "789", "bytes 7-9/10"]);
    const beyond = await send("GET", `/attachments/${id}/content`, member.key, { headers: { range: "bytes=10-20" } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe("bytes */10");
    expect(beyond.body.error.code).toBe("RANGE_NOT_SATISFIABLE");
    // If-Range: the range only of the same bytes (its strong ETag); another tag or a date asks for the whole file.
    const same = await send("GET", `/attachments/${id}/content`, member.key, { headers: { range: "bytes=2-5", "if-range": etag } });
    expect([same.status, new TextDecoder().decode(same.body)]).toEqual([206, "2345"]);
    for (const ifRange of ['"other"', `W/${etag}`, "Thu, 26 Nov 2026 10:00:00 GMT"]) {
      const whole = await send("GET", `/attachments/${id}/content`, member.key, { headers: { range: "bytes=2-5", "if-range": ifRange } });
      expect([whole.status, new TextDecoder().decode(whole.body), whole.headers.get("content-range")]).toEqual([200, "0123456789", null]);
    }
    // No intermediary may compress or otherwise change the bytes their ETag and ranges describe.
    expect(part.headers.get("cache-control")).toBe("private, no-transform");
  });

  it("a matching Content-Digest is kept; one that does not match is 400 and nothing is stored", async () => {
    const ok = await upload(`/tasks/${task.id}`, member.key, text, "digest.txt", { "content-digest": await digestHeader(text) });
    expect(ok.status).toBe(201);
    const before = await objectCount(t.workspaceId);
    const other = new TextEncoder().encode("other bytes");
    const bad = await upload(`/tasks/${task.id}`, member.key, text, "digest.txt", { "content-digest": await digestHeader(other) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/Content-Digest/);
    expect(await objectCount(t.workspaceId)).toBe(before);
    const malformed = await upload(`/tasks/${task.id}`, member.key, text, "digest.txt", { "content-digest": "sha-256=:nope:" });
    expect(malformed.status).toBe(400);
  });

  it("a file over MAX_ATTACHMENT_BYTES is 413 before any byte is stored; the filename is checked (422)", async () => {
    const before = await objectCount(t.workspaceId);
    const big = await send("POST", `/tasks/${task.id}/attachments?filename=big.bin`, member.key, {
      body: new Uint8Array(25 * 1024 * 1024 + 1),
      headers: { "content-length": String(25 * 1024 * 1024 + 1) },
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await objectCount(t.workspaceId)).toBe(before);
    expect((await upload(`/tasks/${task.id}`, member.key, text, "a/b.txt")).status).toBe(422);
    expect((await send("POST", `/tasks/${task.id}/attachments`, member.key, { body: text })).status).toBe(422);
  });

  it("a workspace's files beyond its limit are 413, nothing stored (the limit counts what it stores)", async () => {
    const small = await newTenant("Full Co");
    const team = await newTeam(small, { prefix: "FULL" });
    const own = (await post("/tasks", { teamId: team.id, title: "full" }, small.owner.key)).body.task;
    // Fill the workspace to 1 byte under its limit with a record (its bytes are not needed for the count).
    await withDb((db) =>
      db.execute(
        `insert into attachments (id, workspace_id, team_id, task_id, filename, content_type, size, sha256, object_key)
         values ('att_fill${Date.now()}', '${small.workspaceId}', '${team.id}', '${own.id}', 'fill', 'x/y', ${1024 ** 3 - 5}, '${"0".repeat(64)}', 'fill/${Date.now()}')`,
      ),
    );
    const res = await upload(`/tasks/${own.id}`, small.owner.key, text, "over.txt");
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/workspace/);
    expect(await objectCount(small.workspaceId)).toBe(0);
    expect((await upload(`/tasks/${own.id}`, small.owner.key, new Uint8Array(4), "fits.bin")).status).toBe(201);
  });

  it("two concurrent uploads that fit alone but not together: one is stored, the other is 413 and leaves no bytes (refused at the first check or, after storing, at the record's)", async () => {
    const tight = await newTenant("Tight Co");
    const team = await newTeam(tight, { prefix: "TGT" });
    const own = (await post("/tasks", { teamId: team.id, title: "tight" }, tight.owner.key)).body.task;
    await withDb((db) =>
      db.execute(
        `insert into attachments (id, workspace_id, team_id, task_id, filename, content_type, size, sha256, object_key)
         values ('att_tight${Date.now()}', '${tight.workspaceId}', '${team.id}', '${own.id}', 'fill', 'x/y', ${1024 ** 3 - 6}, '${"0".repeat(64)}', 'tight/${Date.now()}')`,
      ),
    );
    // Each passes the first check (4 bytes fit in 6); the record's transaction, one workspace at a time, lets one in.
    const results = await Promise.all([0, 1].map(() => upload(`/tasks/${own.id}`, tight.owner.key, new Uint8Array(4), "race.bin")));
    expect(results.map((r) => r.status).sort()).toEqual([201, 413]);
    expect(await objectCount(tight.workspaceId)).toBe(1);
  });

  it("comments on tasks take files (commentId set, listed with the task); a project's comment does not (422)", async () => {
    const comment = (await post("/comments", { taskId: task.id, content: "see file" }, member.key)).body.comment;
    const res = await upload(`/comments/${comment.id}`, member.key, text, "log.txt");
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.attachment).toMatchObject({ taskId: task.id, commentId: comment.id });
    const list = await get(`/tasks/${task.id}/attachments?filter[eq][commentId]=${comment.id}`, member.key);
    expect(list.body.attachments.map((a: { id: string }) => a.id)).toEqual([res.body.attachment.id]);
    const project = (await post("/projects", { teamId: eng.id, name: "P" }, t.owner.key)).body.project;
    const onProject = (await post("/comments", { projectId: project.id, content: "x" }, t.owner.key)).body.comment;
    const refused = await upload(`/comments/${onProject.id}`, t.owner.key, text, "x.txt");
    expect(refused.status).toBe(422);
  });

  it("rights: a VIEWER reads but may not add or delete (403); a key without tasks:write may not upload; deleting is 204", async () => {
    expect((await upload(`/tasks/${task.id}`, viewer.key, text, "no.txt")).status).toBe(403);
    const readOnly = await keyWith(t.owner.key, { scopes: ["read"] });
    const refused = await upload(`/tasks/${task.id}`, readOnly, text, "no.txt");
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({ requiredScope: "tasks:write" });
    const id = (await upload(`/tasks/${task.id}`, member.key, text, "gone.txt")).body.attachment.id;
    expect((await del(`/attachments/${id}`, viewer.key)).status).toBe(403);
    expect((await del(`/attachments/${id}`, member.key)).status).toBe(204);
    expect((await get(`/attachments/${id}`, member.key)).status).toBe(404);
    expect((await send("GET", `/attachments/${id}/content`, member.key)).status).toBe(404);
  });

  it("scopes follow what a file hangs on: a task's needs tasks:write, a comment's comments:write, to add and to delete", async () => {
    const comment = (await post("/comments", { taskId: task.id, content: "scoped" }, member.key)).body.comment;
    const tasksOnly = await keyWith(member.key, { scopes: ["tasks:write"] });
    const commentsOnly = await keyWith(member.key, { scopes: ["comments:write"] });
    const refusedAdd = await upload(`/comments/${comment.id}`, tasksOnly, text, "no.txt");
    expect(refusedAdd.status).toBe(403);
    expect(refusedAdd.body.error.details).toEqual({ requiredScope: "comments:write" });
    const onComment = await upload(`/comments/${comment.id}`, commentsOnly, text, "c.txt");
    expect(onComment.status, JSON.stringify(onComment.body)).toBe(201);
    const onTask = (await upload(`/tasks/${task.id}`, tasksOnly, text, "t.txt")).body.attachment;
    // Each scope alone deletes only the files that need it: 403 naming the other, nothing deleted.
    const commentFile = await del(`/attachments/${onComment.body.attachment.id}`, tasksOnly);
    expect(commentFile.status).toBe(403);
    expect(commentFile.body.error.details).toEqual({ requiredScope: "comments:write" });
    const taskFile = await del(`/attachments/${onTask.id}`, commentsOnly);
    expect(taskFile.status).toBe(403);
    expect(taskFile.body.error.details).toEqual({ requiredScope: "tasks:write" });
    expect((await get(`/attachments/${onTask.id}`, member.key)).status).toBe(200);
    expect((await del(`/attachments/${onComment.body.attachment.id}`, commentsOnly)).status).toBe(204);
    expect((await del(`/attachments/${onTask.id}`, tasksOnly)).status).toBe(204);
  });

  it("a comment's files follow the comment's delete rule: its author or an ADMIN adds and deletes them", async () => {
    const other = await addMember(t, "MEMBER");
    await joinTeam(eng, other, "MEMBER");
    const comment = (await post("/comments", { taskId: task.id, content: "mine" }, member.key)).body.comment;
    // Another member of the team adds no file to someone else's comment, as they could not delete it.
    const added = await upload(`/comments/${comment.id}`, other.key, text, "no.txt");
    expect([added.status, added.body.error.message]).toEqual([403, FILES_REFUSAL]);
    // The OWNER, who may delete the comment but not edit its words, adds a file to it (an import's files land so).
    expect((await api("PATCH", `/comments/${comment.id}`, { key: t.owner.key, body: { content: "theirs" } })).status).toBe(403);
    const byOwner = await upload(`/comments/${comment.id}`, t.owner.key, text, "owner.txt");
    expect(byOwner.status).toBe(201);
    expect((await del(`/attachments/${byOwner.body.attachment.id}`, member.key)).status).toBe(204);
    const first = (await upload(`/comments/${comment.id}`, member.key, text, "a.txt")).body.attachment;
    const second = (await upload(`/comments/${comment.id}`, member.key, text, "b.txt")).body.attachment;
    const refused = await del(`/attachments/${first.id}`, other.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(FILES_REFUSAL);
    expect((await del(`/attachments/${first.id}`, t.owner.key)).status).toBe(204);
    expect((await del(`/attachments/${second.id}`, member.key)).status).toBe(204);
    // A task's files are the task's: any MEMBER of its team deletes them.
    const onTask = (await upload(`/tasks/${task.id}`, member.key, text, "t.txt")).body.attachment;
    expect((await del(`/attachments/${onTask.id}`, other.key)).status).toBe(204);
  });

  // In a workspace of their own: the objects of the other tests' deletes leave the bucket meanwhile, through the queue.
  const ownWorkspace = async (name: string) => {
    const r = await newTenant(name);
    const team = await newTeam(r, { prefix: "RTY" });
    const own = (await post("/tasks", { teamId: team.id, title: "retried" }, r.owner.key)).body.task;
    const other = await addMember(r, "MEMBER");
    await joinTeam(team, other, "MEMBER");
    return { r, own, other };
  };

  it("Idempotency-Key: a repeat of the same file gets the first answer and stores nothing; another file under the key is 422", async () => {
    const { r, own, other } = await ownWorkspace("Retried Files Co");
    const records = async () => (await get(`/tasks/${own.id}/attachments`, r.owner.key)).body.attachments.length;
    const before = await objectCount(r.workspaceId);
    const retried = (bytes: Uint8Array, name = "r.txt", key = r.owner.key) =>
      upload(`/tasks/${own.id}`, key, bytes, name, { "idempotency-key": "upload-once" });
    const first = await retried(text);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await retried(text);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(again.body).toEqual(first.body);
    expect([await records(), await objectCount(r.workspaceId)]).toEqual([1, before + 1]);
    // Other bytes (of the same length too), or another file name, under the key: 422 at the key, nothing stored.
    for (const [bytes, name] of [
      [new TextEncoder().encode("HELLO, ATTACHMENTS\n"), "r.txt"],
      [text, "other.txt"],
    ] as const) {
      const reused = await retried(bytes, name);
      expect(reused.status).toBe(422);
      expect(Object.keys(reused.body.errors)).toEqual(["Idempotency-Key"]);
    }
    expect([await records(), await objectCount(r.workspaceId)]).toEqual([1, before + 1]);
    // The key is the credential's: another caller's same key is an upload of its own.
    expect((await retried(text, "r.txt", other.key)).headers.get("idempotent-replayed")).toBeNull();
    expect(await records()).toBe(2);
  });

  it("Idempotency-Key: two uploads of one file at once leave one record and one object", async () => {
    const { r, own } = await ownWorkspace("Raced Files Co");
    const before = await objectCount(r.workspaceId);
    const both = await Promise.all(
      [0, 1].map(() => upload(`/tasks/${own.id}`, r.owner.key, text, "race.txt", { "idempotency-key": "upload-race" })),
    );
    // The later one gets the first's answer, or 409 while the first was still writing.
    const answered = both.filter((res) => res.status === 201);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(both.every((res) => res.status === 201 || res.status === 409)).toBe(true);
    expect(new Set(answered.map((res) => res.body.attachment.id)).size).toBe(1);
    expect((await get(`/tasks/${own.id}/attachments`, r.owner.key)).body.attachments).toHaveLength(1);
    expect(await objectCount(r.workspaceId)).toBe(before + 1);
  });

  it("another workspace's attachment is 404 on every route", async () => {
    const other = await newTenant("Other Files Co");
    const id = (await upload(`/tasks/${task.id}`, member.key, text, "mine.txt")).body.attachment.id;
    const comment = (await post("/comments", { taskId: task.id, content: "c" }, member.key)).body.comment;
    expect((await get(`/attachments/${id}`, other.owner.key)).status).toBe(404);
    expect((await send("GET", `/attachments/${id}/content`, other.owner.key)).status).toBe(404);
    expect((await del(`/attachments/${id}`, other.owner.key)).status).toBe(404);
    expect((await get(`/tasks/${task.id}/attachments`, other.owner.key)).status).toBe(404);
    expect((await upload(`/tasks/${task.id}`, other.owner.key, text, "x.txt")).status).toBe(404);
    expect((await upload(`/comments/${comment.id}`, other.owner.key, text, "x.txt")).status).toBe(404);
    expect((await get(`/attachments/${id}`, member.key)).status).toBe(200);
  });

  it("attachment.created and attachment.deleted are in the task's history", async () => {
    const own = (await post("/tasks", { teamId: eng.id, title: "history" }, t.owner.key)).body.task;
    const id = (await upload(`/tasks/${own.id}`, member.key, text, "h.txt")).body.attachment.id;
    await del(`/attachments/${id}`, member.key);
    const history = await api("GET", `/tasks/${own.id}/history`, { key: t.owner.key });
    const types = history.body.events.map((e: { type: string; resourceId: string }) => `${e.type} ${e.resourceId}`);
    expect(types).toEqual(expect.arrayContaining([`attachment.created ${id}`, `attachment.deleted ${id}`]));
    const created = history.body.events.find((e: { type: string }) => e.type === "attachment.created");
    expect(created.data).toMatchObject({ id, taskId: own.id, filename: "h.txt", size: text.byteLength });
  });
});
