import { z } from "@hono/zod-openapi";
import { BodyId, selectable } from "../../http/schemas";
import { UserSummarySchema } from "../../records/users";

/** The spec's reduced author of the task comment list. */
export const CommentAuthorBrief = z.object({ id: z.string(), name: z.string(), email: z.string() }).openapi("CommentAuthorBrief");

export const Comment = z
  .object({
    id: z.string(),
    content: z.string().openapi({ description: "Markdown" }),
    authorId: z.string(),
    author: UserSummarySchema,
    taskId: z.string().nullable(),
    projectId: z.string().nullable(),
    milestoneId: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Comment", { description: "Exactly one of taskId, projectId, milestoneId is set." });

export const TaskComment = Comment.extend({ author: CommentAuthorBrief }).openapi("TaskComment", {
  description: "A comment as listed under its task: the author carries only id, name and email.",
});

const Content = z
  .string()
  .min(1)
  .max(50_000)
  .refine((s) => s.trim().length > 0, "Must not be blank")
  .openapi({ description: "Markdown, 1..50,000 characters, not only whitespace" });

const TARGET_KEYS = ["taskId", "projectId", "milestoneId"] as const;
const targetId = (description: string) => BodyId.optional().openapi({ description });

export const CommentCreate = z
  .object({
    content: Content,
    taskId: targetId("Task id or reference (`ENG-12`)"),
    projectId: targetId("Project id or reference (`ENG-P3`)"),
    milestoneId: targetId("Milestone id"),
  })
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

export type CommentCreateInput = z.infer<typeof CommentCreate>;

/** As routes that take `fields` answer them (every key optional). */
export const CommentSelection = selectable(Comment, "CommentSelection");
export const TaskCommentSelection = selectable(TaskComment, "TaskCommentSelection");
