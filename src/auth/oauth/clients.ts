// OAuth clients (docs/clients.md, OAuth): registered by Dynamic Client Registration (RFC 7591, stored), or named by the
// URL of their Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document), which is fetched under the
// webhooks' URL-safety rules each time a person is asked to consent. Every client is public (PKCE, no secret).
import { eq } from "drizzle-orm";
import { oauthClients } from "../../../drizzle/schema";
import { randomToken } from "../../core/crypto";
import type { Db } from "../../db/client";
import { destinationProblem, urlProblem } from "../../webhooks/url-safety";

/**
 * An OAuth error: RFC 6749 §5.2 / RFC 7591 §3.2.2 `{error, error_description}` with its status. `revoked` names the
 * workspace whose grant the refused request revoked (a replayed code or refresh token): the answer tells the front
 * Worker (docs/edge.md, "Revocation").
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status: 400 | 401 = 400,
    readonly revoked: string | null = null,
  ) {
    super(description);
  }
}

export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
}

/** Schemes a redirect may never use: they run or read in the browser instead of reaching an app. */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "file:", "blob:", "about:", "vbscript:", "ws:", "wss:", "ftp:"]);
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Why `uri` may not be a redirect URI (null when it may): absolute, no fragment; `https`, `http` only to the loopback
 * (RFC 8252 §7.3, a native app's local listener), or an app's private-use scheme (RFC 8252 §7.1, e.g. `cursor://`).
 */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URI`;
  }
  if (url.hash || uri.includes("#")) return `${uri} must not have a fragment`;
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${uri} uses a scheme that cannot be a redirect`;
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) return `${uri}: http is allowed only to localhost or 127.0.0.1`;
  if (url.username || url.password) return `${uri} must not carry a user name or password`;
  return null;
}

/** What a client may store (a registration is public and kept for good): a name, and a few redirect URIs of bounded length. */
const MAX_NAME = 100;
const MAX_REDIRECTS = 10;
/** The longest redirect_uri GET /oauth/authorize takes. */
export const MAX_REDIRECT_URI = 2000;

/** A client's metadata (a registration body or a metadata document) as the client, or what is wrong with it (RFC 7591 error codes). */
export function parseClientMetadata(body: unknown, clientId: string): OAuthClient {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new OAuthError("invalid_client_metadata", "Send a JSON object");
  const m = body as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECTS || !uris.every((u) => typeof u === "string")) {
    throw new OAuthError("invalid_redirect_uri", `redirect_uris must be a list of 1 to ${MAX_REDIRECTS} URIs`);
  }
  for (const uri of uris) {
    if (uri.length > MAX_REDIRECT_URI) {
      throw new OAuthError("invalid_redirect_uri", `A redirect URI may be at most ${MAX_REDIRECT_URI} characters (one is ${uri.length})`);
    }
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", problem);
  }
  if (m.client_name !== undefined && (typeof m.client_name !== "string" || m.client_name.trim().length > MAX_NAME)) {
    throw new OAuthError("invalid_client_metadata", `client_name must be a string of at most ${MAX_NAME} characters`);
  }
  const method = m.token_endpoint_auth_method ?? "none";
  if (method !== "none")
    throw new OAuthError("invalid_client_metadata", "token_endpoint_auth_method must be none: clients are public and use PKCE");
  const grants = m.grant_types ?? ["authorization_code"];
  if (!Array.isArray(grants) || grants.some((g) => g !== "authorization_code" && g !== "refresh_token")) {
    throw new OAuthError("invalid_client_metadata", "grant_types may be authorization_code and refresh_token");
  }
  const responses = m.response_types ?? ["code"];
  if (!Array.isArray(responses) || responses.some((r) => r !== "code")) {
    throw new OAuthError("invalid_client_metadata", "response_types may only be code");
  }
  const name = typeof m.client_name === "string" && m.client_name.trim() ? m.client_name.trim() : null;
  return { clientId, clientName: name ?? (new URL(uris[0]).host || clientId), redirectUris: uris };
}

