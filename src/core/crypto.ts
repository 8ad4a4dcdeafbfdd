import { decodeBase64, encodeBase64, encodeBase64Url } from "hono/utils/encode";

const encoder = new TextEncoder();

/** Unpadded base64url (RFC 4648 §5) of `bytes`: tokens, cursors, JWK coordinates. */
export const base64url = (bytes: Uint8Array): string => encodeBase64Url(bytes.slice().buffer).replace(/=+$/, "");

export const randomToken = (bytes = 32): string => base64url(crypto.getRandomValues(new Uint8Array(bytes)));

export async function sha256Hex(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(value)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time comparison of two strings (digests, codes, signatures): the time does not depend on where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** A uniformly random 6-digit code (rejection sampling, no modulo bias). */
export function sixDigitCode(): string {
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    if (buf[0] < 4_294_000_000) return String(buf[0] % 1_000_000).padStart(6, "0");
  }
}

const sealingKeys = new Map<string, Promise<CryptoKey>>();
/** An AES-GCM key derived (HKDF-SHA-256) from `secret` for one `purpose`, so one configured secret serves several uses. */
function sealingKey(secret: string, purpose: string): Promise<CryptoKey> {
  const id = `${purpose}\u0000${secret}`;
  let key = sealingKeys.get(id);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(purpose) },
          base,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    sealingKeys.set(id, key);
  }
  return key;
}

/** `text` encrypted and authenticated (AES-GCM, random IV, bound to `context`), as base64 of IV ‖ ciphertext. */
export async function sealText(secret: string, purpose: string, text: string, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    await sealingKey(secret, purpose),
    encoder.encode(text),
  );
  const out = new Uint8Array(12 + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), 12);
  return encodeBase64(out.buffer);
}

/** The text `sealText` sealed with the same secret, purpose and context (throws when any differs or it was altered). */
export async function openText(secret: string, purpose: string, sealed: string, context: string): Promise<string> {
  const bytes = decodeBase64(sealed);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: encoder.encode(context) },
    await sealingKey(secret, purpose),
    bytes.slice(12),
  );
  return new TextDecoder().decode(plain);
}
