// The attachment operations (docs/api.md, "Attachments"), one function each, called alike by the REST routes, the MCP
// tools and the import. An upload checks the rules and the workspace's room (one query), streams the bytes to R2 with
// their SHA-256, then writes the record in a transaction that checks both again; if the record cannot be written the
// object is removed before the answer. A delete is one statement: the record, and its outbox row by trigger.
import { and, eq, isNotNull, type SQLWrapper, sql } from "drizzle-orm";
import { attachments, comments, tasks, teams } from "../../../drizzle/schema";
import { teamRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { badRequest, invalid, notFound } from "../../core/errors";
import type { Executor } from "../../db/client";
import type { Env } from "../../env";
import { fileTooLarge, maxAttachmentBytes, maxWorkspaceBytes, quotaExceeded, storeObject } from "../../files/storage";
import { newId } from "../../ids";
import { type AttachmentDto, attachmentRecord } from "../../records/attachments";
import { taskMatch } from "../../records/names";
import { listTaskChildren } from "../../records/task-children";
import { guardedDelete, readTarget, type Target } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { readRecord } from "../../store/reads";

/** Adding or removing a file needs team role MEMBER or higher in the task's team, or workspace ADMIN/OWNER. */
const ATTACH = { min: "MEMBER", what: "attach files to this team's tasks" } as const;

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
}

type FilesEnv = Pick<Env, "FILES" | "MAX_ATTACHMENT_BYTES" | "MAX_WORKSPACE_FILE_BYTES">;

/** Bytes the workspace `workspace` stores now. */
const storedBytes = (workspace: SQLWrapper) =>
  sql<number>`(select coalesce(sum(x.size), 0)::float8 from ${attachments} x where x.workspace_id = ${workspace})`;

/** The parent in the caller's workspace under the attach rule, with its task, team, workspace and the workspace's stored bytes. */
function parentTarget(caller: Caller, parent: AttachmentParent): Target {
  const { actor } = caller;
  if (parent.kind === "task") {
    return {
      from: sql`${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}`,
      where: and(eq(tasks.workspaceId, actor.workspace), taskMatch(parent.idOrRef))!,
      columns: {
        id: tasks.id,
        taskId: tasks.id,
        teamId: tasks.teamId,
        workspaceId: tasks.workspaceId,
        used: storedBytes(tasks.workspaceId),
      },
      guards: [teamRoleGuard(actor, tasks.teamId, ATTACH.min, ATTACH.what)],
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
      teamRoleGuard(actor, comments.teamId, ATTACH.min, ATTACH.what),
    ],
    name: "Comment",
    team: comments.teamId,
    table: comments,
  };
}

type ParentRow = { id: string; taskId: string; teamId: string; workspaceId: string; used: number };

/** One attachment's answer, in the caller's reach. */
async function attachmentById(db: Executor, id: string): Promise<AttachmentDto> {
  const [row] = await db.select({ attachment: attachmentRecord.json() }).from(attachmentRecord.from).where(eq(attachments.id, id)).limit(1);
  return row.attachment as AttachmentDto;
}

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
    return await caller.transaction(async (tx) => {
      // Concurrent uploads of one workspace take turns from here, so together they never pass its limit: the parent's
      // read below starts after the lock, so its `used` counts every upload committed before.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('files:' || ${caller.actor.workspace}, 0))`);
      const row = await readTarget<ParentRow>(tx, caller, target, "key share");
      if (row.used + upload.length! > quota) throw quotaExceeded(quota, row.used);
      await tx.insert(attachments).values({
        id,
        workspaceId: row.workspaceId,
        teamId: row.teamId,
        taskId: row.taskId,
        commentId: parent.kind === "comment" ? row.id : null,
        filename: upload.filename,
        contentType: upload.contentType,
        size: upload.length!,
        sha256,
        objectKey,
        creatorId: sql`${caller.actor.user}`,
      });
      return attachmentById(tx, id);
    });
  } catch (err) {
    // Refused, invalid or the database unreachable: the bytes go before the answer (the sweep catches a stop right here).
    await env.FILES.delete(objectKey);
    throw err;
  }
}

/** The attachment `id` in the caller's workspace and teams, under the attach rule of its task's team. */
function attachmentTarget(caller: Caller, id: string): Target {
  const { actor } = caller;
  return {
    from: sql`${attachments}`,
    where: and(eq(attachments.workspaceId, actor.workspace), eq(attachments.id, id))!,
    columns: { id: attachments.id },
    guards: [teamRoleGuard(actor, attachments.teamId, ATTACH.min, ATTACH.what)],
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
