// `pm attach ENG-1 ./shot.png` uploads a file to a task (or `--comment cmnt_…` to a comment on it), `pm attachments
// ENG-1` lists a task's files, `pm download att_… [-o file]` saves one (docs/api.md, "Attachments").
import { createWriteStream } from "node:fs";
import { link, lstat, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { ApiError, UsageError } from "../errors";
import { printJson, printRecord, printTable } from "../output";
import { openSession, type Session, unwrap } from "../session";

type Attachment = Schemas["Attachment"];

/** Common types by extension; anything else is sent as bytes (`application/octet-stream`). */
const TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
  ".log": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
  ".html": "text/html",
  ".zip": "application/zip",
};
export const contentTypeOf = (file: string) => TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";

/** Uploads `bytes` as `filename` to a task (or a comment, `parent.comment`): the API's record. */
export async function uploadFile(
  { client }: Session,
  parent: { task: string } | { comment: string },
  filename: string,
  bytes: Uint8Array,
  contentType: string,
  sha256?: string,
): Promise<Attachment> {
  // The bytes as they are (the document calls the body a binary string; openapi-fetch would serialize it as JSON).
  // With `sha256` (hex) the API checks the bytes against it (Content-Digest, RFC 9530).
  const digest = sha256 ? { "content-digest": `sha-256=:${Buffer.from(sha256, "hex").toString("base64")}:` } : {};
  const options = {
    body: bytes as unknown as string,
    bodySerializer: (body: string) => body,
    headers: { "content-type": contentType, ...digest },
  };
  const answer =
    "task" in parent
      ? await unwrap(client.POST("/tasks/{id}/attachments", { params: { path: { id: parent.task }, query: { filename } }, ...options }))
      : await unwrap(
          client.POST("/comments/{id}/attachments", { params: { path: { id: parent.comment }, query: { filename } }, ...options }),
        );
  return answer.attachment;
}

/** A response of the content route as a stream, or the API's error. */
export async function downloadStream({ client }: Session, id: string): Promise<ReadableStream<Uint8Array>> {
  const { response, error } = await client.GET("/attachments/{id}/content", { params: { path: { id } }, parseAs: "stream" });
  if (!response.ok || !response.body) throw ApiError.fromBody(response.status, error);
  return response.body;
}

