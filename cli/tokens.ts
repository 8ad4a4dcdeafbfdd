// A login that lasts: the device flow gives a short-lived access token (a JWT) and a refresh token. When the access
// token has expired, or the API refuses it, the refresh token buys a new pair (POST /auth/token, the refresh_token
// grant of RFC 6749 §6); the API rotates it, so the new pair replaces the stored one at once. `pm logout` revokes the
// login on the server (POST /auth/revoke): its refresh token and every access token it issued stop working.
import { readLogin, type StoredLogin, writeLogin } from "./config";
import { ApiError, NotLoggedInError } from "./errors";
import { reporting } from "./reach";

/** What the token endpoints answer (RFC 6749 §5.1); `refresh_token` is missing only from an older API. */
export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope?: string;
  refresh_token?: string;
}

/** Renewed this long before the access token's expiry, so that no request carries one that expires on its way. */
const EARLY_MS = 30_000;

export const loginOf = (baseUrl: string, answer: TokenAnswer): StoredLogin => ({
  baseUrl,
  token: answer.access_token,
  expiresAt: new Date(Date.now() + answer.expires_in * 1000).toISOString(),
  ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}),
  ...(answer.scope !== undefined ? { scope: answer.scope } : {}),
});

export const isExpiring = (login: StoredLogin) => Date.parse(login.expiresAt) - EARLY_MS <= Date.now();

/** POST of a JSON body to one of the public token endpoints: the status and the JSON answer (undefined if none). */
async function post(baseUrl: string, path: string, body: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const headers = { "content-type": "application/json", accept: "application/json" };
  const response = await reporting(baseUrl)(new Request(`${baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body) }));
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: response.status, body: json };
}

/**
 * A new access token for `login` (stored before it is returned). A refresh token that is refused (used, revoked,
 * expired: 400 `invalid_grant`, or 401) ends the login: exit 3, "run pm login". Unless another `pm` renewed it a
 * moment ago: then the login it stored is the current one.
 */
export async function renewLogin(login: StoredLogin): Promise<StoredLogin> {
  if (!login.refreshToken) throw new NotLoggedInError("the login has expired: run `pm login`");
  const answer = await post(login.baseUrl, "/auth/token", { grant_type: "refresh_token", refresh_token: login.refreshToken });
  if (answer.status === 200) {
    const renewed = { ...loginOf(login.baseUrl, answer.body as TokenAnswer), ...(login.workspace ? { workspace: login.workspace } : {}) };
    writeLogin(renewed);
    return renewed;
  }
  if (answer.status === 400 || answer.status === 401) {
    const stored = readLogin(login.workspace);
    if (stored?.baseUrl === login.baseUrl && stored.refreshToken && stored.refreshToken !== login.refreshToken) return stored;
    throw new NotLoggedInError("the login has expired or was revoked: run `pm login`");
  }
  throw ApiError.fromBody(answer.status, answer.body);
}

/**
 * Revokes the login on its server: its refresh token (else, from an older `pm`, its access token). Whether the server
 * did it; false when it answered that the token was no longer valid anyway. Unreachable or failing: throws.
 */
export async function revokeLogin(login: StoredLogin): Promise<boolean> {
  const answer = await post(login.baseUrl, "/auth/revoke", { token: login.refreshToken ?? login.token });
  if (answer.status === 200) return true;
  if (answer.status === 400 || answer.status === 401) return false;
  throw ApiError.fromBody(answer.status, answer.body);
}
