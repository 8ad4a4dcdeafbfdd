// Which API and credential a command talks to, and how its answers become data or errors. The environment
// (PM_API_KEY, PM_BASE_URL) lets scripts run without `pm login`; otherwise the stored login is used.
import { createPmClient, type PmClient } from "../client/index";
import { readLogin } from "./config";
import { ApiError, ConnectionError, NotLoggedInError } from "./errors";

export const DEFAULT_BASE_URL = "http://127.0.0.1:8787";

export interface Session {
  baseUrl: string;
  client: PmClient;
}

/** `--base-url`, else PM_BASE_URL, else the stored login's, else the local default. */
export function baseUrlFrom(flag: string | undefined): string {
  return (flag || process.env.PM_BASE_URL || readLogin()?.baseUrl || DEFAULT_BASE_URL).replace(/\/+$/, "");
}

/** A client of `baseUrl` with the credential, if any (the device flow's own endpoints are public). */
export function connect(baseUrl: string, credential: { apiKey?: string; token?: string } = {}): PmClient {
  return createPmClient({ baseUrl, ...credential, fetch: reporting(baseUrl) });
}

export function openSession(baseUrlFlag: string | undefined): Session {
  const baseUrl = baseUrlFrom(baseUrlFlag);
  const apiKey = process.env.PM_API_KEY;
  if (apiKey) return { baseUrl, client: connect(baseUrl, { apiKey }) };
  const login = readLogin();
  // A stored token was issued by one server; it means nothing to another.
  if (!login || login.baseUrl !== baseUrl) throw new NotLoggedInError(`not logged in to ${baseUrl}: run \`pm login\` or set PM_API_KEY`);
  if (Date.parse(login.expiresAt) <= Date.now()) throw new NotLoggedInError("the login has expired: run `pm login`");
  return { baseUrl, client: connect(baseUrl, { token: login.token }) };
}

/** fetch, with an unreachable API reported as such rather than as a bare "fetch failed". */
function reporting(baseUrl: string) {
  return async (request: Request): Promise<Response> => {
    try {
      return await fetch(request);
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new ConnectionError(`cannot reach the API at ${baseUrl}: ${cause}`);
    }
  };
}

/** The data of a successful openapi-fetch answer; any error answer as an ApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw ApiError.fromBody(response.status, error);
  return data;
}
