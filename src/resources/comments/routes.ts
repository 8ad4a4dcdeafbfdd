import { createRoute, z } from "@hono/zod-openapi";
import { listParams } from "../../auth/middleware";
import { protectedRoute } from "../../auth/route-base";
import { listBody, parseFields, projectFields } from "../../http/list";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { newRouter } from "../../http/router";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/schemas";
import { commentList, getComment, listComments, listTargetComments, targetCommentLists } from "./queries";
import { Comment, CommentContent, CommentCreate, CommentSelection, TaskCommentSelection } from "./schema";
import {
  createComment,
  deleteComment,
  explainRefusedComment,
  explainRefusedCommentDelete,
  explainRefusedCommentEdit,
  updateComment,
} from "./service";
import { TARGET_FIELD, type Target, type TargetKind } from "./targets";

const base = protectedRoute("Comments");
const one = z.object({ comment: Comment });
const oneSelected = z.object({ comment: CommentSelection });
const location = (id: string) => `/comments/${id}`;

const list = createRoute({
  ...protectedRoute("Comments"),
  method: "get",
  operationId: "listComments",
  path: "/comments",
  summary: "List the workspace's comments",
  description: listDescription(commentList, "Every member reads them, e.g. a task's with `filter[eq][taskId]=<id>`."),
  request: { query: listQueryFor(commentList) },
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
  request: { params: IdParam, query: fieldsQueryFor(commentList.shape) },
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
  ...base,
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
const listOf = (kind: TargetKind) =>
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

/** The one target the (already validated) create body names. */
function bodyTarget(body: z.infer<typeof CommentCreate>): Target {
  for (const kind of Object.keys(TARGET_FIELD) as TargetKind[]) {
    const idOrRef = body[TARGET_FIELD[kind]];
    if (idOrRef !== undefined) return { kind, idOrRef };
  }
  throw new Error("CommentCreate let a body without a target through");
}

export const commentRoutes = newRouter()
  .openapi(list, async (c) => {
    const params = await listParams(c, commentList);
    const rows = await c.get("caller").list(({ workspace }) => listComments(c.get("rdb").db, workspace, params));
    return c.json(await listBody("comments", params, rows), 200);
  })
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const db = c.get("rdb").db;
    const target = bodyTarget(body);
    const comment = await c.get("caller").write(
      (actor) => createComment(db, actor, target, body.content),
      (principal) => explainRefusedComment(db, principal, target),
    );
    return created(c, "comment", location(comment.id), comment);
  })
  .openapi(read, async (c) => {
    const fields = parseFields(c.req.valid("query").fields, commentList.shape);
    const { id } = c.req.valid("param");
    const comment = await c.get("caller").read(({ workspace }) => getComment(c.get("rdb").db, workspace, id));
    return c.json({ comment: projectFields(comment, fields) }, 200);
  })
  .openapi(update, async (c) => {
    const db = c.get("rdb").db;
    const { id } = c.req.valid("param");
    const comment = await c.get("caller").write(
      (actor) => updateComment(db, actor, id, c.req.valid("json").content),
      (principal) => explainRefusedCommentEdit(db, principal, id),
    );
    return c.json({ comment }, 200);
  })
  .openapi(remove, async (c) => {
    const db = c.get("rdb").db;
    const { id } = c.req.valid("param");
    await c.get("caller").write(
      async (actor) => (await deleteComment(db, actor, id)) || undefined,
      (principal) => explainRefusedCommentDelete(db, principal, id),
    );
    return c.body(null, 204);
  })
  .openapi(createOnProject, async (c) => {
    const target: Target = { kind: "project", idOrRef: c.req.valid("param").id };
    const db = c.get("rdb").db;
    const comment = await c.get("caller").write(
      (actor) => createComment(db, actor, target, c.req.valid("json").content),
      (principal) => explainRefusedComment(db, principal, target),
    );
    return created(c, "comment", location(comment.id), comment);
  });

for (const kind of Object.keys(PLURAL) as TargetKind[]) {
  commentRoutes.openapi(listOf(kind), async (c) => {
    const params = await listParams(c, targetCommentLists[kind]);
    const target: Target = { kind, idOrRef: c.req.valid("param").id };
    const rows = await c.get("caller").list(({ workspace }) => listTargetComments(c.get("rdb").db, workspace, target, params));
    return c.json(await listBody("comments", params, rows), 200);
  });
}
