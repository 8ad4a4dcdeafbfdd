import { and, eq, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { comments, users } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type FieldShape, type ListField, type ListParams, type ListSpec, pageQuery } from "../../http/list";
import { type UserSummary, userSummaryJson } from "../../records/users";
import { TARGET_COLUMN, type Target, type TargetKind, targetNotFound, targetSelect } from "./targets";

const fields: Record<string, ListField> = {
  id: { expr: comments.id, kind: "id" },
  authorId: { expr: comments.authorId, kind: "id" },
  taskId: { expr: comments.taskId, kind: "id", nullable: true },
  projectId: { expr: comments.projectId, kind: "id", nullable: true },
  milestoneId: { expr: comments.milestoneId, kind: "id", nullable: true },
  content: { expr: comments.content, kind: "string", sort: false },
  createdAt: { expr: comments.createdAt, kind: "datetime" },
  updatedAt: { expr: comments.updatedAt, kind: "datetime" },
};

const shape = (author: FieldShape): FieldShape => ({
  id: true,
  content: true,
  authorId: true,
  author,
  taskId: true,
  projectId: true,
  milestoneId: true,
  createdAt: true,
  updatedAt: true,
});
const FULL_AUTHOR = { id: true, name: true, email: true, avatarUrl: true, humanId: true } as const;
const BRIEF_AUTHOR = { id: true, name: true, email: true } as const;

const spec = (resource: string, author: FieldShape): ListSpec => ({ resource, id: comments.id, fields, shape: shape(author) });

/** `GET /comments`. */
export const commentList = spec("comments", FULL_AUTHOR);

/** Lists under one target; a resource name each, so a cursor of one list is rejected by another. */
export const targetCommentLists: Record<TargetKind, ListSpec> = {
  task: spec("task-comments", BRIEF_AUTHOR),
  project: spec("project-comments", FULL_AUTHOR),
  milestone: spec("milestone-comments", FULL_AUTHOR),
};

/** The comment's author, joined on `eq(author.id, comments.authorId)` so a page embeds it without a query per row. */
export const author = alias(users, "author");

export type BriefAuthor = Pick<UserSummary, "id" | "name" | "email">;
/** The spec's task comment list shows only the author's id, name and email. */
const briefAuthorJson = sql<BriefAuthor>`json_build_object('id', ${author.id}, 'name', ${author.name}, 'email', ${author.email})`;

const columns = <A>(authorJson: SQL<A>) => ({
  id: comments.id,
  content: comments.content,
  authorId: comments.authorId,
  author: authorJson,
  taskId: comments.taskId,
  projectId: comments.projectId,
  milestoneId: comments.milestoneId,
  createdAt: comments.createdAt,
  updatedAt: comments.updatedAt,
});
/** The columns of a Comment; the author is joined (never null), so its summary is too. */
export const commentColumns = columns(userSummaryJson(author) as SQL<UserSummary>);
/** The same with the reduced author of the task comment list. */
export const briefCommentColumns = columns(briefAuthorJson);

export interface CommentRow<A = UserSummary> {
  id: string;
  content: string;
  authorId: string;
  author: A;
  taskId: string | null;
  projectId: string | null;
  milestoneId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const serializeComment = <A>(row: CommentRow<A>) => ({
  id: row.id,
  content: row.content,
  authorId: row.authorId,
  author: row.author,
  taskId: row.taskId,
  projectId: row.projectId,
  milestoneId: row.milestoneId,
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});

export const mine = (workspaceId: WorkspaceScope, id: string) => and(eq(comments.workspaceId, workspaceId), eq(comments.id, id));

export async function listComments(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await pageQuery(
    db.select(commentColumns).from(comments).innerJoin(author, eq(author.id, comments.authorId)).$dynamic(),
    eq(comments.workspaceId, workspaceId),
    params,
  );
  return rows.map(serializeComment);
}

/**
 * The comments of one target, in one statement: the target is a CTE and the page is left-joined to it, so an
 * unknown or foreign target gives no row at all (404) and a target without matching comments gives one empty row.
 */
export async function listTargetComments(db: Executor, workspaceId: WorkspaceScope, target: Target, params: ListParams) {
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

export async function getComment(db: Executor, workspaceId: WorkspaceScope, id: string) {
  const [row] = await db
    .select(commentColumns)
    .from(comments)
    .innerJoin(author, eq(author.id, comments.authorId))
    .where(mine(workspaceId, id));
  if (!row) throw notFound("Comment");
  return serializeComment(row);
}
