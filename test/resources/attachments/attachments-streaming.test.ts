// An upload's body is copied to R2 and to the digest in large pieces (src/files/storage.ts): a file of several pieces,
// arriving in small chunks, is stored whole with its SHA-256; a body shorter or longer than its Content-Length is 400
// with nothing stored. And the bench's plain R2 get, which downloads are measured against, is as plain as they are
// (docs/performance.md, "Files"). Through HTTP against the real database and miniflare's R2.
import { beforeAll, describe, expect, it } from "vitest";
import { post, testEnv } from "../../helpers/api";
import { send, upload } from "../../helpers/attachments";
import { newTeam, newTenant, type Tenant } from "../../helpers/fixtures";

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
const objectCount = async (workspaceId: string) => (await testEnv.FILES.list({ prefix: `${workspaceId}/` })).objects.length;

/** `bytes` as a stream of `chunk`-byte pieces (not a byte stream: the runtime's own request bodies are). */
const chunked = (bytes: Uint8Array, chunk: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.byteLength; at += chunk) controller.enqueue(bytes.slice(at, at + chunk));
      controller.close();
    },
  });

/** Bytes that differ from piece to piece (a misplaced piece changes the digest). */
const patterned = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 12)) & 0xff);

describe("attachment uploads in pieces", () => {
  let t: Tenant;
  let taskId: string;

  beforeAll(async () => {
    t = await newTenant("Pieces Co");
    const team = await newTeam(t, { prefix: "PCS" });
    taskId = (await post("/tasks", { teamId: team.id, title: "big files" }, t.owner.key)).body.task.id;
  });

  it("a file of several pieces is stored whole, with its SHA-256 on the record, in the ETag and checked against Content-Digest", async () => {
    const bytes = patterned(2 * 1024 * 1024 + 5);
    const sha256 = hex(await crypto.subtle.digest("SHA-256", bytes));
    const digest = `sha-256=:${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))))}:`;
    for (const body of [bytes, chunked(bytes, 4096)]) {
      const res = await send("POST", `/tasks/${taskId}/attachments?filename=big.bin`, t.owner.key, {
        body,
        headers: { "content-type": "application/octet-stream", "content-length": String(bytes.byteLength), "content-digest": digest },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.attachment).toMatchObject({ size: bytes.byteLength, sha256 });
      const download = await send("GET", `/attachments/${res.body.attachment.id}/content`, t.owner.key);
      expect(download.headers.get("etag")).toBe(`"${sha256}"`);
      expect(hex(await crypto.subtle.digest("SHA-256", download.body))).toBe(sha256);
    }
  });

  it("a body shorter or longer than its Content-Length is 400 and nothing is stored", async () => {
    const before = await objectCount(t.workspaceId);
    const bytes = patterned(1024 * 1024 + 100);
    for (const length of [bytes.byteLength + 1, bytes.byteLength - 1]) {
      const res = await send("POST", `/tasks/${taskId}/attachments?filename=cut.bin`, t.owner.key, {
        body: chunked(bytes, 64 * 1024),
        headers: { "content-type": "application/octet-stream", "content-length": String(length) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toMatch(/did not arrive whole/);
    }
    expect(await objectCount(t.workspaceId)).toBe(before);
    // A whole one still goes in.
    expect((await upload(`/tasks/${taskId}`, t.owner.key, bytes, "whole.bin")).status).toBe(201);
  });
});

describe("the bench's plain R2 get", () => {
  it("answers with R2's own ETag, so the ETag middleware never reads and hashes its body", async () => {
    const bytes = patterned(300 * 1024);
    const put = await send("POST", "/_bench/files", "", {
      body: bytes,
      headers: { "content-type": "application/octet-stream", "content-length": String(bytes.byteLength) },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const res = await send("GET", `/_bench/files/${put.body.key.slice("bench/".length)}`, "");
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe((await testEnv.FILES.head(put.body.key))?.httpEtag);
    expect(res.body).toEqual(bytes);
  });
});
