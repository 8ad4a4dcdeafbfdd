import { and, eq, sql } from "drizzle-orm";
import { comments } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { isWorkspaceAdmin } from "../../auth/roles";
import { forbidden, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { userSummary } from "../users/serialize";
import { writableTarget } from "./access";
import { type CommentRow, mine, serializeComment } from "./queries";
import { TARGET_FIELD, type Target } from "./targets";

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
