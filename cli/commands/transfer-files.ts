// `pm export --files DIR` and `pm import --files DIR`: the bytes of an export's attachments, which its document lists
// (`data.attachments`, each with `path`, `files/<sha256>`) but does not hold. Export downloads each file once into
// DIR/<path>; import, after the document is imported, uploads each through the upload operation onto the task or
// comment the import made of its own, which the import's answer names (`ids`).
import { createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Schemas } from "../../client/index";
import { UsageError } from "../errors";
import type { Session } from "../session";
import { downloadStream, uploadFile } from "./attachments";

type Doc = Schemas["Export"];
type File = NonNullable<Doc["data"]["attachments"]>[number];

/** Where a file of the document lives in `dir`: its `path` must be `files/<sha256>`, so nothing lands (or is read) outside `dir`. */
function fileIn(dir: string, file: File): string {
  if (!/^files\/[0-9a-f]{64}$/.test(file.path))
    throw new UsageError(`the document's file path ${JSON.stringify(file.path)} is not files/<sha256>`);
  return path.join(dir, file.path);
}

/** Downloads each file the document lists into `dir`, once a path (the same bytes are one file). */
export async function downloadFiles(session: Session, doc: Doc, dir: string) {
  const done = new Set<string>();
  for (const file of doc.data.attachments ?? []) {
    if (done.has(file.path)) continue;
    done.add(file.path);
    const target = fileIn(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    await pipeline(Readable.fromWeb((await downloadStream(session, file.id)) as never), createWriteStream(target));
  }
  if (done.size) process.stderr.write(`downloaded ${done.size} file${done.size === 1 ? "" : "s"} into ${dir}\n`);
}

/** Refuses, before anything is imported, a document whose files are not all in `dir`. */
export function requireFiles(doc: Doc, dir: string) {
  const missing = (doc.data.attachments ?? []).find((f) => !existsSync(fileIn(dir, f)));
  if (missing) throw new UsageError(`${path.join(dir, missing.path)} is missing (${missing.filename}): export again with --files`);
}

/**
 * Uploads the document's files from `dir` onto the tasks and comments the import made of theirs, which its answer
 * names (`ids`, by the document's ids).
 */
export async function uploadFiles(session: Session, doc: Doc, dir: string, ids: Schemas["ImportedIds"]) {
  const files: File[] = doc.data.attachments ?? [];
  let sent = 0;
  for (const file of files) {
    const parent = file.commentId ? ids.comments[file.commentId] : ids.tasks[file.taskId];
    if (!parent) throw new UsageError(`the import placed no ${file.commentId ? "comment" : "task"} for ${file.filename}`);
    const bytes = readFileSync(fileIn(dir, file));
    await uploadFile(session, file.commentId ? { comment: parent } : { task: parent }, file.filename, bytes, file.contentType, file.sha256);
    sent++;
  }
  if (sent) process.stderr.write(`uploaded ${sent} file${sent === 1 ? "" : "s"}\n`);
}
