// Attachments' bytes in R2 (docs/api.md, "Attachments"): streamed from the request to the bucket, never held whole, the
// SHA-256 computed on the way (Workers' DigestStream); the limits of a file and of a workspace's total.
import { AppError, badRequest } from "../core/errors";
import type { Env } from "../env";

const MiB = 1024 * 1024;
export const DEFAULT_MAX_ATTACHMENT_BYTES = 25 * MiB;
/** Workers take request bodies up to 100 MB on the Free and Pro plans: a larger setting could never be met. */
export const PLATFORM_MAX_BODY_BYTES = 100 * 1000 * 1000;
export const DEFAULT_MAX_WORKSPACE_FILE_BYTES = 1024 * MiB;

type Limits = Pick<Env, "MAX_ATTACHMENT_BYTES" | "MAX_WORKSPACE_FILE_BYTES">;
const setting = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value && Number.isSafeInteger(n) && n > 0 ? n : fallback;
};
export const maxAttachmentBytes = (env: Limits) =>
  Math.min(setting(env.MAX_ATTACHMENT_BYTES, DEFAULT_MAX_ATTACHMENT_BYTES), PLATFORM_MAX_BODY_BYTES);
export const maxWorkspaceBytes = (env: Limits) => setting(env.MAX_WORKSPACE_FILE_BYTES, DEFAULT_MAX_WORKSPACE_FILE_BYTES);

const words = (bytes: number) => (bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`);
export const fileTooLarge = (max: number) => new AppError("PAYLOAD_TOO_LARGE", `A file may have at most ${words(max)}`, { maxBytes: max });
export const quotaExceeded = (max: number, used: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `The workspace's files would exceed ${words(max)}`, { maxBytes: max, usedBytes: used });

/** The hex SHA-256 a `Content-Digest: sha-256=:<base64>:` (RFC 9530) names, or null when it names none (other algorithms are ignored). */
export function digestOf(header: string | undefined): string | null {
  if (!header) return null;
  const entry = header
    .split(",")
    .map((part) => part.trim())
    .find((part) => part.toLowerCase().startsWith("sha-256="));
  if (!entry) return null;
  const match = /^sha-256=:([A-Za-z0-9+/]{43}=):$/i.exec(entry);
  if (!match) throw badRequest("Content-Digest's sha-256 must be `sha-256=:<base64 of 32 bytes>:` (RFC 9530)");
  return [...atob(match[1])].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("");
}

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** A request's `Content-Length` as a byte count (null: absent, or not a count). */
export const declaredLength = (header: string | undefined) => (header !== undefined && /^\d+$/.test(header) ? Number(header) : null);

/**
 * The hex SHA-256 of a body, read as it streams (never held whole) in the pieces an upload reads when `length` (its
 * `Content-Length`) is declared; an absent body's is the empty string's. A body of another length is 400.
 */
export async function streamSha256(body: ReadableStream<Uint8Array> | null, length: number | null): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  // An aborted copy rejects the digest too: that refusal is answered by the copy's.
  digest.digest.catch(() => undefined);
  if (body && length !== null)
    await copyInPieces(body, length, [digest.getWriter()]).catch((err: unknown) => {
      throw err instanceof BodyFailure ? bodyRefusal(length) : err;
    });
  else await (body ? body.pipeTo(digest) : digest.getWriter().close());
  return hex(await digest.digest);
}

/**
 * How much of the body is read (and written to the store and to the digest) at a time. The runtime hands a request's
 * body over in 4 KiB chunks, and each write into a DigestStream has a fixed cost: chunk by chunk, the digest of 10 MiB
 * took 54 ms of CPU, in pieces of 256 KiB 3 ms (miniflare, this machine), and the upload ran at half a plain put's
 * speed (docs/performance.md, "Files").
 */
const PIECE_BYTES = 1024 * 1024;

/** The body failed, or ended at another length than announced: the caller's fault (400), not the store's. */
class BodyFailure extends Error {}

/** The 400 of a body that failed or was not `length` bytes. */
const bodyRefusal = (length: number) => badRequest(`The body did not arrive whole (Content-Length said ${length} bytes)`);

/** A reader of `body` that fills a buffer at a time: a request's body is a byte stream; any other goes through one. */
function piecesOf(body: ReadableStream<Uint8Array>): ReadableStreamBYOBReader {
  try {
    return body.getReader({ mode: "byob" });
  } catch {
    return body.pipeThrough(new IdentityTransformStream()).getReader({ mode: "byob" });
  }
}

/**
 * Copies `body` into every writer, PIECE_BYTES at a time; BodyFailure when the body fails or its length is not
 * `length`. The writers are closed at the end, aborted on a failure.
 */
async function copyInPieces(body: ReadableStream<Uint8Array>, length: number, writers: WritableStreamDefaultWriter[]) {
  const reader = piecesOf(body);
  let read = 0;
  // One buffer for the whole copy (a write is done with its bytes once it resolves), no larger than the body: a new
  // one per piece left the isolate holding a 25 MiB upload's size in garbage.
  const size = Math.max(1, Math.min(PIECE_BYTES, length));
  let buffer = new Uint8Array(size);
  try {
    for (;;) {
      const { value, done } = await reader.readAtLeast(size, buffer).catch((err: unknown) => {
        throw new BodyFailure(String(err));
      });
      read += value?.byteLength ?? 0;
      if (read > length || (done && read !== length)) throw new BodyFailure(`${read} bytes`);
      if (value?.byteLength) await Promise.all(writers.map((w) => w.write(value)));
      if (done || !value) break;
      buffer = new Uint8Array(value.buffer);
    }
    await Promise.all(writers.map((w) => w.close()));
  } catch (err) {
    await Promise.all([reader.cancel(err), ...writers.map((w) => w.abort(err))].map((p) => p.catch(() => undefined)));
    throw err;
  }
}

/**
 * Streams `body` (exactly `length` bytes) to the object `key` and returns its hex SHA-256. A body of another length or
 * one that fails is 400, a failed put 503; either way nothing is stored.
 */
export async function storeObject(
  env: Pick<Env, "FILES">,
  key: string,
  body: ReadableStream<Uint8Array>,
  length: number,
  contentType: string,
): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  // An aborted copy rejects the digest too: that refusal is answered below.
  digest.digest.catch(() => undefined);
  const fixed = new FixedLengthStream(length);
  const storing = fixed.writable.getWriter();
  const put = env.FILES.put(key, fixed.readable, { httpMetadata: { contentType } });
  // A refused put stops the copy (its writes would otherwise wait for a reader that is gone).
  put.catch((err: unknown) => storing.abort(err).catch(() => undefined));
  const [stored, copied] = await Promise.allSettled([put, copyInPieces(body, length, [storing, digest.getWriter()])]);
  if (stored.status === "fulfilled" && copied.status === "fulfilled") return hex(await digest.digest);
  await env.FILES.delete(key).catch(() => undefined);
  if (copied.status === "rejected" && copied.reason instanceof BodyFailure) throw bodyRefusal(length);
  // The body arrived whole and the store refused it: the caller's request was fine, the store was not.
  throw new AppError("UNAVAILABLE", "The file store is unavailable; nothing was stored, retry later");
}
