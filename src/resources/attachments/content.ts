// GET /attachments/{id}/content (docs/api.md, "Attachments"): the bytes as a download that never runs on the API's
// origin (Content-Disposition attachment, nosniff, a sandboxing CSP), revalidated by its SHA-256 (a strong ETag: the
// bytes never change) and read in ranges (RFC 9110: one range, If-Range honoured; several are answered whole, as the RFC allows).
import type { Context } from "hono";
import { AppError } from "../../core/errors";
import { errorResponse } from "../../http/error-mapper";
import type { CallerEnv } from "../../http/with-caller";
import { attachmentObject } from "./operations";

/**
 * The type a download is served with: the stored one (the record keeps it), except HTML, served as bytes. A proxy that
 * rewrites HTML on its way (wrangler dev's, Cloudflare's HTML features) decodes a text/html body by its charset, and
 * one it cannot decode (`text/html; charset=utf-7`) stalled the download for good. The file is an attachment anyway:
 * saved, never shown, whatever its type says.
 */
const servedType = (type: string) => (/^text\/html[ \t]*(;|$)/i.test(type) ? "application/octet-stream" : type);

/** `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>` (RFC 6266, RFC 8187). */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** The one range `bytes=a-b`, `bytes=a-` or `bytes=-n` of `size` bytes; null: no usable Range (the whole); "unsatisfiable": 416. */
export function parseRange(header: string | undefined, size: number): { offset: number; length: number } | null | "unsatisfiable" {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    const length = Math.min(suffix, size);
    return { offset: size - length, length };
  }
  const first = Number(match[1]);
  const last = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (first >= size || last < first) return "unsatisfiable";
  return { offset: first, length: last - first + 1 };
}

const matches = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined && (ifNoneMatch.trim() === "*" || (ifNoneMatch.match(/"[^"]*"/g) ?? ([] as string[])).includes(etag));

export async function attachmentContent(c: Context<CallerEnv>, id: string): Promise<Response> {
  const header = (name: string) => c.req.header(name);
  const { attachment, objectKey } = await attachmentObject(c.get("caller"), id);
  const etag = `"${attachment.sha256}"`;
  const headers = new Headers({
    ETag: etag,
    "Content-Disposition": contentDisposition(attachment.filename),
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Accept-Ranges": "bytes",
    // Per credential, and never compressed on the way (Cloudflare honours no-transform): the ETag and a range describe
    // these bytes.
    "Cache-Control": "private, no-transform",
  });
  if (matches(header("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  // If-Range (RFC 9110 §13.1.5): a range only of these bytes, by their strong ETag; anything else (a date: there is no
  // Last-Modified) asks for the whole file.
  const ifRange = header("if-range");
  const range = parseRange(ifRange === undefined || ifRange.trim() === etag ? header("range") : undefined, attachment.size);
  if (range === "unsatisfiable") {
    // The one error mapper's answer, with the size a client needs to ask again (RFC 9110 §15.5.17).
    const res = errorResponse(new AppError("RANGE_NOT_SATISFIABLE", `The file has ${attachment.size} bytes`), c);
    res.headers.set("Content-Range", `bytes */${attachment.size}`);
    return res;
  }
  const object = await c.env.FILES.get(objectKey, range ? { range } : {});
  if (!object) throw new AppError("NOT_FOUND", "The attachment's bytes are missing");
  headers.set("Content-Type", servedType(attachment.contentType));
  if (range) {
    headers.set("Content-Range", `bytes ${range.offset}-${range.offset + range.length - 1}/${attachment.size}`);
    headers.set("Content-Length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("Content-Length", String(attachment.size));
  return new Response(object.body, { status: 200, headers });
}
