// Comments as one module (src/http/module.ts): the register entry, routes and MCP tools.
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { paginated } from "../../http/route-schemas";
import { deleteTool, tool } from "../../http/tool";
import { describeList, ListInput, listQuery } from "../../http/tool-input";
import { NameOf } from "../../records/names";
import { listBody } from "../../store/list";
import { createComment, deleteComment, listTargetComments } from "./operations";
import { COMMENT_ID, Comment, CommentContent, commentRecord, TaskCommentSelection, targetCommentLists } from "./record";
import register from "./register";
import { commentRoutes } from "./routes";

const TaskRef = NameOf("task");

export default {
  name: "comments",
  resource: register,
  eventRecords: { comment: commentRecord.fields },
  routes: [commentRoutes],
  tools: [
    tool({
      name: "add_comment",
      rank: 90,
      title: "Comment on a task",
      description: "Adds a Markdown comment to a task (POST /comments).",
      rest: "POST /comments",
      input: z.object({ taskId: TaskRef, ...CommentContent.shape }).strict(),
      output: z.object({ comment: Comment }),
      async run(ctx, { taskId, content }) {
        return { comment: await createComment(ctx.caller, { taskId, content }) };
      },
    }),
    tool({
      name: "list_task_comments",
      rank: 100,
      title: "A task's comments",
      description: `A task's comments, oldest first (GET /tasks/{id}/comments). ${describeList(targetCommentLists.task)}`,
      rest: "GET /tasks/{id}/comments",
      input: z.object({ id: TaskRef, ...ListInput.shape }).strict(),
      output: paginated("comments", TaskCommentSelection),
      async run(ctx, { id, ...list }) {
        const params = await ctx.caller.listParams(targetCommentLists.task, listQuery(list));
        return listBody("comments", params, await listTargetComments(ctx.caller, "task", id, params));
      },
    }),
    {
      ...deleteTool("comment", "comments", NameOf(COMMENT_ID), deleteComment, " Only its author or a workspace ADMIN/OWNER may."),
      rank: 120,
    },
  ],
} satisfies ResourceModule;
