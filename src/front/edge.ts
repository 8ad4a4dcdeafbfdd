// The front Worker's one decision (docs/edge.md): answer a GET from this location's cache when the
// caller allows an old enough answer and nothing written here since makes it wrong, else forward to the API Worker.
//
// What makes a stored answer safe to serve:
// - it was fetched with the same credential (the key holds its hash, src/front/cache-key.ts);
// - its age, counted from the moment the front Worker *sent* the request that fetched it (never later than the data it
//   holds), is within the caller's `max-age`/`max-stale` and the server's maximum;
// - it was sent strictly after the last successful write of its workspace through this location finished (the write
//   marker, kept in the same Cache API, so every isolate of the location sees it before the write is answered);
// - its credential has not expired (a key's `expiresAt`, a JWT's `exp`, as the origin named it);
// - when the request names a position (`PM-Min-Position`, a write's `PM-Position`), it was fetched at that position.

import { CREDENTIAL_HEADERS, credentialHash, credentialWorkspaceKey, entryKey, writeMarkerKey } from "./cache-key";
import { acceptableAge, parseRequestDirectives } from "./directives";

/** Request header: the front Worker asks the origin to name the caller's workspace. */
export const ASK_WORKSPACE = "x-pm-edge-workspace";
/** Response header: the origin's answer; internal, never passed on to the caller. */
export const WORKSPACE = "x-pm-workspace";
/** Response header, beside WORKSPACE: when the credential expires (ms since the epoch), absent when it never does. */
export const CREDENTIAL_EXPIRES = "x-pm-credential-expires";
/**
/**
 * Request headers of a write (src/middleware/settle-asked): its attempt, named here so the front Worker can ask after
 * it, and the question itself, sent when the API Worker dropped the write.
 */
export const ATTEMPT = "x-pm-attempt";
export const SETTLE = "x-pm-settle";
/**
 * Response header, on any answer whatever its status: the workspace whose credentials the request revoked (a replayed
 * OAuth code or refresh token, refused with a 400, revokes its grant). Recorded as a write of it; internal, stripped.
 */
export const REVOKED = "x-pm-revoked";
/**
 * Response header, on a successful write: the other workspaces whose answers it changed, comma-separated (a person's
 * profile is theirs in every workspace they belong to). Each is recorded as a write of it; internal, stripped.
 */
export const ALSO_WRITTEN = "x-pm-also-written";
/**
 * Request header: the caller reads nothing older than this position (a write's `PM-Position`: an event id). Positions
 * follow transaction ids, not commit order, so two of them say nothing of which committed first: the one position a
 * stored answer is known to include is the one the request that fetched it named (the write had been answered by
 * then). An entry is served to a request naming a position only if it was fetched at exactly that one (docs/edge.md).
 */
export const MIN_POSITION = "pm-min-position";
/** The marker of writes whose workspace the origin did not name: every entry is checked against it too. */
export const ANY_WORKSPACE = "*";

// What an entry carries besides the answer (stripped before the answer is served).
const SENT_AT = "x-pm-edge-sent-at";
const ENTRY_WORKSPACE = "x-pm-edge-entry-workspace";
const ORIGIN_CACHE_CONTROL = "x-pm-edge-origin-cache-control";
/** When the entry's credential expires (ms since the epoch, or NEVER): the entry is never served from then on. */
const ENTRY_EXPIRES = "x-pm-edge-credential-expires";
/** The position the entry was fetched at (the fetching request's PM-Min-Position), absent when it named none. */
const ENTRY_POSITION = "x-pm-edge-position";
const NEVER = "never";
const META = [SENT_AT, ENTRY_WORKSPACE, ORIGIN_CACHE_CONTROL, ENTRY_EXPIRES, ENTRY_POSITION];
/** Hop-by-hop or per-request headers of the origin's answer that an entry does not keep (RateLimit-* it keeps, for hits). */
const NOT_STORED = ["set-cookie", "retry-after", WORKSPACE, CREDENTIAL_EXPIRES, REVOKED, ALSO_WRITTEN];
const RATE_LIMIT = ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"] as const;

const CACHE_NAME = "pm-edge";

/**
 * Paths never stored, whatever the origin says: the dev mailbox and receivers, the device-approval page. Decided on the
 * path as the API routes it, percent-decoded (`/%5Fdev/mailbox` is `/_dev/mailbox`); a path that does not decode is
 * never stored either.
 */
export function neverStored(rawPath: string): boolean {
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return true;
  }
  return path.startsWith("/_dev/") || path === "/_dev" || path.startsWith("/device");
}

