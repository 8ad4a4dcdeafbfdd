import { sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { comments, users } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { userSummaryJson, type UserSummary } from "../users/serialize";

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