/** Every attachment of a task (its comments' too), oldest first. */
export async function allAttachments({ client }: Session, ref: string): Promise<Attachment[]> {
  const out: Attachment[] = [];
  let cursor: string | undefined;
  do {
    const query = { limit: 250, ...(cursor ? { cursor } : {}) };
    const page = await unwrap(client.GET("/tasks/{id}/attachments", { params: { path: { id: ref }, query } }));
    out.push(...(page.attachments as Attachment[]));
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/** `12.3 KB`. */
export const sizeText = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 ** 2 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 ** 2).toFixed(1)} MB`;

export const printAttachments = (attachments: Attachment[]) =>
  printTable(attachments, [
    { header: "ID", value: (a) => a.id },
    { header: "NAME", value: (a) => a.filename },
    { header: "SIZE", value: (a) => sizeText(a.size) },
    { header: "TYPE", value: (a) => a.contentType },
  ]);

export const attach = defineCommand({
  meta: { name: "pm attach", description: "Attach a file to a task (or, with --comment, to a comment on it)" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12) or id", valueHint: "ref", required: true },
    file: { type: "positional", description: "The file to upload", valueHint: "file", required: true },
    comment: { type: "string", valueHint: "cmnt_…", description: "Attach it to this comment of the task instead" },
    name: { type: "string", description: "The name to store (default: the file's)" },
    type: { type: "string", description: "Its Content-Type (default: from the extension)" },
    ...commonArgs,
  },
  async run({ args }) {
    const session = openSession(args);
    const bytes = new Uint8Array(await readFile(args.file));
    const filename = args.name ?? path.basename(args.file);
    const parent = args.comment ? { comment: args.comment } : { task: args.ref };
    const attachment = await uploadFile(session, parent, filename, bytes, args.type ?? contentTypeOf(args.file));
    if (args.json) return printJson({ attachment });
    printRecord([
      ["attached", `${attachment.filename} to ${args.ref.toUpperCase()}`],
      ["size", sizeText(attachment.size)],
      ["id", attachment.id],
    ]);
  },
});

export const attachments = defineCommand({
  meta: { name: "pm attachments", description: "List a task's files (its comments' too)" },
  args: {
    ref: { type: "positional", description: "Task reference (ENG-12) or id", valueHint: "ref", required: true },
    ...commonArgs,
  },
  async run({ args }) {
    const list = await allAttachments(openSession(args), args.ref);
    if (args.json) return printJson({ attachments: list });
    if (list.length === 0) return console.log(`${args.ref.toUpperCase()} has no files.`);
    printAttachments(list);
  },
});

/** A file `pm download` will not write: one that exists (without --clobber), or a name from the server that is not plain. */
class RefusedFileError extends Error {}

const taken = (target: string) => new RefusedFileError(`${target} already exists (use --clobber to overwrite it)`);

/**
 * The path a download without `-o` writes: the server's file name inside `dir`, only when it is a plain name there (no
 * folder, no `..`, not absolute): the name is a teammate's choice, the folder the person's.
 */
function pathInside(dir: string, name: string): string {
  const plain = name !== "" && name !== "." && name !== ".." && !/[/\\]/.test(name) && !name.includes("\0") && !path.isAbsolute(name);
  if (!plain) throw new RefusedFileError(`the file's name ${JSON.stringify(name)} is not a plain file name: choose one with -o`);
  return path.join(dir, name);
}

/**
 * Writes `stream` to `target` through a file beside it, renamed over the target with `clobber`, else linked to it, which
 * fails if the target appeared meanwhile: the target is never half written, and never replaced unasked.
 */
async function saveTo(target: string, stream: Readable, clobber: boolean): Promise<void> {
  const partial = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.part`);
  try {
    await pipeline(stream, createWriteStream(partial, { flags: "wx" }));
    if (clobber) await rename(partial, target);
    else await link(partial, target).catch((err) => Promise.reject(err.code === "EEXIST" ? taken(target) : err));
  } finally {
    await rm(partial, { force: true });
  }
}

export const download = defineCommand({
  meta: {
    name: "pm download",
    description:
      "Save an attachment's bytes (to its own name in --dir, or -o file; -o - for standard output); never overwrites unless --clobber",
  },
  args: {
    id: { type: "positional", description: "The attachment's id (pm attachments ENG-12 lists them)", valueHint: "att_…", required: true },
    output: {
      type: "string",
      alias: "o",
      valueHint: "file",
      description: "Where to save it (default: its file name in --dir; - for standard output)",
    },
    dir: { type: "string", alias: "D", valueHint: "folder", description: "The folder to save it in under its own name (default: here)" },
    clobber: { type: "boolean", description: "Overwrite a file that exists" },
    ...commonArgs,
  },
  async run({ args }) {
    if (args.output && args.dir) throw new UsageError("give -o or --dir, not both");
    const session = openSession(args);
    const { attachment } = await unwrap(session.client.GET("/attachments/{id}", { params: { path: { id: args.id } } }));
    const target = args.output ?? pathInside(args.dir ?? ".", attachment.filename ?? "");
    // Checked before the bytes are fetched, and again (atomically) when they are in place.
    if (target !== "-" && !args.clobber && (await lstat(target).catch(() => null))) throw taken(target);
    const stream = Readable.fromWeb((await downloadStream(session, args.id)) as import("node:stream/web").ReadableStream);
    if (target === "-") return pipeline(stream, process.stdout);
    await saveTo(target, stream, args.clobber === true);
    if (!args.json) console.error(`saved ${target} (${sizeText(attachment.size ?? 0)})`);
  },
});
