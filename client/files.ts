// Files through the typed client. The document says an upload's body and a download are bytes (`format: binary`,
// typed `Blob` in client/api.d.ts), but openapi-fetch's default body serializer JSON-encodes any body, a Blob to `{}`:
// an upload sends the Blob as it is instead, and a download is read as a Blob. docs/clients.md, "Files".
import type { PmClient } from "./index";

/** Where a file goes: a task (id or reference) or a comment on a task. */
export type FileParent = { task: string } | { comment: string };

export interface UploadOptions {
  /** The file's name, as downloads will offer it. */
  filename: string;
  /** More request headers: `content-digest` (RFC 9530), `idempotency-key`. */
  headers?: Record<string, string>;
}

/** Uploads `file` (a Blob or File; its `type` is the Content-Type, default application/octet-stream): openapi-fetch's answer. */
export function uploadFile(api: PmClient, parent: FileParent, file: Blob, { filename, headers = {} }: UploadOptions) {
  const request = {
    body: file,
    bodySerializer: (body: Blob) => body,
    headers: { "content-type": file.type || "application/octet-stream", ...headers },
  };
  return "task" in parent
    ? api.POST("/tasks/{id}/attachments", { params: { path: { id: parent.task }, query: { filename } }, ...request })
    : api.POST("/comments/{id}/attachments", { params: { path: { id: parent.comment }, query: { filename } }, ...request });
}

/** The bytes of attachment `id`, as a Blob of its stored type: openapi-fetch's answer. */
export function downloadFile(api: PmClient, id: string) {
  return api.GET("/attachments/{id}/content", { params: { path: { id } }, parseAs: "blob" });
}
