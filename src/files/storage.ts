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

/** The hex SHA-256 of a body, read as it streams (never held whole); an absent body's is the empty string's. */
export async function streamSha256(body: ReadableStream<Uint8Array> | null): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  await (body ? body.pipeTo(digest) : digest.getWriter().close());
  return hex(await digest.digest);
}

/**
 * Streams `body` (exactly `length` bytes) to the object `key` and returns its hex SHA-256. A body of another length fails
 * the stream (FixedLengthStream), so nothing is stored; so does a failed put.
 */
export async function storeObject(
  env: Pick<Env, "FILES">,
  key: string,
  body: ReadableStream<Uint8Array>,
  length: number,
  contentType: string,
): Promise<string> {
  const digest = new crypto.DigestStream("SHA-256");
  const hashing = digest.getWriter();
  const fixed = new FixedLengthStream(length);
  const piped = body
    .pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          // Not awaited: the digest keeps its writes in order, and waiting for each held every chunk back from R2 (the
          // upload ran at a third of a plain put). close() below waits for them all.
          hashing.write(chunk).catch(() => undefined);
          out.enqueue(chunk);
        },
        async flush() {
          await hashing.close();
        },
      }),
    )
    .pipeTo(fixed.writable);
  const [put] = await Promise.allSettled([env.FILES.put(key, fixed.readable, { httpMetadata: { contentType } }), piped]);
  const streamed = await piped.then(
    () => null,
    (err: unknown) => err,
  );
  if (put.status === "rejected" || streamed) {
    await env.FILES.delete(key).catch(() => undefined);
    if (streamed) throw badRequest(`The body did not arrive whole (Content-Length said ${length} bytes)`);
    // The body arrived whole and the store refused it: the caller's request was fine, the store was not.
    throw new AppError("UNAVAILABLE", "The file store is unavailable; nothing was stored, retry later");
  }
  return hex(await digest.digest);
}
