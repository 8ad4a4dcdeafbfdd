// Rules that name a record's creator or author (docs/api.md, permissions), as conditions of the statement that writes: the REST
// operation and the import that stands for it (an overwrite) decide with the same expression.
import { eq, or, type SQL, sql } from "drizzle-orm";
import { comments, labels } from "../../drizzle/schema";
import { forbidden } from "../core/errors";
import type { Guard } from "../store/guarded";
import type { Actor } from "../store/statement-caller";
import { workspaceAdminSql } from "./roles";

/** Renaming, recolouring and deleting a label: workspace ADMIN/OWNER or the label's creator (any member creates one). */
export const mayEditLabel = (actor: Actor) => or(workspaceAdminSql(actor.role), eq(labels.creatorId, actor.user));
export const LABEL_EDIT_REFUSAL = "Only the label's creator or a workspace ADMIN/OWNER may change or delete it";

/** Editing a comment: its author alone, whatever their workspace role (only the comment author may update it). */
export const mayEditComment = (actor: Actor) => eq(comments.authorId, actor.user);
export const COMMENT_EDIT_REFUSAL = "Only the comment's author may edit it";

/** Deleting a comment: its author or a workspace ADMIN/OWNER. */
export const mayDeleteComment = (actor: Actor) => or(workspaceAdminSql(actor.role), eq(comments.authorId, actor.user));
export const COMMENT_DELETE_REFUSAL = "Only the comment's author or a workspace ADMIN may delete it";

/** The comment edit rule as a guard (PATCH /comments/{id}). */
export const commentEditGuard = (actor: Actor): Guard => ({ holds: mayEditComment(actor), refusal: () => forbidden(COMMENT_EDIT_REFUSAL) });

/** The comment delete rule as a guard, unless `exempt` holds (a file on no comment), refused with `message`. */
const deleteRuleGuard =
  (message: string) =>
  (actor: Actor, exempt?: SQL): Guard => ({
    holds: exempt ? sql`(${exempt} or ${mayDeleteComment(actor)})` : mayDeleteComment(actor)!,
    refusal: () => forbidden(message),
  });

/** DELETE /comments/{id}. */
export const commentDeleteGuard = deleteRuleGuard(COMMENT_DELETE_REFUSAL);

/**
 * A comment's files: who may delete the comment adds and removes them. A file is not the comment's words (those are
 * its author's alone), and an OWNER restoring an export's files must reach comments that others wrote.
 */
export const commentFilesGuard = deleteRuleGuard("Only the comment's author or a workspace ADMIN may add or remove its files");
