import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { createComment, deleteComment, getComment, listComments, listTargetComments, updateComment } from "./operations";
import {
  Comment,
  CommentContent,
  CommentCreate,
  type CommentCreateInput,
  CommentSelection,
  type CommentTargetKind,
  commentRecord,
  TaskCommentSelection,
  targetCommentLists,
} from "./record";

/** GET /comments/{id}'s answer, also what If-Match and the order of checks read. */
const readComment = oneRecord("comment", commentRecord.shape, getComment);

/** Its writes: each answers its record as its read does, so a lost answer is rebuilt by the read once settled. */
const base = protectedRoute("Comments", { settled: "record" });
const one = z.object({ comment: Comment });
const oneSelected = z.object({ comment: CommentSelection });

const list = createRoute({
  ...protectedRoute("Comments"),
  method: "get",
  operationId: "listComments",
  path: "/comments",
  summary: "List the workspace's comments",
  description: listDescription(commentRecord.list, "Every member reads them, e.g. a task's with `filter[eq][taskId]=<id>`."),
  request: { query: listQueryFor(commentRecord.list) },
  responses: {
    200: jsonResponse(paginated("comments", CommentSelection), "Comments"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const create = createRoute({
  ...base,
  method: "post",
  operationId: "createComment",
  path: "/comments",
  summary: "Comment on a task, a project or a milestone (exactly one; tasks and projects also by reference)",
  description: "Needs team role MEMBER or higher in the target's team, or workspace ADMIN/OWNER.",
  request: jsonBody(CommentCreate),
  responses: { 201: createdResponse(one, "Created"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }) },
});
const read = createRoute({
  ...protectedRoute("Comments"),
  method: "get",
  operationId: "getComment",
  path: "/comments/{id}",
  summary: "Get a comment",
  description: "`fields` narrows the answer, e.g. `content,author{name}`. Another workspace's comment is 404.",
  request: { params: IdParam, query: fieldsQueryFor(commentRecord.shape) },
  responses: {
    200: jsonResponse(oneSelected, "The comment"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateComment",
  path: "/comments/{id}",
  summary: "Edit a comment's content (its author only, whatever the workspace role)",
  description: "Anyone else, also a workspace ADMIN/OWNER, gets 403.",
  request: { params: IdParam, ...jsonBody(CommentContent) },
  responses: { 200: jsonResponse(one, "Updated"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }) },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteComment",
  path: "/comments/{id}",
  summary: "Delete a comment (its author, or a workspace ADMIN/OWNER)",
  description: "Anyone else gets 403.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});
const createOnProject = createRoute({
  ...protectedRoute("Comments"),
  method: "post",
  operationId: "createProjectComment",
  path: "/projects/{id}/comments",
  summary: "Comment on a project (id or reference)",
  description: "Needs team role MEMBER or higher in the project's team, or workspace ADMIN/OWNER.",
  request: { params: IdParam, ...jsonBody(CommentContent) },
  responses: { 201: createdResponse(one, "Created"), ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }) },
});

const PLURAL = { task: "tasks", project: "projects", milestone: "milestones" } as const;
/** `GET /{tasks|projects|milestones}/{id}/comments`: oldest first by default; 404 for an unknown or foreign parent. */
const listOf = (kind: CommentTargetKind) =>
  createRoute({
    ...protectedRoute("Comments"),
    method: "get",
    operationId: `list${kind[0].toUpperCase()}${kind.slice(1)}Comments`,
    path: `/${PLURAL[kind]}/{id}/comments`,
    summary: `List a ${kind}'s comments${kind === "milestone" ? "" : " (id or reference)"}`,
    description: listDescription(
      targetCommentLists[kind],
      `Oldest first by default; an unknown or foreign ${kind} is 404.${kind === "task" ? " The author carries only id, name and email." : ""}`,
    ),
    request: { params: IdParam, query: listQueryFor(targetCommentLists[kind]) },
    responses: {
      200: jsonResponse(paginated("comments", kind === "task" ? TaskCommentSelection : CommentSelection), "Comments"),
      ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
    },
  });

export const commentRoutes = newRouter()
  .openapi(list, reading(list, listing(commentRecord.list, "comments", listComments)))
  .openapi(create, async (c) => {
    const comment = await createComment(c.get("caller"), c.req.valid("json") as CommentCreateInput);
    return created(c, "comment", `/comments/${comment.id}`, comment);
  })
  .openapi(read, reading(read, readComment))
  .openapi(update, async (c) => {
    const comment = await updateComment(c.get("caller"), c.req.valid("param").id, c.req.valid("json"));
    return c.json({ comment }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteComment(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(createOnProject, async (c) => {
    const comment = await createComment(c.get("caller"), { ...c.req.valid("json"), projectId: c.req.valid("param").id });
    return created(c, "comment", `/comments/${comment.id}`, comment);
  });

for (const kind of Object.keys(PLURAL) as CommentTargetKind[]) {
  const route = listOf(kind);
  const rows = listing(targetCommentLists[kind], "comments", (caller, params, param) => listTargetComments(caller, kind, param.id, params));
  commentRoutes.openapi(route, reading(route, rows));
}
