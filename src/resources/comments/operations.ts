// The comment operations, one function each, called alike by the REST routes and the MCP tools. Each write is one
// statement that authenticates and authorizes itself and says why it wrote nothing (guardedWrite); each read is one
// query that authenticates itself.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { comments } from "../../../drizzle/schema";
import type { Caller } from "../../auth/caller";
import { commentDeleteGuard, commentEditGuard } from "../../auth/ownership";
import { notFound } from "../../core/errors";
import { newId } from "../../ids";
import { mentioning } from "../../records/mentions";
import { type Guard, guardedDelete, guardedWrite, type Target, targetWhere, updatedRow } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords, readRecord } from "../../store/reads";
import {
  type CommentContentInput,
  type CommentCreateInput,
  type CommentDto,
  type CommentTargetKind,
  commentRecord,
  commentTeam,
  taskCommentRecord,
} from "./record";
import { bodyTarget, commentTarget, TARGET_COLUMN } from "./targets";

/** The Comment answer of the comment `id`, read in the statement that wrote it (its CTE `comments` shadows the table). */
const written = (id: SQL): SQL<CommentDto | null> =>
  sql`(select ${commentRecord.json()} from ${commentRecord.from} where ${comments.id} = ${id})`;

/** The comment `id` in the caller's workspace, with the rule of the write. */
function commentById(caller: Caller, id: string, rule: Guard): Target {
  return {
    from: sql`${comments}`,
    where: and(eq(comments.workspaceId, caller.actor.workspace), eq(comments.id, id))!,
    columns: { id: comments.id },
    guards: [rule],
    name: "Comment",
    team: commentTeam,
    table: comments,
  };
}

/**
 * POST /comments and POST /projects/{id}/comments: on the one target the body names (tasks and projects also by
 * reference), by a team MEMBER or higher or a workspace ADMIN/OWNER.
 */
export async function createComment(caller: Caller, input: CommentCreateInput): Promise<CommentDto> {
  const named = bodyTarget(input);
  const target = await mentioning(caller, commentTarget(caller, named), [input.content]);
  const id = newId("cmnt");
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [
      // The target locked against deletion until the comment is in (a concurrent delete then waits and cascades to it).
      sql`locked as (select id, workspace_id, team_id from ${target.table} where id = ${allowed} for key share)`,
      sql`comments as (insert into ${comments} (id, workspace_id, author_id, content, team_id, ${sql.identifier(TARGET_COLUMN[named.kind].name)})
        select ${id}, workspace_id, ${caller.actor.user}, ${input.content}, team_id, id from locked returning *)`,
    ],
    result: written(sql`${id}`),
  }));
}

/** PATCH /comments/{id}: its author alone, whatever their workspace role. */
export async function updateComment(caller: Caller, id: string, input: CommentContentInput): Promise<CommentDto> {
  const target = await mentioning(caller, commentById(caller, id, commentEditGuard(caller.actor)), [input.content]);
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [updatedRow(caller, "comments", comments, { content: input.content }, allowed)],
    result: written(sql`(select id from comments)`),
  }));
}

/** DELETE /comments/{id}: its author or a workspace ADMIN/OWNER. */
export async function deleteComment(caller: Caller, id: string): Promise<void> {
  await guardedDelete(caller, commentById(caller, id, commentDeleteGuard(caller.actor)), comments);
}

/** GET /comments/{id}: every member reads it. */
export function getComment(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<CommentDto> {
  return readRecord(caller, commentRecord, id, fields);
}

/** GET /comments: one page in one query. */
export function listComments(caller: Caller, params: ListParams): Promise<CommentDto[]> {
  return listRecords(caller, commentRecord, params);
}

/**
 * GET /{tasks|projects|milestones}/{id}/comments, in one query: the page is left-joined to the target, so an unknown
 * or foreign target gives no row at all (404) and a target without matching comments one row of nulls. Under a task
 * the author carries only id, name and email.
 */
export function listTargetComments(caller: Caller, kind: CommentTargetKind, idOrRef: string, params: ListParams): Promise<CommentDto[]> {
  const record = kind === "task" ? taskCommentRecord : commentRecord;
  return caller.list(async ({ workspace }) => {
    const target = commentTarget(caller, { kind, idOrRef });
    const parent = sql`(select ${target.columns.id} as id from ${target.from} where ${targetWhere(caller, target)} limit 1) as ${sql.identifier("parent")}`;
    const rows = await caller.db
      .select({ comment: record.json(params.fields) })
      .from(parent)
      .leftJoin(
        sql`(${record.from})`,
        and(eq(TARGET_COLUMN[kind], sql`${sql.identifier("parent")}.id`), eq(comments.workspaceId, workspace), params.where),
      )
      .orderBy(...params.orderBy)
      .limit(params.limit + 1);
    if (rows.length === 0) throw notFound(target.name);
    return rows.map((row) => row.comment as CommentDto).filter((comment) => comment.id !== null);
  });
}
