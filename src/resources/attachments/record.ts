// The Attachment record (docs/api.md, "Attachments"): a file on a task or on one of its comments, its bytes in R2.
// The field map gives the answer, the list under a task, the events' data and the export's file entries.
import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import { attachments } from "../../../drizzle/schema";
import { idKind, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import { BodyId, ExportTimestamp, NOT_PLAIN, PLAIN_MESSAGE } from "../../store/schemas";
import { COMMENT_ID } from "../comments/record";

/** How a request names an attachment: by its id (`att_…`) only. */
export const ATTACHMENT_ID = idKind("an attachment id", "att");

const a = attachments;

/**
 * A file's name as an upload takes it and an export carries it: a name that reads as it is (NOT_PLAIN), no path
 * separators, not `.` or `..` (a name a download would save is a name inside its folder).
 */
export const Filename = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (s) => !NOT_PLAIN.test(s) && !/[/\\]/.test(s) && s !== "." && s !== "..",
    `Must be a file name: ${PLAIN_MESSAGE}, no / or \\, not . or ..`,
  );

/** A token of RFC 9110 §5.6.2, and a media type of §8.3.1 with its parameters (a value a token or a quoted string). */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}([ \\t]*;([ \\t]*${TOKEN}=(${TOKEN}|"([\\t !#-\\[\\]-~]|\\\\[\\t -~])*"))?)*[ \\t]*$`);
/** A file's type as an upload takes it (its Content-Type) and an export carries it: a media type of at most 255 characters. */
export const ContentType = z.string().min(1).max(255).regex(MEDIA_TYPE, "Must be a media type: type/subtype, then ; name=value parameters");

export const attachmentRecord = defineRecord({
  name: "Attachment",
  resource: "attachments",
  id: a.id,
  workspace: a.workspaceId,
  team: a.teamId,
  from: sql`${a}`,
  fields: {
    id: f.id(a.id, { names: named(ATTACHMENT_ID), exported: BodyId, doc: { example: "att_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    taskId: f.id(a.taskId, { names: named("task"), exported: BodyId }),
    commentId: f.id(a.commentId, {
      names: named(COMMENT_ID),
      nullable: true,
      exported: BodyId.nullable(),
      doc: { description: "The comment it is attached to (null: the task itself)" },
    }),
    filename: f.text(a.filename, { exported: Filename }),
    contentType: f.text(a.contentType, { list: { sort: false }, exported: ContentType }),
    size: f.integer(a.size, { exported: z.number().int().min(0), doc: { description: "Bytes" } }),
    sha256: f.text(a.sha256, {
      list: false,
      exported: z.string().regex(/^[0-9a-f]{64}$/),
      doc: { description: "Hex SHA-256 of the bytes; the content's ETag" },
    }),
    createdBy: f.id(a.creatorId, { nullable: true, names: named("user"), exported: BodyId.nullable() }),
    createdAt: f.datetime(a.createdAt, { exported: ExportTimestamp }),
  },
});
export const Attachment = attachmentRecord.schema;
export type AttachmentDto = z.infer<typeof Attachment>;
export const AttachmentSelection = attachmentRecord.selection;

/** Where an attachment's bytes are read: `GET /attachments/{id}/content`. */
export const contentPath = (id: string) => `/attachments/${id}/content`;

/**
 * An attachment as an export carries it: the record and `path`, where `pm export --files` stores its bytes relative to
 * its folder (by content, so a file is stored once).
 */
export const exportedAttachmentJson = (): SQL =>
  sql`((${attachmentRecord.exportJson()})::jsonb || jsonb_build_object('path', 'files/' || ${attachments.sha256}))`;
/** What `pm import --files` reads of an exported attachment by name; the other fields are checked as exported. */
export type ExportedAttachment = {
  id: string;
  taskId: string;
  commentId: string | null;
  filename: string;
  contentType: string;
  sha256: string;
  path: string;
};
export const ExportAttachment = z
  .object({ ...attachmentRecord.exportShape(), path: z.string().regex(/^files\/[0-9a-f]{64}$/) })
  .strict()
  .openapi("ExportAttachment") as unknown as z.ZodType<ExportedAttachment>;
