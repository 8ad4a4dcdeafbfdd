// The Attachment record (docs/api.md, "Attachments"): a file on a task or on one of its comments, its bytes in R2.
// The field map gives the answer, the list under a task, the events' data and the export's file entries.
import { z } from "@hono/zod-openapi";
import { type SQL, sql } from "drizzle-orm";
import { attachments } from "../../drizzle/schema";
import { defineRecord, f } from "../store/record";
import { BodyId, ExportTimestamp } from "../store/schemas";
import { named } from "./names";

const a = attachments;

/** A file's name as an upload takes it and an export carries it: no control characters, no path separators. */
export const Filename = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (s) => ![...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f || ch === "/" || ch === "\\"),
    "Must be a file name: no control characters, no / or \\",
  );

export const attachmentRecord = defineRecord({
  name: "Attachment",
  resource: "attachments",
  id: a.id,
  workspace: a.workspaceId,
  team: a.teamId,
  from: sql`${a}`,
  fields: {
    id: f.id(a.id, { names: named("attachment"), exported: BodyId, doc: { example: "att_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    taskId: f.id(a.taskId, { names: named("task"), exported: BodyId }),
    commentId: f.id(a.commentId, {
      names: named("comment"),
      nullable: true,
      exported: BodyId.nullable(),
      doc: { description: "The comment it is attached to (null: the task itself)" },
    }),
    filename: f.text(a.filename, { exported: Filename }),
    contentType: f.text(a.contentType, { list: { sort: false }, exported: z.string().min(1).max(255) }),
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
