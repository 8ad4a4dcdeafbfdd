// What the least-privilege tests share (docs/api.md, least privilege): keys with scopes and teams, made through the API by a workspace
// member's unrestricted key, and the workspace's event stream, which a refused request must leave as it was.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { SCOPES, type Scope } from "../../src/core/scopes";
import { type ApiResponse, api, get, post } from "./api";

export { SCOPES, type Scope };

/** A key no workspace knows: 401 wherever a credential is required. */
export const BAD_KEY = "pmk_not-a-key-0000000000000000000000000000000";

export const ok = (res: ApiResponse, status: number) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
};

let keyCount = 0;
/** A new API key of the user of `creator` (`POST /api-keys`): the raw key. Omitted scopes or teams: the creator's. */
export async function keyWith(creator: string, grants: { scopes?: Scope[]; teamIds?: string[] | null } = {}): Promise<string> {
  const res = await post("/api-keys", { name: `lp-${keyCount++}`, ...grants }, creator);
  return ok(res, 201).key as string;
}

/** 403 FORBIDDEN naming `scope` as the one missing. */
export function expectMissingScope(res: ApiResponse, scope: Scope, what = "") {
  expect(res.status, `${what} ${JSON.stringify(res.body)}`.trim()).toBe(403);
  expect(res.body.error, what).toMatchObject({ code: "FORBIDDEN", details: { requiredScope: scope } });
}

/** Every event of the workspace after `after` (all pages) that `key` sees, oldest first. */
export async function eventsAfter(key: string, after?: string): Promise<any[]> {
  const seen: any[] = [];
  let path = `/events?limit=250${after ? `&after=${after}` : ""}`;
  for (;;) {
    const body = ok(await get(path, key), 200);
    seen.push(...body.events);
    if (!body.pagination.nextCursor) return seen;
    path = `/events?limit=250&cursor=${encodeURIComponent(body.pagination.nextCursor)}`;
  }
}

let hookCount = 0;
/** A URL of the test's own webhook receiver that answers 200. */
export const receiverUrl = () => `${env.WEBHOOK_RECEIVER}/ok/least-privilege-${Date.now().toString(36)}-${hookCount++}`;

/** `METHOD path` with its body and credential, through the worker; a string body is sent as raw bytes (a file upload). */
export const call = (op: string, path: string, key: string, body?: unknown, headers?: Record<string, string>) =>
  typeof body === "string"
    ? api(op.split(" ")[0], path, {
        key,
        rawBody: body,
        headers: { "content-type": "text/plain", "content-length": String(new TextEncoder().encode(body).byteLength), ...headers },
      })
    : api(op.split(" ")[0], path, { key, body, headers });
