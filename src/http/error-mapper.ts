import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { causes, errorSummary, isQueryWrapper } from "../core/error-chain";
import { AppError, type ErrorCode, ValidationError } from "../core/errors";
import { REGISTERED } from "../core/resources";
import { publicBaseUrl } from "./urls";

const body = (code: ErrorCode, message: string, details?: Record<string, unknown>) => ({
  error: details ? { code, message, details } : { code, message },
});

/** Unique constraints users can hit, with the message that explains them (each resource's register entry, `conflicts`). */
const CONFLICT_MESSAGES: Record<string, string> = Object.fromEntries(REGISTERED.flatMap((r) => Object.entries(r.conflicts ?? {})));

/**
 * Checks the database makes in the statement that writes (a trigger's check_violation naming its constraint, an
 * exclusion constraint): the field a 422 names, and why (each resource's register entry, `invalid`).
 */
const INVALID: Record<string, readonly [field: string, message: string]> = Object.fromEntries(
  REGISTERED.flatMap((r) => Object.entries(r.invalid ?? {})),
);

/**
 * A registered check that refused a write, as its 422's errors, with the refusal's detail (the task a status was refused
 * for, by reference: a bulk write names it); null for any other error.
 */
export function databaseValidation(err: unknown): { errors: Record<string, string[]>; detail?: string } | null {
  const pg = pgError(err);
  if ((pg?.code !== "23514" && pg?.code !== "23P01") || !pg.constraint || !INVALID[pg.constraint]) return null;
  const [field, message] = INVALID[pg.constraint];
  return { errors: { [field]: [message] }, detail: pg.detail || undefined };
}

/** The Postgres error (one with a SQLSTATE code) behind a driver or Drizzle error, if there is one. */
function pgError(err: unknown): { code: string; constraint?: string; message?: string; detail?: string } | undefined {
  for (const e of causes(err)) if (typeof e.code === "string" && /^[0-9A-Z]{5}$/.test(e.code)) return { ...e, code: e.code };
  return undefined;
}

// Driver messages of a database that is gone or silent: socket errors, the WebSocket closing, the connect timeout
// ("timeout expired", "timeout exceeded when trying to connect", "Connection terminated due to connection timeout")
// and the query timeout ("Query read timeout"; src/db/client.ts), all proven in test/smoke/outage.test.mjs; a
// transaction's next statement on a connection already lost ("…connection error and is not queryable", test/outcome.test.ts).
// On the HTTP query: the fetch failed or was cut by its bound ("Error connecting to database: …"), or the endpoint could
// not reach PostgreSQL ("Server error (HTTP status 5xx)": Neon answers a refused statement with a 400 and its SQLSTATE).
const CONNECTION_FAILURE =
  /ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|ETIMEDOUT|WebSocket|Network connection lost|connection terminated|timeout expired|timeout exceeded when trying to connect|Query read timeout|too many (clients|connections)|connection error and is not queryable|Error connecting to database|Server error \(HTTP status 5\d\d\)/i;

/** The driver could not reach PostgreSQL: SQLSTATE class 08, admin shutdown 57P0x, too many connections, or a socket error. */
function isConnectionFailure(err: unknown, pg: { code: string } | undefined): boolean {
  if (pg && /^(08\d{3}|57P0[1-3]|53300)$/.test(pg.code)) return true;
  // Drizzle's own message quotes the query's parameters (user content): only its causes speak for the driver.
  for (const e of causes(err)) if (!isQueryWrapper(e) && CONNECTION_FAILURE.test(`${e.code ?? ""} ${e.message ?? ""}`)) return true;
  return false;
}

/** The connection failed (or timed out) under a statement: whether a write it carried committed is not known from here (src/http/settled-write.ts). */
export const isLostConnection = (err: unknown): boolean => isConnectionFailure(err, pgError(err));

/** An error answer: its status and its body. */
export interface ErrorAnswer {
  status: ContentfulStatusCode;
  body: object;
}

/** Framework refusals (body limit, malformed JSON, media type, …) in the API's error codes (docs/api.md). */
function httpExceptionAnswer(err: HTTPException): ErrorAnswer {
  switch (err.status) {
    case 401:
      return { status: 401, body: body("UNAUTHORIZED", "Authentication required") };
    case 413:
      return { status: 413, body: body("PAYLOAD_TOO_LARGE", "Request body is larger than 1 MiB") };
    case 415:
      // Like malformed JSON, a body that is not JSON is a bad request (the API has no 415: docs/api.md).
      return { status: 400, body: body("BAD_REQUEST", "Send the body as JSON with Content-Type: application/json") };
    default:
      return { status: 400, body: body("BAD_REQUEST", err.message || "Bad request") };
  }
}

