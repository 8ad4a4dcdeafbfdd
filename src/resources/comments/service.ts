import { and, getTableColumns, sql } from "drizzle-orm";
import { comments, users } from "../../../drizzle/schema";
import { actorMay } from "../../auth/access";
import { COMMENT_EDIT_REFUSAL, mayDeleteComment, mayEditComment } from "../../auth/ownership";
import type { Actor, Principal } from "../../auth/principal";
import { conflict, forbidden, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import type { UserSummary } from "../../records/users";
import { writableTarget } from "./access";
import { mine, serializeComment } from "./queries";
import { type Target, type TargetKind, targetSelect } from "./targets";

const COMMENT = { min: "MEMBER", what: "comment on this team's work" } as const;

/** The author of the row a write statement returns, read in that statement (the caller may be SQL of the credential). */
const authorOfRow = () => {
  const a = sql.identifier("author");
  return sql<UserSummary>`(select json_build_object('id', ${a}.id, 'name', ${a}.name, 'email', ${a}.email, 'avatarUrl', ${a}.avatar_url, 'humanId', ${a}.human_id) from ${users} as ${a} where ${a}.id = ${comments.authorId})`;
};
const returned = () => ({ ...getTableColumns(comments), author: authorOfRow() });

/**
 * One statement that authenticates and authorizes itself when `actor` is the credential's SQL: the target (in
 * the actor's workspace, locked against deletion) and the actor's team role are checked by the INSERT … SELECT
 * that writes the comment, and the author is read in the same statement. Undefined when it wrote nothing:
 * explainRefusedComment says why.
 */
export async function createComment(db: Db, actor: Actor, target: Target, content: string) {
  const found = db.$with("target").as(targetSelect(db, actor.workspace, target, true));
  const targetColumn = (kind: TargetKind) =>
    (kind === target.kind ? sql<string | null>`${found.id}` : sql<string | null>`null`).as(`${kind}_id`);
  const [row] = await db
    .with(found)
    .insert(comments)
    .select(
      db
        // Every column in the table's order, as INSERT … SELECT takes them.
        .select({
          id: sql<string>`${newId("cmnt")}`.as("id"),
          workspaceId: sql<string>`${actor.workspace}`.as("workspace_id"),
          authorId: sql<string>`${actor.user}`.as("author_id"),
          content: sql<string>`${content}`.as("content"),
          taskId: targetColumn("task"),
          projectId: targetColumn("project"),
          milestoneId: targetColumn("milestone"),
          createdAt: sql<Date>`now()`.as("created_at"),
          updatedAt: sql<Date>`now()`.as("updated_at"),
        })
        .from(found)
        .where(actorMay(actor, found.teamId, COMMENT.min)),
    )
    .returning(returned());
  return row && serializeComment(row);
}

/** Why createComment wrote nothing: writableTarget's 404 or 403; if the target now passes, it changed meanwhile (409). */
export async function explainRefusedComment(db: Db, principal: Principal, target: Target): Promise<never> {
  await writableTarget(db, principal, target, COMMENT);
  throw conflict("The row changed meanwhile; retry the request");
}

/** Explains why a guarded write matched no row: the comment is missing (404) or the caller may not touch it (403). */
async function refuse(tx: Executor, workspaceId: string, id: string, message: string): Promise<never> {
  const [exists] = await tx.select({ id: comments.id }).from(comments).where(mine(workspaceId, id));
  throw exists ? forbidden(message) : notFound("Comment");
}

/** Only the author edits a comment, whatever their workspace role (spec: "Only the comment author may update"). One statement; undefined when it wrote nothing (explainRefusedCommentEdit). */
export async function updateComment(db: Db, actor: Actor, id: string, content: string) {
  const [row] = await db
    .update(comments)
    .set({ content, updatedAt: sql`now()` })
    .where(and(mine(actor.workspace, id), mayEditComment(actor)))
    .returning(returned());
  return row && serializeComment(row);
}

export const explainRefusedCommentEdit = (db: Db, principal: Principal, id: string) =>
  refuse(db, principal.workspace.id, id, COMMENT_EDIT_REFUSAL);

/** The author or a workspace ADMIN/OWNER deletes a comment (contract §4). One statement; false when it deleted nothing (explainRefusedCommentDelete). */
export async function deleteComment(db: Db, actor: Actor, id: string): Promise<boolean> {
  const rows = await db
    .delete(comments)
    .where(and(mine(actor.workspace, id), mayDeleteComment(actor)))
    .returning({ id: comments.id });
  return rows.length > 0;
}

export const explainRefusedCommentDelete = (db: Db, principal: Principal, id: string) =>
  refuse(db, principal.workspace.id, id, "Only the comment's author or a workspace ADMIN may delete it");
