import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { digestOf } from "../../files/storage";
import type { CallerEnv } from "../../http/caller";
import { readHandler } from "../../http/get-reads";
import { createdResponse, errorResponses, jsonResponse } from "../../http/openapi";
import { protectedRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/schemas";
import { Attachment, AttachmentSelection, attachmentRecord } from "../../records/attachments";
import { listBody, parseFields, projectFields } from "../../store/list";
import { attachmentContent } from "./content";
import { type AttachmentParent, deleteAttachment, getAttachment, listAttachments, uploadAttachment } from "./operations";

const base = protectedRoute("Attachments");
const one = z.object({ attachment: Attachment });
const TaskIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Task id or reference (`ENG-12`, any case)" }),
});

const Filename = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (s) => ![...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f || ch === "/" || ch === "\\"),
    "Must be a file name: no control characters, no / or \\",
  )
  .openapi({ description: "The file's name, as downloads will offer it", example: "shot.png" });
const UploadQuery = z.object({ filename: Filename });
const RawBody = {
  body: {
    required: true,
    description: "The file's bytes, with their `Content-Type` and `Content-Length` (`curl --data-binary @file`)",
    content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
  },
};
const UPLOAD_RULES =
  "The raw bytes are the body; `Content-Type` is kept (default `application/octet-stream`). At most 25 MiB a file " +
  "(`MAX_ATTACHMENT_BYTES`) and 1 GiB a workspace: 413, nothing stored. A `Content-Digest: sha-256=:…:` (RFC 9530) that " +
  "does not match is 400, nothing stored. No `Idempotency-Key`.";

const uploadResponses = {
  201: createdResponse(one, "Stored"),
  ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "PAYLOAD_TOO_LARGE"], { validation: true }),
};
const uploadToTask = createRoute({
  ...base,
  method: "post",
  operationId: "uploadTaskAttachment",
  path: "/tasks/{id}/attachments",
  summary: "Attach a file to a task",
  description: `Needs the right to change the task (team MEMBER or above, or workspace ADMIN/OWNER). ${UPLOAD_RULES}`,
  request: { params: TaskIdParam, query: UploadQuery, ...RawBody },
  responses: uploadResponses,
});
const uploadToComment = createRoute({
  ...base,
  method: "post",
  operationId: "uploadCommentAttachment",
  path: "/comments/{id}/attachments",
  summary: "Attach a file to a comment on a task",
  description: `Needs team MEMBER or above in the task's team (or workspace ADMIN/OWNER); only comments on tasks take files (422). ${UPLOAD_RULES}`,
  request: { params: IdParam, query: UploadQuery, ...RawBody },
  responses: uploadResponses,
});
const list = createRoute({
  ...base,
  method: "get",
  operationId: "listTaskAttachments",
  path: "/tasks/{id}/attachments",
  summary: "List a task's attachments (its comments' too)",
  description: listDescription(
    attachmentRecord.list,
    "Whoever reads the task reads its attachments; a comment's carry its `commentId`. Oldest first by default; an unknown or foreign task is 404.",
  ),
  request: { params: TaskIdParam, query: listQueryFor(attachmentRecord.list) },
  responses: {
    200: jsonResponse(paginated("attachments", AttachmentSelection), "Attachments"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const read = createRoute({
  ...base,
  method: "get",
  operationId: "getAttachment",
  path: "/attachments/{id}",
  summary: "Get an attachment's record",
  description: "Its bytes: `GET /attachments/{id}/content`. Another workspace's attachment is 404.",
  request: { params: IdParam, query: fieldsQueryFor(attachmentRecord.shape) },
  responses: {
    200: jsonResponse(z.object({ attachment: AttachmentSelection }), "The attachment"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteAttachment",
  path: "/attachments/{id}",
  summary: "Delete an attachment",
  description: "Needs the right to change its task. Its bytes are removed from storage after the answer (at least once, through a queue).",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"]) },
});
const always = {
  ETag: { description: "The bytes' SHA-256, strong", schema: { type: "string" as const } },
  "Content-Disposition": { description: "`attachment; filename*=…` (RFC 6266)", schema: { type: "string" as const } },
  "X-Content-Type-Options": { description: "`nosniff`", schema: { type: "string" as const } },
  "Content-Security-Policy": { description: "`sandbox`: nothing uploaded runs on the API's origin", schema: { type: "string" as const } },
};
// Any type: the bytes keep the Content-Type they were uploaded with.
const bytes = { "*/*": { schema: z.string().openapi({ format: "binary" }) } };
const content = createRoute({
  ...base,
  method: "get",
  operationId: "getAttachmentContent",
  path: "/attachments/{id}/content",
  summary: "Download an attachment's bytes",
  description:
    "Streams the bytes with the stored `Content-Type`, as a download (`Content-Disposition: attachment`, `nosniff`, `CSP: sandbox`). " +
    "`If-None-Match` with the `ETag` (the SHA-256) is 304; one `Range: bytes=…` is 206 with `Content-Range`, beyond the end 416.",
  request: { params: IdParam },
  responses: {
    200: { description: "The bytes", headers: always, content: bytes },
    206: { description: "The range asked for", headers: { ...always, "Content-Range": { schema: { type: "string" } } }, content: bytes },
    304: { description: "Not modified", headers: { ETag: always.ETag } },
    416: {
      description: "RANGE_NOT_SATISFIABLE",
      headers: { "Content-Range": { schema: { type: "string" } } },
      content: { "application/json": { schema: z.object({ error: z.object({ code: z.string(), message: z.string() }) }) } },
    },
    ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]),
  },
});

/** The upload of a request: the query's file name and the raw body with its headers. */
function upload(c: Context<CallerEnv>, filename: string) {
  const length = c.req.header("content-length");
  return {
    filename,
    contentType: (c.req.header("content-type") ?? "").trim() || "application/octet-stream",
    length: length !== undefined && /^\d+$/.test(length) ? Number(length) : null,
    digest: digestOf(c.req.header("content-digest")),
    body: c.req.raw.body,
  };
}

const answerUpload = async (c: Context<CallerEnv>, parent: AttachmentParent, filename: string) => {
  const attachment = await uploadAttachment(c.get("caller"), c.env, parent, upload(c, filename));
  return created(c, "attachment", `/attachments/${attachment.id}`, attachment);
};

export const attachmentRoutes = newRouter()
  .openapi(uploadToTask, (c) => answerUpload(c, { kind: "task", idOrRef: c.req.valid("param").id }, c.req.valid("query").filename))
  .openapi(uploadToComment, (c) => answerUpload(c, { kind: "comment", id: c.req.valid("param").id }, c.req.valid("query").filename))
  .openapi(
    list,
    readHandler(list, async (caller, { param, searchParams }) => {
      const params = await caller.listParams(attachmentRecord.list, searchParams);
      return listBody("attachments", params, await listAttachments(caller, param.id, params));
    }),
  )
  .openapi(read, async (c) => {
    const fields = parseFields(c.req.valid("query").fields, attachmentRecord.shape);
    return c.json({ attachment: projectFields(await getAttachment(c.get("caller"), c.req.valid("param").id, fields), fields) }, 200);
  })
  .openapi(remove, async (c) => {
    await deleteAttachment(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(content, (c) => attachmentContent(c, c.req.valid("param").id) as never);