/** Where the OAuth 2.0 Protected Resource Metadata (RFC 9728) is served: the 401 challenge names it. */
export const PROTECTED_RESOURCE_METADATA = "/.well-known/oauth-protected-resource";

/**
 * The `WWW-Authenticate` challenge of a 401, and of a 403 for a missing scope (RFC 6750 §3, RFC 9728 §5.1): the scheme,
 * what went wrong (no error code when no credential was sent at all), and where the resource's metadata is, which an
 * MCP client reads to start a login. Null for any other answer.
 */
function challenge(err: unknown, status: number, c: Context): string | null {
  const requiredScope = err instanceof AppError ? err.details?.requiredScope : undefined;
  if (status !== 401 && !(status === 403 && typeof requiredScope === "string")) return null;
  const params = ['realm="pm"'];
  if (status === 403) params.push('error="insufficient_scope"', `scope="${requiredScope}"`);
  else if (c.req.header("authorization") !== undefined || c.req.header("svc-api-key") !== undefined) params.push('error="invalid_token"');
  params.push(`resource_metadata="${publicBaseUrl(c)}${PROTECTED_RESOURCE_METADATA}"`);
  return `Bearer ${params.join(", ")}`;
}

/** The one error mapper, with the `WWW-Authenticate` challenge of a 401 (or of a 403 naming a missing scope). */
export function errorResponse(err: unknown, c: Context): Response {
  const answer = errorAnswer(err, c.get("requestId"));
  const res = c.json(answer.body, answer.status);
  const header = challenge(err, res.status, c);
  if (header) res.headers.set("WWW-Authenticate", header);
  return res;
}

/**
 * Any error as the API's status and body (AppError, validation, unique violation, connection failure, anything else):
 * the one mapping of the error handler and of a batch item's slot.
 */
export function errorAnswer(err: unknown, requestId: string): ErrorAnswer {
  if (err instanceof ValidationError) return { status: 422, body: { errors: err.errors } };
  if (err instanceof AppError) return { status: err.status, body: body(err.code, err.message, err.details) };
  if (err instanceof HTTPException && err.status < 500) return httpExceptionAnswer(err);
  const refused = databaseValidation(err);
  if (refused) return { status: 422, body: { errors: refused.errors } };
  const pg = pgError(err);
  if (pg?.code === "23505") {
    const message = (pg.constraint && CONFLICT_MESSAGES[pg.constraint]) || "A resource with these values already exists";
    return { status: 409, body: body("CONFLICT", message) };
  }
  if (pg?.code === "23503") {
    // A row the request names was deleted between its check and the write.
    return { status: 409, body: body("CONFLICT", "Something this request refers to was deleted meanwhile; retry the request") };
  }
  if (pg?.code?.startsWith("22")) {
    // Data exceptions (a value PostgreSQL cannot store or compare): the request's fault, not ours.
    return { status: 400, body: body("BAD_REQUEST", "A value in the request cannot be stored", { reason: pg.message }) };
  }
  if (pg?.code?.startsWith("54")) {
    // Program limits (a value nested too deeply, too many arguments): what the request sent is too big to process.
    return { status: 400, body: body("BAD_REQUEST", "A value in the request is too large or too deeply nested to process") };
  }
  if (pg?.code === "40001" || pg?.code === "40P01") {
    return { status: 409, body: body("CONFLICT", "Concurrent update; retry the request") };
  }
  if (pg?.code === "57014" || pg?.code === "55P03") {
    // The server's own bound (statement or lock timeout, src/db/client.ts SERVER_TIMEOUT_MS): cancelled and rolled back.
    console.error(`[${requestId}] database timeout: ${errorSummary(err)}`);
    return {
      status: 503,
      body: body("UNAVAILABLE", "The database did not answer in time; nothing was written; retry shortly", { requestId }),
    };
  }
  if (isConnectionFailure(err, pg)) {
    console.error(`[${requestId}] database unavailable: ${errorSummary(err)}`);
    return { status: 503, body: body("UNAVAILABLE", "The database is unavailable; retry shortly", { requestId }) };
  }
  // Message and request id only: no stack, no SQL, no parameters (test/secrets.test.ts).
  console.error(`[${requestId}] unhandled error: ${errorSummary(err)}`);
  return { status: 500, body: body("INTERNAL", "Internal error", { requestId }) };
}