/** RFC 7591 §3.2.1: the registered client. */
export async function registerClient(db: Db, body: unknown) {
  const client = parseClientMetadata(body, `ocl_${randomToken(18)}`);
  const [row] = await db
    .insert(oauthClients)
    .values({ id: client.clientId, clientName: client.clientName, redirectUris: client.redirectUris })
    .returning({ createdAt: oauthClients.createdAt });
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

/** Whether an operator approved `clientId` (OAUTH_VERIFIED_CLIENTS): only then may a refusal before consent redirect to it. */
export const isVerifiedClient = (verified: string | undefined, clientId: string) => (verified ?? "").split(/\s+/).includes(clientId);

/** Bounds on fetching a metadata document: the draft suggests 5 KB; an answer must come within a few seconds. */
const DOCUMENT_MAX_BYTES = 5 * 1024;
const DOCUMENT_TIMEOUT_MS = 5000;

/** True when `clientId` is the URL of a Client ID Metadata Document rather than a registered client's id. */
export const isMetadataUrl = (clientId: string) => /^https?:\/\//i.test(clientId);

/**
 * Why `clientId` may not name a metadata document as written (null when it may): the webhooks' URL rules (https, a public
 * host; loopback under the development switch), a path, no fragment, no dot segments.
 */
function metadataUrlProblem(clientId: string, dev: boolean): string | null {
  const problem = urlProblem(clientId, dev);
  if (problem) return problem;
  const url = new URL(clientId);
  if (url.protocol !== "https:") return "Must be an https URL";
  if (url.pathname === "/" || url.hash || /\/\.\.?(\/|$)/.test(clientId))
    return "Must be an https URL with a path, no fragment and no . or .. segments";
  return null;
}

/** The body of `res`, at most `max` bytes (null when longer). */
async function boundedText(res: Response, max: number): Promise<string | null> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** The client a metadata document describes, fetched now: https, a public destination, no redirects, 5 KB in 5 s. */
async function fetchMetadataDocument(clientId: string, dev: boolean, fetcher: typeof fetch): Promise<OAuthClient> {
  const invalid = (why: string) => new OAuthError("invalid_client", `The client's metadata document ${clientId}: ${why}`);
  const written = metadataUrlProblem(clientId, dev);
  if (written) throw invalid(written);
  const signal = AbortSignal.timeout(DOCUMENT_TIMEOUT_MS);
  let text: string | null;
  try {
    const resolved = await destinationProblem(clientId, dev, fetcher, signal);
    if (resolved) throw invalid(resolved);
    const res = await fetcher(clientId, { headers: { accept: "application/json" }, redirect: "manual", signal });
    if (res.status !== 200) throw invalid(`answered HTTP ${res.status}`);
    text = await boundedText(res, DOCUMENT_MAX_BYTES);
  } catch (err) {
    if (err instanceof OAuthError) throw err;
    throw invalid("could not be fetched in time");
  }
  if (text === null) throw invalid(`is larger than ${DOCUMENT_MAX_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid("is not JSON");
  }
  const doc = body as Record<string, unknown>;
  if (doc?.client_id !== clientId) throw invalid("its client_id is not its own URL");
  if ("client_secret" in doc) throw invalid("must not carry a client_secret");
  try {
    return parseClientMetadata(body, clientId);
  } catch (err) {
    throw err instanceof OAuthError ? invalid(err.description) : err;
  }
}

/** The client `clientId` names: a registered one, or the one its metadata document describes; `invalid_client` otherwise. */
export async function resolveClient(db: Db, clientId: string, dev: boolean, fetcher: typeof fetch = fetch): Promise<OAuthClient> {
  if (isMetadataUrl(clientId)) return fetchMetadataDocument(clientId, dev, fetcher);
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).limit(1);
  if (!row) throw new OAuthError("invalid_client", "Unknown client_id: register at /oauth/register or use a metadata document URL");
  return { clientId: row.id, clientName: row.clientName, redirectUris: row.redirectUris };
}
