import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { badRequest, ValidationError } from "../../core/errors";
import type { Tx } from "../../db/client";
import { declaredLength, digestOf } from "../../files/storage";
import { createdResponse, errorResponses, jsonResponse } from "../../http/openapi";
import { listing, oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import type { CallerEnv } from "../../http/with-caller";
import { StoredAnswer, uploadRetry } from "../../middleware/safe-retries";
import { attachmentContent } from "./content";
import { type AttachmentParent, deleteAttachment, getAttachment, listAttachments, uploadAttachment } from "./operations";
import { Attachment, type AttachmentDto, AttachmentSelection, attachmentRecord, ContentType, Filename } from "./record";

const base = protectedRoute("Attachments");
// Raw bytes streamed to storage: their own size limit, no JSON checks, a repeat told apart by their digest.
const uploading = protectedRoute("Attachments", { body: "upload" });
const one = z.object({ attachment: Attachment });
const TaskIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Task id or reference (`ENG-12`, any case)" }),
});

const UploadQuery = z.object({
  filename: Filename.openapi({ description: "The file's name, as downloads will offer it", example: "shot.png" }),
});
const RawBody = {
  body: {
    required: true,
    description: "The file's bytes, with their `Content-Type` and `Content-Length` (`curl --data-binary @file`)",
    content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
  },
};
const UPLOAD_RULES =
  "The raw bytes are the body (a generated client: a `Blob` or `File`, sent as it is, not JSON-encoded; the JSON `{}` is " +
  "400, what a JSON-encoded Blob becomes); `Content-Type` is kept (default `application/octet-stream`; a media type of at " +
  "most 255 characters, else 422 at `Content-Type`). At most 25 MiB a file " +
  "(`MAX_ATTACHMENT_BYTES`) and 1 GiB a workspace: 413, nothing stored. A `Content-Digest: sha-256=:…:` (RFC 9530) that " +
  "does not match is 400, nothing stored. With an `Idempotency-Key`, a repeat of the same file (the same bytes, type and " +
  "query) gets the first answer and nothing is stored again; another file under the key is 422.";

const uploadResponses = {
  201: createdResponse(one, "Stored"),
  ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "PAYLOAD_TOO_LARGE"], { validation: true }),
};
const uploadToTask = createRoute({
  ...uploading,
  method: "post",
  operationId: "uploadTaskAttachment",
  path: "/tasks/{id}/attachments",
  summary: "Attach a file to a task",
  description: `Needs the right to change the task (team MEMBER or above, or workspace ADMIN/OWNER). ${UPLOAD_RULES}`,
  request: { params: TaskIdParam, query: UploadQuery, ...RawBody },
  responses: uploadResponses,
});
const uploadToComment = createRoute({
  // A comment's file changes the comment.
  ...protectedRoute("Attachments", { body: "upload", scope: "comments:write" }),
  method: "post",
  operationId: "uploadCommentAttachment",
  path: "/comments/{id}/attachments",
  summary: "Attach a file to a comment on a task",
  description: `Its author or a workspace ADMIN/OWNER (who may delete the comment), who must also be team MEMBER or above in the task's team (or workspace ADMIN/OWNER); only comments on tasks take files (422). ${UPLOAD_RULES}`,
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
  // A comment's file needs `comments:write` (its statement checks the scope its record needs).
  ...protectedRoute("Attachments", { alsoScopes: ["comments:write"] }),
  method: "delete",
  operationId: "deleteAttachment",
  path: "/attachments/{id}",
  summary: "Delete an attachment",
  description:
    "A task's file needs `tasks:write` and the right to change the task; a comment's needs `comments:write`, the right to change " +
    "its task and the right to delete the comment (its author or a workspace ADMIN/OWNER). Its bytes are removed from storage " +
    "after the answer (at least once, through a queue).",
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

/**
 * A file's type as sent (default application/octet-stream), by the rule an import checks it with (ContentType), so
 * every stored type exports and imports again: else 422 at `Content-Type`, before a byte is read.
 */
function contentTypeOf(header: string | undefined): string {
  const type = (header ?? "").trim() || "application/octet-stream";
  const checked = ContentType.safeParse(type);
  if (!checked.success) throw new ValidationError({ "Content-Type": checked.error.issues.map((issue) => issue.message) });
  return type;
}

/** A JSON media type (`application/json`, `…+json`). */
const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * The upload of a request: the query's file name and the raw body with its headers. A JSON body `{}` is refused: it is
 * what a client sends that JSON-encoded a Blob or File (openapi-fetch's default body serializer), never a file meant.
 */
async function upload(c: Context<CallerEnv>, filename: string) {
  const contentType = contentTypeOf(c.req.header("content-type"));
  const length = declaredLength(c.req.header("content-length"));
  let body = c.req.raw.body;
  if (JSON_TYPE.test(contentType) && length !== null && length <= 16) {
    const bytes = await c.req.arrayBuffer();
    if (/^\s*\{\s*\}\s*$/.test(new TextDecoder().decode(bytes))) {
      throw badRequest(
        'The body is the JSON {}, not a file\'s bytes: a client JSON-encoded the Blob or File it was given. Send the raw bytes (openapi-fetch: bodySerializer: (file) => file; docs/clients.md, "Files")',
      );
    }
    body = new Blob([bytes]).stream();
  }
  return { filename, contentType, length, digest: digestOf(c.req.header("content-digest")), body };
}

const location = (attachment: AttachmentDto) => `/attachments/${attachment.id}`;

const answerUpload = async (c: Context<CallerEnv>, parent: AttachmentParent, filename: string) => {
  // With an Idempotency-Key, the answer is stored with the record: the same answer `created` gives below.
  const retry = uploadRetry(c.req.raw);
  const withRecord = retry
    ? (tx: Tx, attachment: AttachmentDto) =>
        retry.keep(tx, attachment.sha256, { status: 201, location: location(attachment), body: JSON.stringify({ attachment }) })
    : undefined;
  try {
    const attachment = await uploadAttachment(c.get("caller"), c.env, parent, { ...(await upload(c, filename)), withRecord });
    return created(c, "attachment", location(attachment), attachment);
  } catch (err) {
    // The stored answer as it was kept (its JSON, status and Location), not retyped.
    if (err instanceof StoredAnswer) return err.response as never;
    throw err;
  }
};

export const attachmentRoutes = newRouter()
  .openapi(uploadToTask, (c) => answerUpload(c, { kind: "task", idOrRef: c.req.valid("param").id }, c.req.valid("query").filename))
  .openapi(uploadToComment, (c) => answerUpload(c, { kind: "comment", id: c.req.valid("param").id }, c.req.valid("query").filename))
  .openapi(
    list,
    reading(
      list,
      listing(attachmentRecord.list, "attachments", (caller, params, param) => listAttachments(caller, param.id, params)),
    ),
  )
  .openapi(read, reading(read, oneRecord("attachment", attachmentRecord.shape, getAttachment)))
  .openapi(remove, async (c) => {
    await deleteAttachment(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  })
  .openapi(content, (c) => attachmentContent(c, c.req.valid("param").id) as never);
