import { comments } from "../../../drizzle/schema";
import type { FieldShape, ListField, ListSpec } from "../../http/list";
import type { TargetKind } from "./targets";

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
