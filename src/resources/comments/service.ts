import { and, eq, sql } from "drizzle-orm";
import { comments } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { isWorkspaceAdmin } from "../../auth/roles";
import { forbidden, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { callerMay, guardedWrite } from "../access";
import { userSummary } from "../users/serialize";
import { writableTarget } from "./access";
import { type CommentRow, mine, serializeComment } from "./queries";
import { type Target, type TargetKind, targetSelect } from "./targets";

/** The caller is the author, so the response's author comes from the principal, not from another query. */
const withCaller = (principal: Principal, row: Omit<CommentRow, "author">) =>
  serializeComment({ ...row, author: userSummary(principal.user) });

const COMMENT = { min: "MEMBER", what: "comment on this team's work" } as const;

/**
 * One statement, sent as one transaction in one round trip: the target (in the caller's workspace, locked against
 * deletion) and the caller's team role are checked by the INSERT … SELECT that writes the comment. When it writes
 * nothing, writableTarget says why with the same 404 or 403; if the target now passes, it changed meanwhile (409).
 */
export async function createComment(db: Db, principal: Principal, target: Target, content: string) {
  const found = db.$with("target").as(targetSelect(db, principal.workspace.id, target, true));
  const targetColumn = (kind: TargetKind) =>
    (kind === target.kind ? sql<string | null>`${found.id}` : sql<string | null>`null`).as(`${kind}_id`);
  const insert = db
    .with(found)
    .insert(comments)
    .select(
      db
        // Every column in the table's order, as INSERT … SELECT takes them.
        .select({
          id: sql<string>`${newId("cmnt")}`.as("id"),
          workspaceId: sql<string>`${principal.workspace.id}`.as("workspace_id"),
          authorId: sql<string>`${principal.user.id}`.as("author_id"),
          content: sql<string>`${content}`.as("content"),
          taskId: targetColumn("task"),
          projectId: targetColumn("project"),
          milestoneId: targetColumn("milestone"),
          createdAt: sql<Date>`now()`.as("created_at"),
          updatedAt: sql<Date>`now()`.as("updated_at"),
        })
        .from(found)
        .where(callerMay(principal, found.teamId, COMMENT.min)),
    )
    .returning();
  const row = await guardedWrite(
    () => insert,
    () => writableTarget(db, principal, target, COMMENT),
  );
  return withCaller(principal, row);
}

/** Explains why a guarded write matched no row: the comment is missing (404) or the caller may not touch it (403). */
async function refuse(tx: Executor, workspaceId: string, id: string, message: string): Promise<never> {
  const [exists] = await tx.select({ id: comments.id }).from(comments).where(mine(workspaceId, id));
  throw exists ? forbidden(message) : notFound("Comment");
}

/** Only the author edits a comment, whatever their workspace role (spec: "Only the comment author may update"). One statement. */
export async function updateComment(db: Db, principal: Principal, id: string, content: string) {
  const workspaceId = principal.workspace.id;
  const row = await guardedWrite(
    () =>
      db
        .update(comments)
        .set({ content, updatedAt: sql`now()` })
        .where(and(mine(workspaceId, id), eq(comments.authorId, principal.user.id)))
        .returning(),
    () => refuse(db, workspaceId, id, "Only the comment's author may edit it"),
  );
  return withCaller(principal, row);
}

/** The author or a workspace ADMIN/OWNER deletes a comment (contract §4). One statement. */
export async function deleteComment(db: Db, principal: Principal, id: string): Promise<void> {
  const workspaceId = principal.workspace.id;
  const allowed = isWorkspaceAdmin(principal) ? undefined : eq(comments.authorId, principal.user.id);
  await guardedWrite(
    () =>
      db
        .delete(comments)
        .where(and(mine(workspaceId, id), allowed))
        .returning({ id: comments.id }),
    () => refuse(db, workspaceId, id, "Only the comment's author or a workspace ADMIN may delete it"),
  );
}
