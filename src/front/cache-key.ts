// Where an answer is stored in the location's cache. The key holds a hash of everything that says who asked
// (svc-api-key, Authorization, Cookie) and of what shape the answer was asked in (Accept): an entry is found only by
// a request with the same credential, so no credential is ever answered from another's entry, whatever the route
// answers. Pure (Web Crypto only), so the unit project tests it (test/unit/edge-cache-key.test.ts).

/** Headers that make the answer the caller's own: part of the key. */
export const CREDENTIAL_HEADERS = ["svc-api-key", "authorization", "cookie"] as const;
/** Headers that may change the answer's representation: part of the key too. */
const VARIANT_HEADERS = ["accept"] as const;

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

async function sha256(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/**
 * The credential's fingerprint: SHA-256 over each credential header's name and exact value (JSON keeps the fields
 * apart, so no two different header sets hash the same input). "anonymous" requests share one fingerprint.
 */
export function credentialHash(headers: Headers): Promise<string> {
  return sha256(JSON.stringify(CREDENTIAL_HEADERS.map((h) => [h, headers.get(h)])));
}

/** The cache key of a GET: the request's own origin (the Cache API is per zone), then the fingerprint, then the URL. */
export async function entryKey(request: Request): Promise<string> {
  const url = new URL(request.url);
  const who = await credentialHash(request.headers);
  const shape = await sha256(JSON.stringify(VARIANT_HEADERS.map((h) => [h, request.headers.get(h)])));
  return `${url.origin}/.pm-edge/entry/${who}/${shape.slice(0, 16)}${url.pathname}${url.search}`;
}

/**
 * The key of a workspace's last write through this location; `*` stands for writes whose workspace the origin did not
 * name (every entry is checked against it too).
 */
export function writeMarkerKey(requestUrl: string, workspace: string): string {
  return `${new URL(requestUrl).origin}/.pm-edge/write/${encodeURIComponent(workspace)}`;
}

/**
 * The key of what the location knows of a credential: its workspace (an API key's, or a JWT's payload, never changes), so
 * the origin is asked for it once per credential and location, not on every write and miss.
 */
export function credentialWorkspaceKey(requestUrl: string, fingerprint: string): string {
  return `${new URL(requestUrl).origin}/.pm-edge/credential/${fingerprint}`;
}
