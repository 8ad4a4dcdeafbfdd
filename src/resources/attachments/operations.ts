// The attachment operations (docs/api.md, "Attachments"), one function each, called alike by the REST routes, the MCP
// tools and the import. An upload checks the rules and the workspace's room (one query), streams the bytes to R2 with
// their SHA-256, then writes the record in a transaction that checks both again; if the record cannot be written the
// object is removed before the answer. A delete is one statement: the record, and its outbox row by trigger.
import { and, eq, isNotNull, isNull, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { attachments, comments, tasks, teams } from "../../../drizzle/schema";
import { scopeGuard, taskWriteGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { commentFilesGuard } from "../../auth/ownership";
import { badRequest, invalid, notFound } from "../../core/errors";
import { statementBound, type Tx } from "../../db/client";
import type { Env } from "../../env";
import { fileTooLarge, maxAttachmentBytes, maxWorkspaceBytes, quotaExceeded, storeObject } from "../../files/storage";
import { newId } from "../../ids";
import { taskMatch } from "../../records/names";
import { listTaskChildren } from "../../records/task-children";
import { guardedDelete, guardedWrite, readTarget, type Target } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { readRecord } from "../../store/reads";
import { type AttachmentDto, attachmentRecord } from "./record";

/** What an upload hangs on: a task (id or reference), or a comment on a task. */
export type AttachmentParent = { kind: "task"; idOrRef: string } | { kind: "comment"; id: string };

export interface Upload {
  filename: string;
  contentType: string;
  /** Content-Length (null: not sent). */
  length: number | null;
  /** Hex SHA-256 of a `Content-Digest` (null: none). */
  digest: string | null;
  body: ReadableStream<Uint8Array> | null;
  /** Work that commits with the record or not at all (an Idempotency-Key's stored answer), given the answer. */
  withRecord?: (tx: Tx, attachment: AttachmentDto) => Promise<void>;
}

type FilesEnv = Pick<Env, "FILES" | "MAX_ATTACHMENT_BYTES" | "MAX_WORKSPACE_FILE_BYTES">;

/** Bytes the workspace `workspace` stores now. */
const storedBytes = (workspace: SQLWrapper) =>
  sql<number>`(select coalesce(sum(x.size), 0)::float8 from ${attachments} x where x.workspace_id = ${workspace})`;

/**
 * The parent in the caller's workspace under its rule (a task: the task write rule; a comment on a task: that and the
 * rule of the comment's files), with its task, team, workspace and the workspace's stored bytes.
 */
function parentTarget(caller: Caller, parent: AttachmentParent): Target {
  const { actor } = caller;
  if (parent.kind === "task") {
    return {
      from: sql`${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}`,
      where: and(eq(tasks.workspaceId, actor.workspace), taskMatch(parent.idOrRef, actor.workspace))!,
      columns: {
        id: tasks.id,
        taskId: tasks.id,
        teamId: tasks.teamId,
        workspaceId: tasks.workspaceId,
        used: storedBytes(tasks.workspaceId),
      },
      guards: [taskWriteGuard(actor, tasks.teamId)],
      name: "Task",
      team: tasks.teamId,
      table: tasks,
    };
  }
  return {
    from: sql`${comments}`,
    where: and(eq(comments.workspaceId, actor.workspace), eq(comments.id, parent.id))!,
    columns: {
      id: comments.id,
      taskId: comments.taskId,
      teamId: comments.teamId,
      workspaceId: comments.workspaceId,
      used: storedBytes(comments.workspaceId),
    },
    guards: [
      { holds: sql`${isNotNull(comments.taskId)}`, refusal: () => invalid("id", "Only comments on tasks take attachments") },
      taskWriteGuard(actor, comments.teamId),
      commentFilesGuard(actor),
    ],
    name: "Comment",
    team: comments.teamId,
    table: comments,
  };
}

type ParentRow = { id: string; taskId: string; teamId: string; workspaceId: string; used: number };

/**
 * The record's insert as the write of the parent's guarded statement: the parent locked against deletion until the
 * record is in, the workspace's room checked with the `used` the statement reads. Its result: the answer (null when
 * the room is gone) and that `used`, whenever the parent's rules hold.
 */
function insertRecord(
  caller: Caller,
  parent: AttachmentParent,
  record: Record<"id" | "sha256" | "objectKey", string>,
  upload: Upload,
  quota: number,
) {
  const table = parent.kind === "task" ? tasks : comments;
  const t = (column: string) => sql`${sql.identifier("target")}.${sql.identifier(column)}`;
  return (allowed: SQL) => ({
    ctes: [
      sql`locked as (select id from ${table} where id = ${allowed} for key share)`,
      // Named like the table, so the answer's JSON reads the written row.
      sql`attachments as (insert into ${attachments} (id, workspace_id, team_id, task_id, comment_id, filename, content_type, size, sha256, object_key, creator_id)
        select ${record.id}, ${t("workspaceId")}, ${t("teamId")}, ${t("taskId")}, ${parent.kind === "comment" ? t("id") : sql`null`},
          ${upload.filename}, ${upload.contentType}, ${upload.length}::bigint, ${record.sha256}, ${record.objectKey}, ${caller.actor.user}
        from target join locked on locked.id = ${t("id")} where ${t("used")} + ${upload.length}::bigint <= ${quota}::bigint returning *)`,
    ],
    result: sql<Written>`(select json_build_object('attachment', (select ${attachmentRecord.json()} from ${attachmentRecord.from} where ${attachments.id} = ${record.id}),
      'used', ${t("used")}) from target where ${t("id")} = ${allowed})`,
  });
}
type Written = { attachment: AttachmentDto | null; used: number };

/**
 * POST /tasks/{id}/attachments, POST /comments/{id}/attachments: the bytes streamed to R2 (never whole in memory), then
 * the record. 413 beyond the file's or the workspace's limit, 400 when a Content-Digest does not match; nothing stays
 * stored after a refusal.
 */
export async function uploadAttachment(caller: Caller, env: FilesEnv, parent: AttachmentParent, upload: Upload): Promise<AttachmentDto> {
  // What the path names and the caller's right to it first (401, 404, 403), then the body.
  const target = parentTarget(caller, parent);
  const before = await readTarget<ParentRow>(caller.db, caller, target);
  const max = maxAttachmentBytes(env);
  if (upload.length === null || !upload.body) throw badRequest("Send the file's bytes as the body, with its Content-Length");
  if (upload.length > max) throw fileTooLarge(max);
  const quota = maxWorkspaceBytes(env);
  if (before.used + upload.length > quota) throw quotaExceeded(quota, before.used);

  const id = newId("att");
  const objectKey = `${before.workspaceId}/${id}`;
  const sha256 = await storeObject(env, objectKey, upload.body, upload.length, upload.contentType);
  try {
    if (upload.digest !== null && upload.digest !== sha256) {
      throw badRequest("The body does not match its Content-Digest; nothing was stored", { expected: upload.digest, received: sha256 });
    }
    // Concurrent uploads of one workspace take turns from the lock on, so together they never pass its limit: the
    // statement after it starts then, so its `used` counts every upload committed before. Then the parent's rules again,
    // the room and the record: one statement.
    const lock = sql`select pg_advisory_xact_lock(hashtextextended('files:' || ${caller.actor.workspace}, 0)) where ${statementBound}`;
    const insert = insertRecord(caller, parent, { id, sha256, objectKey }, upload, quota);
    const recorded = (written: Written) => {
      if (!written.attachment) throw quotaExceeded(quota, written.used);
      return written.attachment;
    };
    // The lock and the statement sent at once (one round trip over the HTTP query).
    if (!upload.withRecord) return recorded(await guardedWrite(caller, target, insert, { before: [lock] }));
    // Interactive (the WebSocket): the Idempotency-Key's answer is stored after the record's, in its transaction.
    const withRecord = upload.withRecord;
    return await caller.transaction(async (tx) => {
      await tx.execute(lock);
      const attachment = recorded(await guardedWrite(caller, target, insert));
      await withRecord(tx, attachment);
      return attachment;
    });
  } catch (err) {
    // Refused, invalid or the database unreachable: the bytes go before the answer (the sweep catches a stop right here).
    await env.FILES.delete(objectKey);
    throw err;
  }
}

/**
 * The attachment `id` in the caller's workspace and teams, under the rules of what it hangs on: a task's needs
 * `tasks:write` and the task write rule; a comment's `comments:write`, the task write rule and the rule of the comment's files.
 */
function attachmentTarget(caller: Caller, id: string): Target {
  const { actor } = caller;
  const onTask = isNull(attachments.commentId);
  return {
    from: sql`${attachments} left join ${comments} on ${comments.id} = ${attachments.commentId}`,
    where: and(eq(attachments.workspaceId, actor.workspace), eq(attachments.id, id))!,
    columns: { id: attachments.id },
    guards: [
      scopeGuard(caller.credential, "tasks:write", sql`not ${onTask}`),
      scopeGuard(caller.credential, "comments:write", onTask),
      taskWriteGuard(actor, attachments.teamId),
      commentFilesGuard(actor, onTask),
    ],
    name: "Attachment",
    team: attachments.teamId,
    table: attachments,
  };
}

/** DELETE /attachments/{id}: one statement; its bytes go through the outbox (file_deletions) after the commit. */
export async function deleteAttachment(caller: Caller, id: string): Promise<void> {
  await guardedDelete(caller, attachmentTarget(caller, id), attachments);
}

/** GET /attachments/{id}. */
export function getAttachment(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<AttachmentDto> {
  return readRecord(caller, attachmentRecord, id, fields);
}

/** The attachment and where its bytes are, for GET /attachments/{id}/content. */
export function attachmentObject(caller: Caller, id: string): Promise<{ attachment: AttachmentDto; objectKey: string }> {
  return caller.read(async (actor) => {
    const [row] = await caller.db
      .select({ attachment: attachmentRecord.json(), objectKey: sql<string>`${attachments.objectKey}` })
      .from(attachmentRecord.from)
      .where(attachmentRecord.named(actor, id))
      .limit(1);
    if (!row) throw notFound("Attachment");
    return { attachment: row.attachment as AttachmentDto, objectKey: row.objectKey };
  });
}

/** GET /tasks/{id}/attachments: the task's and its comments', in one query. */
export function listAttachments(caller: Caller, idOrRef: string, params: ListParams): Promise<AttachmentDto[]> {
  return listTaskChildren(caller, idOrRef, params, { record: attachmentRecord, from: attachments, taskId: attachments.taskId });
}