export interface EdgeDeps {
  /** The API Worker (the Service Binding). */
  origin: { fetch(request: Request): Promise<Response> };
  /** This location's cache (`caches.default` in production; a named cache per simulated location in tests). */
  cache: Cache;
  /** The server's maximum age of an answer served from the cache, in seconds; 0 turns edge caching off. */
  maxSeconds: number;
  /** Milliseconds since the epoch (Date.now in production; a test moves its own clock). */
  now: () => number;
  /** Development only: each forwarded call is held this long (a simulated distance to the origin, for the bench). */
  originDelayMs: number;
  waitUntil(promise: Promise<unknown>): void;
}

const status = (params: string) => `${CACHE_NAME}; ${params}`;

function answer(res: Response, cacheStatus: string, ageSeconds: number, body: BodyInit | null = res.body): Response {
  const headers = new Headers(res.headers);
  for (const h of [WORKSPACE, CREDENTIAL_EXPIRES, REVOKED, ALSO_WRITTEN, ...META]) headers.delete(h);
  headers.set("age", String(Math.max(0, Math.floor(ageSeconds))));
  // RFC 9211 §2: members run from the cache nearest the origin to the one nearest the caller, which this is.
  const prior = headers.get("cache-status");
  headers.set("cache-status", prior ? `${prior}, ${cacheStatus}` : cacheStatus);
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/** The API Worker's own answer, or null when there is none (the binding threw) or it is not the API's (a 5xx not in JSON). */
async function originAnswer(deps: EdgeDeps, request: Request): Promise<Response | null> {
  try {
    const res = await deps.origin.fetch(request);
    if (res.status < 500 || isJson(res)) return res;
    console.error(`API Worker answered ${res.status} ${(await res.text()).slice(0, 200)}`);
  } catch (err) {
    console.error(`API Worker unreachable: ${err instanceof Error ? err.message : String(err)}`);
  }
  return null;
}

/**
 * The API Worker's answer. When there is none (the binding throws: the API Worker restarted or failed mid-request) or it
 * is not the API's (workerd's own plain-text "Your worker restarted mid-request"), a read gets the API's error shape,
 * 503 UNAVAILABLE; a write may have committed, so the front Worker asks the API Worker after it (the same request,
 * without its body, `x-pm-settle`: it is settled, never run again) and answers what it says: the write's own answer,
 * 503 "nothing was written" or 503 OUTCOME_UNKNOWN; without an answer to that either, OUTCOME_UNKNOWN (docs/edge.md).
 */
async function forward(request: Request, deps: EdgeDeps, headers: Headers): Promise<Response> {
  if (deps.originDelayMs > 0) await new Promise((r) => setTimeout(r, deps.originDelayMs));
  const res = await originAnswer(deps, new Request(request, { headers }));
  if (res) return res;
  if (!headers.has(ATTEMPT)) return unavailable(headers);
  const asked = new Headers(headers);
  asked.set(SETTLE, "1");
  asked.delete("content-type");
  asked.delete("content-length");
  return (await originAnswer(deps, new Request(request.url, { method: request.method, headers: asked }))) ?? outcomeUnknown(headers);
}

const isJson = (res: Response) => (res.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json");

/** The API's error shape, for an answer the API Worker did not give; the request id is the one the origin was sent. */
function failure(code: "UNAVAILABLE" | "OUTCOME_UNKNOWN", message: string, headers: Headers): Response {
  const requestId = usableRequestId(headers.get("x-request-id")) ?? crypto.randomUUID();
  return Response.json({ error: { code, message, details: { requestId } } }, { status: 503, headers: { "x-request-id": requestId } });
}
/** A read the API Worker did not answer. */
const unavailable = (headers: Headers) => failure("UNAVAILABLE", "The service could not answer; retry shortly", headers);
/** A write the API Worker dropped, and could not say after whether it committed. */
const outcomeUnknown = (headers: Headers) =>
  failure(
    "OUTCOME_UNKNOWN",
    "The service could not answer, and whether the write was applied could not be checked; retry with the same Idempotency-Key " +
      "(its retry answers the write if it was applied, and applies it once if not)",
    headers,
  );

/**
 * The request's headers as the origin gets them: any client-sent internal header replaced by the front's own. A write
 * gets its attempt and a request id (the caller's, or a new one), so that the front Worker can ask after it.
 */
function originHeaders(request: Request, askWorkspace: boolean): Headers {
  const headers = new Headers(request.headers);
  for (const internal of [ASK_WORKSPACE, ATTEMPT, SETTLE]) headers.delete(internal);
  if (askWorkspace) headers.set(ASK_WORKSPACE, "1");
  if (!["GET", "HEAD", "OPTIONS"].includes(request.method)) {
    headers.set(ATTEMPT, crypto.randomUUID());
    headers.set("x-request-id", usableRequestId(request.headers.get("x-request-id")) ?? crypto.randomUUID());
  }
  return headers;
}

/** How long the location remembers a credential's workspace (it never changes; a day keeps the cache tidy). */
const CREDENTIAL_TTL_SECONDS = 86_400;

/**
 * The workspace of the request's credential as this location knows it, or null: then the origin is asked
 * (`x-pm-edge-workspace`), which costs it the principal's query for an API key, once per credential and location.
 */
async function knownWorkspace(deps: EdgeDeps, request: Request): Promise<Known> {
  const key = credentialWorkspaceKey(request.url, await credentialHash(request.headers));
  const found = await deps.cache.match(key);
  const expires = found?.headers.get(ENTRY_EXPIRES);
  // A memory without the expiry (kept before expiries were) is no memory: the origin is asked again.
  return { key, workspace: found && expires ? found.headers.get(ENTRY_WORKSPACE) : null, expires: expires ?? NEVER };
}

/** What the location knows of a credential: its workspace (null: unknown) and when it expires (ms, or NEVER). */
interface Known {
  key: string;
  workspace: string | null;
  expires: string;
}

/** Remembers the workspace and the expiry the origin named for the request's credential (both never change). */
function rememberWorkspace(deps: EdgeDeps, key: string, workspace: string, expires: string): void {
  const headers = { [ENTRY_WORKSPACE]: workspace, [ENTRY_EXPIRES]: expires, "cache-control": `max-age=${CREDENTIAL_TTL_SECONDS}` };
  deps.waitUntil(deps.cache.put(key, new Response(null, { headers })));
}

/**
 * The workspace of an answer and when its credential expires: the origin's word, or the location's memory of the
 * credential; remembered if new.
 */
function workspaceOf(deps: EdgeDeps, res: Response, known: Known): { workspace: string | null; expires: string } {
  const named = res.headers.get(WORKSPACE);
  if (!named) return known;
  const expires = res.headers.get(CREDENTIAL_EXPIRES) ?? NEVER;
  if (named !== known.workspace || expires !== known.expires) rememberWorkspace(deps, known.key, named, expires);
  return { workspace: named, expires };
}

/** Whether an entry's credential has expired by `now`. */
const expired = (entry: Response, now: number) => {
  const at = entry.headers.get(ENTRY_EXPIRES) ?? NEVER;
  return at !== NEVER && !(now < Number(at));
};

async function markerTime(deps: EdgeDeps, url: string, workspace: string): Promise<number> {
  const found = await deps.cache.match(writeMarkerKey(url, workspace));
  return found ? Number(found.headers.get(SENT_AT)) || 0 : 0;
}

/**
 * Records a successful write through this location, before the write is answered (so the caller's next read, from any
 * isolate here, sees it). The marker keeps the later of its time and the one already there. Markers live as long as an
 * entry may be served (the server's maximum): an entry older than that is never served anyway.
 */
async function recordWrite(deps: EdgeDeps, url: string, workspace: string, at: number): Promise<void> {
  const key = writeMarkerKey(url, workspace);
  const time = Math.max(at, await markerTime(deps, url, workspace));
  const headers = { [SENT_AT]: String(time), "cache-control": `max-age=${deps.maxSeconds + 1}` };
  await deps.cache.put(key, new Response(null, { headers }));
}

function storable(request: Request, res: Response): boolean {
  const cc = (res.headers.get("cache-control") ?? "").toLowerCase();
  return (
    request.method === "GET" &&
    res.status >= 200 &&
    res.status < 300 &&
    res.status !== 206 &&
    isJson(res) &&
    !res.headers.has("set-cookie") &&
    !/(^|[\s,])(no-store|private)([\s,=]|$)/.test(cc) &&
    !neverStored(new URL(request.url).pathname)
  );
}

/** The entry of a stored answer: its headers minus what is not kept, plus when its request was sent and its workspace. */
function entryOf(
  res: Response,
  body: ArrayBuffer,
  sentAt: number,
  workspace: string,
  expires: string,
  maxSeconds: number,
  position: string | null,
  originCacheControl = res.headers.get("cache-control"),
): Response {
  const headers = new Headers(res.headers);
  for (const h of NOT_STORED) headers.delete(h);
  if (originCacheControl) headers.set(ORIGIN_CACHE_CONTROL, originCacheControl);
  else headers.delete(ORIGIN_CACHE_CONTROL);
  // What the Cache API obeys: keep the entry as long as it may be served, no longer.
  headers.set("cache-control", `max-age=${maxSeconds}`);
  headers.set(SENT_AT, String(sentAt));
  headers.set(ENTRY_WORKSPACE, workspace);
  headers.set(ENTRY_EXPIRES, expires);
  if (position) headers.set(ENTRY_POSITION, position);
  else headers.delete(ENTRY_POSITION);
  return new Response(body, { status: res.status, headers });
}

/** A stored entry as the caller gets it: the origin's own Cache-Control back in place. */
function served(entry: Response, cacheStatus: string, ageSeconds: number, body: BodyInit | null): Response {
  const res = answer(entry, cacheStatus, ageSeconds, body);
  const cc = entry.headers.get(ORIGIN_CACHE_CONTROL);
  if (cc) res.headers.set("cache-control", cc);
  else res.headers.delete("cache-control");
  return res;
}

/** A request id as the origin takes one from the caller (hono/request-id's rule); else the origin makes a new one. */
const usableRequestId = (id: string | null) => (id && id.length <= 255 && !/[^\w\-=]/.test(id) ? id : null);

/**
 * What a hit says of the caller's own request, as every answer does (docs/api.md, conventions): its request id (the caller's, echoed,
 * or a new one: the stored answer's id names another request) and the rate limit as the origin last reported it for
 * this entry, its window counted down. A hit is not counted; what requests through the origin used since is not known
 * here, so Remaining is at most what is left. Once that window has ended, a new one has begun: the full limit, Reset 0
 * (docs/edge.md).
 */
function hitHeaders(headers: Headers, entry: Response, request: Request, now: number): Headers {
  headers.set("x-request-id", usableRequestId(request.headers.get("x-request-id")) ?? crypto.randomUUID());
  const [limit, remaining, reset] = RATE_LIMIT.map((h) => entry.headers.get(h));
  if (limit === null || remaining === null || reset === null) return headers;
  const left = Number(entry.headers.get(SENT_AT)) + Number(reset) * 1000 - now;
  headers.set("ratelimit-limit", limit);
  headers.set("ratelimit-remaining", left > 0 ? remaining : limit);
  headers.set("ratelimit-reset", String(left > 0 ? Math.ceil(left / 1000) : 0));
  return headers;
}

const etagMatches = (ifNoneMatch: string | null, etag: string | null) =>
  !!ifNoneMatch &&
  !!etag &&
  ifNoneMatch.split(",").some((t) => t.trim() === "*" || t.trim().replace(/^W\//, "") === etag.replace(/^W\//, ""));

export async function edgeFetch(request: Request, deps: EdgeDeps): Promise<Response> {
  const method = request.method;
  if (method !== "GET") {
    const writes = method !== "HEAD" && method !== "OPTIONS" && deps.maxSeconds > 0;
    const known = writes ? await knownWorkspace(deps, request) : { key: "", workspace: null, expires: NEVER };
    const res = await forward(request, deps, originHeaders(request, writes && known.workspace === null));
    if (writes && res.ok) {
      await recordWrite(deps, request.url, workspaceOf(deps, res, known).workspace || ANY_WORKSPACE, deps.now());
      for (const other of (res.headers.get(ALSO_WRITTEN) ?? "").split(",").filter(Boolean))
        await recordWrite(deps, request.url, other, deps.now());
    }
    // A refusal may revoke too (a replayed refresh token): the revoked credential's stored answers stop here at once.
    const revoked = res.headers.get(REVOKED);
    if (writes && revoked) await recordWrite(deps, request.url, revoked, deps.now());
    return answer(res, status("fwd=method"), 0);
  }

  const path = new URL(request.url).pathname;
  if (deps.maxSeconds <= 0) return answer(await forward(request, deps, originHeaders(request, false)), status("fwd=bypass"), 0);
  if (neverStored(path)) return answer(await forward(request, deps, originHeaders(request, false)), status("fwd=uri-miss"), 0);

  const limit = acceptableAge(parseRequestDirectives(request.headers.get("cache-control")), deps.maxSeconds);
  // No permission to answer from the cache: forwarded as it is, nothing looked up or stored (a caller that never asks
  // for stored answers pays nothing for them, not even the origin's workspace query).
  if (limit === null) return answer(await forward(request, deps, originHeaders(request, false)), status("fwd=request"), 0);

  const key = await entryKey(request);
  const position = request.headers.get(MIN_POSITION);
  let reason = "miss";
  const [entry, known] = await Promise.all([deps.cache.match(key), knownWorkspace(deps, request)]);
  if (entry) {
    const sentAt = Number(entry.headers.get(SENT_AT));
    const workspace = entry.headers.get(ENTRY_WORKSPACE) || ANY_WORKSPACE;
    const [own, any] = await Promise.all([
      markerTime(deps, request.url, workspace),
      workspace === ANY_WORKSPACE ? 0 : markerTime(deps, request.url, ANY_WORKSPACE),
    ]);
    const now = deps.now();
    const age = now - sentAt;
    // Never past the credential's expiry: the origin would refuse it by then.
    const atPosition = position === null || entry.headers.get(ENTRY_POSITION) === position;
    if (sentAt > Math.max(own, any) && age <= limit * 1000 && !expired(entry, now) && atPosition) {
      const hit = status("hit");
      if (etagMatches(request.headers.get("if-none-match"), entry.headers.get("etag"))) {
        return notModified(entry, hit, age, hitHeaders(new Headers(), entry, request, now));
      }
      const res = served(entry, hit, age / 1000, entry.body);
      hitHeaders(res.headers, entry, request, now);
      return res;
    }
    reason = "stale";
  }

  // Forwarded. A stale entry with an ETag is revalidated (If-None-Match), unless the caller sent a condition of its own.
  const headers = originHeaders(request, known.workspace === null);
  const etag = entry?.headers.get("etag");
  const revalidating = !!entry && !!etag && !request.headers.has("if-none-match");
  if (revalidating && etag) headers.set("if-none-match", etag);
  const sentAt = deps.now();
  const res = await forward(request, deps, headers);

  if (revalidating && entry && res.status === 304) {
    const body = await entry.arrayBuffer();
    const workspace = entry.headers.get(ENTRY_WORKSPACE) || ANY_WORKSPACE;
    const originCc = entry.headers.get(ORIGIN_CACHE_CONTROL);
    const expires = entry.headers.get(ENTRY_EXPIRES) ?? NEVER;
    // Revalidated now: it holds what the request's position asks (or the position it had, when the request named none).
    const at = position ?? entry.headers.get(ENTRY_POSITION);
    const fresh = entryOf(entry, body, sentAt, workspace === ANY_WORKSPACE ? "" : workspace, expires, deps.maxSeconds, at, originCc);
    // The origin's per-request headers (request id, timing, rate limit) describe this answer, not the first one.
    for (const h of ["x-request-id", "server-timing", "etag", ...RATE_LIMIT]) {
      const v = res.headers.get(h);
      if (v) fresh.headers.set(h, v);
    }
    deps.waitUntil(deps.cache.put(key, fresh.clone()));
    return served(fresh, status(`fwd=stale; fwd-status=304; stored`), 0, fresh.body);
  }
  const { workspace, expires } = workspaceOf(deps, res, known);
  // An answer to a credential whose workspace is not known could not be hidden by that workspace's writes: not stored.
  if (storable(request, res) && (workspace || !CREDENTIAL_HEADERS.some((h) => request.headers.has(h)))) {
    const copy = res.clone();
    deps.waitUntil(
      copy
        .arrayBuffer()
        .then((body) => deps.cache.put(key, entryOf(copy, body, sentAt, workspace ?? "", expires, deps.maxSeconds, position))),
    );
    return answer(res, status(`fwd=${reason}; fwd-status=${res.status}; stored`), 0);
  }
  return answer(res, status(`fwd=${reason}; fwd-status=${res.status}`), 0);
}

/** A 304 for a caller whose If-None-Match names the entry's ETag (RFC 9110 §15.4.5: the validators, no body). */
function notModified(entry: Response, cacheStatus: string, ageMs: number, headers: Headers): Response {
  for (const h of ["etag", "vary", "content-location"]) {
    const v = entry.headers.get(h);
    if (v) headers.set(h, v);
  }
  const cc = entry.headers.get(ORIGIN_CACHE_CONTROL);
  if (cc) headers.set("cache-control", cc);
  headers.set("age", String(Math.floor(ageMs / 1000)));
  headers.set("cache-status", cacheStatus);
  return new Response(null, { status: 304, headers });
}
