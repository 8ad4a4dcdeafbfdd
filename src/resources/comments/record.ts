// The Comment record: its one field map (docs/architecture.md, "One shape per resource"). The answer's JSON and schema,
// the `fields` shape, the lists' filters and sorts, the request bodies and the export fields come from it. The list under
// a task shows a reduced author (id, name, email): the same map with that author, as a second record (TaskComment).
import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { comments, milestones, projects, tasks, users } from "../../../drizzle/schema";
import { idKind, type NameKind, NameOf, named } from "../../records/names";
import { defineRecord, exportedTimestamps, type Field, f } from "../../store/field-map";
import type { FieldShape, ListSpec } from "../../store/list";
import { BodyId } from "../../store/schemas";
import { MILESTONE_ID } from "../milestones/record";
import { UserSummarySchema, userSummaryJson, userSummaryShape } from "../users/record";

/** How a request names a comment: by its id (`cmnt_…`) only. */
export const COMMENT_ID = idKind("a comment id", "cmnt");

/** The comment's author, joined on `author.id = comments.author_id` (never null: the author is required). */
const author = alias(users, "author");
const from = sql`${comments} join ${users} as ${sql.identifier("author")} on ${author.id} = ${comments.authorId}`;

const Content = z
  .string()
  .min(1)
  .max(50_000)
  .refine((s) => s.trim().length > 0, "Must not be blank")
  .openapi({ description: "Markdown, 1..50,000 characters, not only whitespace" });

/** A target of a create body: resolved by the operation (an id, or a reference for tasks and projects). */
const target = (kind: NameKind) => ({ schema: NameOf(kind), write: "resolved" as const });

/** The field map of both records, with the author each one shows. */
const fields = <A extends Field>(authorField: A) =>
  ({
    id: f.id(comments.id, { names: named(COMMENT_ID), exported: BodyId }),
    content: f.text(comments.content, {
      list: { sort: false },
      input: { schema: Content, create: "required" },
      exported: true,
      doc: { description: "Markdown" },
    }),
    authorId: f.id(comments.authorId, { names: named("user"), exported: BodyId }),
    author: authorField,
    taskId: f.id(comments.taskId, { names: named("task"), nullable: true, input: target("task"), exported: BodyId.nullable() }),
    projectId: f.id(comments.projectId, {
      names: named("project"),
      nullable: true,
      input: target("project"),
      exported: BodyId.nullable(),
    }),
    milestoneId: f.id(comments.milestoneId, {
      names: named(MILESTONE_ID),
      nullable: true,
      input: target(MILESTONE_ID),
      exported: BodyId.nullable(),
    }),
    ...exportedTimestamps(comments),
  }) as const;

/** A comment's team: its task's, project's or milestone's project's (columns named with their table, as milestoneTeam's). */
const on = (column: string) => sql`${sql.identifier("comments")}.${sql.identifier(column)}`;
export const commentTeam = sql`coalesce(
  (select t.team_id from ${tasks} as t where t.id = ${on("task_id")}),
  (select p.team_id from ${projects} as p where p.id = ${on("project_id")}),
  (select p.team_id from ${milestones} as m join ${projects} as p on p.id = m.project_id where m.id = ${on("milestone_id")}))`;

export const commentRecord = defineRecord({
  name: "Comment",
  resource: "comments",
  id: comments.id,
  workspace: comments.workspaceId,
  team: commentTeam,
  from,
  fields: fields(f.json(userSummaryJson(author), UserSummarySchema, { shape: userSummaryShape })),
});

/** The task comment list's reduced author, `{id, name, email}` (docs/api.md, decisions). */
const CommentAuthorBrief = z.object({ id: z.string(), name: z.string(), email: z.string() }).openapi("CommentAuthorBrief");
const briefAuthorShape: FieldShape = { id: true, name: true, email: true };
const briefAuthorJson: SQL = sql`json_build_object('id', ${author.id}, 'name', ${author.name}, 'email', ${author.email})`;

/** A comment as the task comment list shows it (`TaskCommentSelection`): the author carries only id, name and email. */
export const taskCommentRecord = defineRecord({
  name: "TaskComment",
  resource: "task-comments",
  id: comments.id,
  workspace: comments.workspaceId,
  team: commentTeam,
  from,
  fields: fields(f.json(briefAuthorJson, CommentAuthorBrief, { shape: briefAuthorShape })),
});

export const Comment = commentRecord.schema.openapi({ description: "Exactly one of taskId, projectId, milestoneId is set." });
export type CommentDto = z.infer<typeof Comment>;
export const CommentSelection = commentRecord.selection;
export const TaskCommentSelection = taskCommentRecord.selection;

/** What a comment is attached to. */
export type CommentTargetKind = "task" | "project" | "milestone";

/** The lists under one target; a resource name each, so a cursor of one list is refused by another. */
export const targetCommentLists: Record<CommentTargetKind, ListSpec> = {
  task: taskCommentRecord.list,
  project: { ...commentRecord.list, resource: "project-comments" },
  milestone: { ...commentRecord.list, resource: "milestone-comments" },
};

const TARGET_KEYS = ["taskId", "projectId", "milestoneId"] as const;

export const CommentCreate = z
  .object(commentRecord.createShape())
  .strict()
  .superRefine((body, ctx) => {
    const given = TARGET_KEYS.filter((key) => body[key] !== undefined);
    if (given.length === 1) return;
    // Zero targets: every key is a way to fix it; several: each given one is in conflict.
    const message =
      given.length === 0
        ? "Exactly one of taskId, projectId, milestoneId is required"
        : `Only one of taskId, projectId, milestoneId may be given (got ${given.join(", ")})`;
    for (const key of given.length === 0 ? TARGET_KEYS : given) ctx.addIssue({ code: "custom", path: [key], message });
  })
  .openapi("CommentCreate", { description: "Exactly one of taskId, projectId, milestoneId (422 otherwise)." });

/** Body of `POST /projects/{id}/comments` (the target is the path's project) and of `PATCH /comments/{id}`. */
export const CommentContent = z.object({ content: Content }).strict().openapi("CommentContent");
export type CommentContentInput = z.infer<typeof CommentContent>;

/** A create: the content and exactly one target (CommentCreate checks that). */
export type CommentCreateInput = CommentContentInput & { taskId?: string; projectId?: string; milestoneId?: string } & Record<
    string,
    unknown
  >;

/** An exported comment as an import reads it. */
export type ExportedComment = {
  id: string;
  authorId: string;
  content: string;
  taskId: string | null;
  projectId: string | null;
  milestoneId: string | null;
};
