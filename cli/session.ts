// Which API and credential a command talks to, and how its answers become data or errors. The environment
// (PM_API_KEY, PM_BASE_URL) lets scripts run without `pm login`; otherwise the stored login is used, renewed on the way
// when its access token has expired or is refused (cli/tokens.ts).
import { createPmClient, type PmClient } from "../client/index";
import { loggedInWorkspaces, readConfig, readLogin, type StoredLogin } from "./config";
import { ApiError, NotLoggedInError, UsageError } from "./errors";
import { reporting } from "./reach";
import { isExpiring, renewLogin } from "./tokens";

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

export interface Session {
  baseUrl: string;
  client: PmClient;
}

/** `--base-url`, else PM_BASE_URL, else the stored login's (kept after `pm logout`), else the local default. */
export function baseUrlFrom(flag: string | undefined, login = readConfig()): string {
  return (flag || process.env.PM_BASE_URL || login?.baseUrl || DEFAULT_BASE_URL).replace(/\/+$/, "");
}

/** The options every command that calls the API takes (cli/argv.ts `commonArgs`). */
export interface SessionOptions {
  "base-url"?: string;
  workspace?: string;
}

/** A client of `baseUrl` with the credential, if any (the device flow's own endpoints are public). */
export function connect(baseUrl: string, credential: { apiKey?: string; token?: string } = {}): PmClient {
  return createPmClient({ baseUrl, ...credential, fetch: reporting(baseUrl) });
}

/** The session of `--workspace`'s login (any workspace signed in to), else of the current login, else of PM_API_KEY. */
export function openSession(options: SessionOptions): Session {
  const { workspace } = options;
  const apiKey = process.env.PM_API_KEY;
  if (apiKey) {
    if (workspace) throw new UsageError("--workspace picks one of your logins: PM_API_KEY belongs to one workspace");
    const baseUrl = baseUrlFrom(options["base-url"]);
    return { baseUrl, client: connect(baseUrl, { apiKey }) };
  }
  const login = readLogin(workspace);
  if (workspace && !login) throw notSignedInTo(workspace);
  const baseUrl = baseUrlFrom(options["base-url"], workspace ? login : readConfig());
  // A stored token was issued by one server; it means nothing to another.
  if (!login || login.baseUrl !== baseUrl) throw new NotLoggedInError(`not logged in to ${baseUrl}: run \`pm login\` or set PM_API_KEY`);
  if (!login.refreshToken && isExpiring(login)) throw new NotLoggedInError("the login has expired: run `pm login`");
  return { baseUrl, client: createPmClient({ baseUrl, fetch: signedIn(login) }) };
}

/** No login kept for `workspace`: how to get one. */
export function notSignedInTo(workspace: string): NotLoggedInError {
  const known = loggedInWorkspaces();
  return new NotLoggedInError(
    `not logged in to the workspace '${workspace}' (${known.length ? `logged in to: ${known.join(", ")}` : "no login"}): run \`pm login\` and choose ${workspace} on the device page`,
  );
}

/**
 * fetch with the login's access token: renewed first when it has expired, and renewed once when the API answers 401
 * (the token may have been revoked, or the clock be off), the request then sent again. Requests made at once share
 * one renewal (each refresh token works only once).
 */
function signedIn(stored: StoredLogin): (request: Request) => Promise<Response> {
  const send = reporting(stored.baseUrl);
  let login = stored;
  let renewal: Promise<StoredLogin> | undefined;
  const renew = async () => {
    renewal ??= renewLogin(login);
    login = await renewal;
  };
  return async (request) => {
    if (login.refreshToken && isExpiring(login)) await renew();
    // Kept unsent for a second try, unless this process has renewed already (a token just issued is not renewed again).
    const retry = renewal || !login.refreshToken ? undefined : request.clone();
    request.headers.set("authorization", `Bearer ${login.token}`);
    const response = await send(request);
    if (response.status !== 401 || !retry) return response;
    await response.body?.cancel();
    await renew();
    retry.headers.set("authorization", `Bearer ${login.token}`);
    return send(retry);
  };
}

/** The data of a successful openapi-fetch answer; any error answer as an ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw ApiError.fromBody(response.status, error);
  return data;
}

/** A successful answer without a body (204, as DELETE answers); any error answer as an ApiError. */
export async function unwrapEmpty(call: Promise<{ error?: unknown; response: Response }>): Promise<void> {
  const { error, response } = await call;
  if (!response.ok) throw ApiError.fromBody(response.status, error);
}
