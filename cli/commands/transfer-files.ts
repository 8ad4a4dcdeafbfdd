// `pm export --files DIR` and `pm import --files DIR`: the bytes of an export's attachments, which its document lists
// (`data.attachments`, each with `path`, `files/<sha256>`) but does not hold. Export downloads each file once into
// DIR/<path>; import, after the document is imported, uploads each through the upload operation onto the imported
// task or comment. The import's answer does not map ids, so the imported records are found in the target's own export
// (mapIds).
import { createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Schemas } from "../../client/index";
import { UsageError } from "../errors";
import { type Session, unwrap } from "../session";
import { downloadStream, uploadFile } from "./attachments";

type Doc = Schemas["Export"];
type File = NonNullable<Doc["data"]["attachments"]>[number];

/** Downloads each file the document lists into `dir`, once a path (the same bytes are one file). */
export async function downloadFiles(session: Session, doc: Doc, dir: string) {
  const done = new Set<string>();
  for (const file of doc.data.attachments ?? []) {
    if (done.has(file.path)) continue;
    done.add(file.path);
    const target = path.join(dir, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    await pipeline(Readable.fromWeb((await downloadStream(session, file.id)) as never), createWriteStream(target));
  }
  if (done.size) process.stderr.write(`downloaded ${done.size} file${done.size === 1 ? "" : "s"} into ${dir}\n`);
}

/**
 * Each id of `records` of the document mapped to the imported record's in `target` (the target's export): with
 * `update`, one the target has is itself; else the next of the target's records of the same key (`docKey` of the
 * document's record, `targetKey` of the target's) that is not one of the document's (an import into the team it came
 * from leaves the originals there). An import dates what it writes anew, so the key is not a time.
 */
function mapIds<R extends { id: string }>(
  records: R[],
  target: R[],
  keys: { doc: (r: R) => string; target: (r: R) => string },
  exported: Set<string>,
  update: boolean,
) {
  const present = new Set(target.map((r) => r.id));
  const made = new Map<string, string[]>();
  for (const r of target) if (!exported.has(r.id)) made.set(keys.target(r), [...(made.get(keys.target(r)) ?? []), r.id]);
  const ids = new Map<string, string>();
  for (const r of records) {
    const id = update && present.has(r.id) ? r.id : made.get(keys.doc(r))?.shift();
    if (id) ids.set(r.id, id);
  }
  return ids;
}

/**
 * Uploads the document's files from `dir` onto the records an import made of its tasks and comments, found in
 * `targetPath`'s export (the team imported into, or the new workspace). A file missing from `dir` is refused before
 * any upload.
 */
export async function uploadFiles(
  session: Session,
  doc: Doc,
  dir: string,
  targetPath: "/teams/{id}/export" | "/workspaces/{id}/export",
  targetId: string,
  update: boolean,
) {
  const files: File[] = doc.data.attachments ?? [];
  if (!files.length) return;
  const missing = files.find((f) => !existsSync(path.join(dir, f.path)));
  if (missing) throw new UsageError(`${path.join(dir, missing.path)} is missing (${missing.filename}): export again with --files`);
  const target = (await unwrap(session.client.GET(targetPath, { params: { path: { id: targetId } } }))) as Doc;
  const exported = new Set([...doc.data.tasks, ...doc.data.comments].map((r) => r.id));
  // Tasks by title in number order (an import numbers new ones in the document's order), comments by task and content.
  const tasks = mapIds(doc.data.tasks, target.data.tasks, { doc: (t) => t.title, target: (t) => t.title }, exported, update);
  const comments = mapIds(
    doc.data.comments,
    target.data.comments,
    { doc: (c) => `${tasks.get(c.taskId ?? "")}\0${c.content}`, target: (c) => `${c.taskId}\0${c.content}` },
    exported,
    update,
  );
  let sent = 0;
  for (const file of files) {
    const parent = file.commentId ? comments.get(file.commentId) : tasks.get(file.taskId);
    if (!parent) throw new UsageError(`cannot find the imported ${file.commentId ? "comment" : "task"} of ${file.filename}`);
    const bytes = readFileSync(path.join(dir, file.path));
    await uploadFile(session, file.commentId ? { comment: parent } : { task: parent }, file.filename, bytes, file.contentType, file.sha256);
    sent++;
  }
  process.stderr.write(`uploaded ${sent} file${sent === 1 ? "" : "s"}\n`);
}
