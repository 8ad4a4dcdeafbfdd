import { decodeBase64Url } from "hono/utils/encode";
import { base64url, timingSafeEqual } from "../../core/crypto";
import { badRequest } from "../../core/errors";

/** resource, sort signature, key values, id */
export interface CursorPayload {
  r: string;
  s: string;
  v: unknown[];
  i: string;
}

export interface CursorKey {
  scope: string;
  secret: string;
}

/** A longer cursor is refused unread (400), like a tampered one. */
export const MAX_CURSOR_LENGTH = 4096;
const SIGNATURE_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

// Imported keys are reused across requests; the cap only guards against unbounded growth.
const keyCache = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  if (secret.length === 0) throw new Error("Cursor secret must not be empty");
  let key = keyCache.get(secret);
  if (!key) {
    if (keyCache.size >= 16) keyCache.clear();
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keyCache.set(secret, key);
  }
  return key;
}

async function sign(payloadPart: string, key: CursorKey): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(key.secret), encoder.encode(`${key.scope}\n${payloadPart}`));
  return base64url(new Uint8Array(mac, 0, SIGNATURE_BYTES));
}

function isCursorValue(value: unknown): boolean {
  return value === null || typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isFinite(value));
}

function isPayload(value: unknown): value is CursorPayload {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const p = value as Record<string, unknown>;
  return typeof p.r === "string" && typeof p.s === "string" && typeof p.i === "string" && Array.isArray(p.v) && p.v.every(isCursorValue);
}

export async function encodeCursor(p: CursorPayload, key: CursorKey): Promise<string> {
  if (!isPayload(p)) throw new Error("Cursor values must be strings, finite numbers, booleans or null");
  const payloadPart = base64url(encoder.encode(JSON.stringify({ r: p.r, s: p.s, v: p.v, i: p.i })));
  return `${payloadPart}.${await sign(payloadPart, key)}`;
}

/** Throws AppError BAD_REQUEST ("Invalid cursor") on any malformed, tampered or foreign (other scope/secret) cursor. */
export async function decodeCursor(raw: string, key: CursorKey): Promise<CursorPayload> {
  const invalid = () => badRequest("Invalid cursor");
  if (typeof raw !== "string" || raw.length > MAX_CURSOR_LENGTH) throw invalid();
  const parts = raw.split(".");
  if (parts.length !== 2) throw invalid();
  const [payloadPart, signaturePart] = parts;
  if (!BASE64URL.test(payloadPart) || !BASE64URL.test(signaturePart)) throw invalid();
  if (!timingSafeEqual(await sign(payloadPart, key), signaturePart)) throw invalid();
  let payload: unknown;
  try {
    payload = JSON.parse(decoder.decode(decodeBase64Url(payloadPart)));
  } catch {
    throw invalid();
  }
  if (!isPayload(payload)) throw invalid();
  return { r: payload.r, s: payload.s, v: payload.v, i: payload.i };
}
