import { and, eq, sql } from "drizzle-orm";
import { comments, teamMembers } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { isWorkspaceAdmin, requireTeamRole } from "../../auth/roles";
import type { Db, Executor, WorkspaceScope } from "../../db/client";
import { forbidden, notFound } from "../../core/errors";
import type { ListParams } from "../../http/list";
import { newId } from "../../ids";
import { userSummary, type UserSummary } from "../users/serialize";
import { author, briefCommentColumns, type BriefAuthor, commentColumns, serializeComment, type CommentRow } from "./serialize";
import { TARGET_COLUMN, TARGET_FIELD, targetNotFound, targetSelect, type Target } from "./targets";

const mine = (workspaceId: WorkspaceScope, id: string) => and(eq(comments.workspaceId, workspaceId), eq(comments.id, id));

export async function listComments(db: Db, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await db
    .select(commentColumns)
    .from(comments)
    .innerJoin(author, eq(author.id, comments.authorId))
    .where(and(eq(comments.workspaceId, workspaceId), params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  return rows.map(serializeComment);
}

/**
 * The comments of one target, in one statement: the target is a CTE and the page is left-joined to it, so an
 * unknown or foreign target gives no row at all (404) and a target without matching comments gives one empty row.
 */
export async function listTargetComments(db: Db, workspaceId: WorkspaceScope, target: Target, params: ListParams) {
  const parent = db.$with("parent").as(targetSelect(db, workspaceId, target));
  const rows = await db
    .with(parent)
    .select(target.kind === "task" ? briefCommentColumns : commentColumns)
    .from(parent)
    .leftJoin(comments, and(eq(TARGET_COLUMN[target.kind], parent.id), eq(comments.workspaceId, workspaceId), params.where))
    .leftJoin(author, eq(author.id, comments.authorId))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  if (rows.length === 0) throw targetNotFound(target.kind);
  return rows.filter((row) => row.id !== null).map((row) => serializeComment(row as CommentRow<UserSummary | BriefAuthor>));
}

export async function getComment(db: Db, workspaceId: WorkspaceScope, id: string) {
  const [row] = await db
    .select(commentColumns)
    .from(comments)
    .innerJoin(author, eq(author.id, comments.authorId))
    .where(mine(workspaceId, id));
  if (!row) throw notFound("Comment");
  return serializeComment(row);
}

/** The target (locked against deletion) after checking the caller may comment in its team (contract §4). */
async function writableTarget(tx: Executor, principal: Principal, target: Target) {
  const found = tx.$with("target").as(targetSelect(tx, principal.workspace.id, target, true));
  const [row] = await tx
    .with(found)
    .select({ id: found.id, teamRole: teamMembers.role })
    .from(found)
    .leftJoin(teamMembers, and(eq(teamMembers.teamId, found.teamId), eq(teamMembers.userId, principal.user.id)));
  if (!row) throw targetNotFound(target.kind);
  requireTeamRole(principal, row.teamRole, "MEMBER", "comment on this team's work");
  return row;
}

/** The caller is the author, so the response's author comes from the principal, not from another query. */
const withCaller = (principal: Principal, row: Omit<CommentRow, "author">) =>
  serializeComment({ ...row, author: userSummary(principal.user) });

export function createComment(db: Db, principal: Principal, target: Target, content: string) {
  return db.transaction(async (tx) => {
    const found = await writableTarget(tx, principal, target);
    const [row] = await tx
      .insert(comments)
      .values({
        id: newId("cmnt"),
        workspaceId: principal.workspace.id,
        authorId: principal.user.id,
        content,
        [TARGET_FIELD[target.kind]]: found.id,
      })
      .returning();
    return withCaller(principal, row);
  });
}

/** Explains why a guarded write matched no row: the comment is missing (404) or the caller may not touch it (403). */
async function refuse(tx: Executor, workspaceId: string, id: string, message: string): Promise<never> {
  const [exists] = await tx.select({ id: comments.id }).from(comments).where(mine(workspaceId, id));
  throw exists ? forbidden(message) : notFound("Comment");
}

/** Only the author edits a comment, whatever their workspace role (spec: "Only the comment author may update"). */
export function updateComment(db: Db, principal: Principal, id: string, content: string) {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(comments)
      .set({ content, updatedAt: sql`now()` })
      .where(and(mine(principal.workspace.id, id), eq(comments.authorId, principal.user.id)))
      .returning();
    if (!row) return refuse(tx, principal.workspace.id, id, "Only the comment's author may edit it");
    return withCaller(principal, row);
  });
}

/** The author or a workspace ADMIN/OWNER deletes a comment (contract §4). */
export function deleteComment(db: Db, principal: Principal, id: string) {
  return db.transaction(async (tx) => {
    const allowed = isWorkspaceAdmin(principal) ? undefined : eq(comments.authorId, principal.user.id);
    const deleted = await tx
      .delete(comments)
      .where(and(mine(principal.workspace.id, id), allowed))
      .returning({ id: comments.id });
    if (deleted.length === 0) await refuse(tx, principal.workspace.id, id, "Only the comment's author or a workspace ADMIN may delete it");
  });
}
