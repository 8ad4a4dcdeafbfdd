import { z } from "@hono/zod-openapi";
import { AppError } from "../core/errors";

/*
 * The OAuth token endpoints (POST /auth/device/token, RFC 8628 §3.4; POST /auth/token, the refresh grant) and the
 * revocation endpoint (POST /auth/revoke, RFC 7009 §2.2.1), whose policy says `errors: "oauth"`: their refusals are
 * OAuth's wire format (RFC 6749 §5.2, RFC 8628 §3.5), `{"error": "authorization_pending", "error_description": …}` at
 * the top level, so any OAuth client library reads them. Every other route answers the API's `{error:{code,message,details?}}`.
 */

export const OAUTH_ERRORS = [
  "invalid_request",
  "invalid_grant",
  "unsupported_grant_type",
  "authorization_pending",
  "slow_down",
  "access_denied",
  "expired_token",
  "temporarily_unavailable",
  "server_error",
  // The authorization server's (POST /oauth/token, POST /oauth/register: RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707).
  "invalid_client",
  "invalid_scope",
  "invalid_target",
  "invalid_redirect_uri",
  "invalid_client_metadata",
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

export const OAuthErrorBody = z
  .object({
    error: z.enum(OAUTH_ERRORS),
    error_description: z.string(),
    interval: z
      .number()
      .int()
      .optional()
      .openapi({ description: "`slow_down`, `authorization_pending`: the seconds to wait between polls" }),
    errors: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .openapi({ description: "`invalid_request` of an invalid body: the messages per field, as the API's 422 names them elsewhere" }),
  })
  .openapi("OAuthError", {
    description:
      "An OAuth endpoint's refusal, in OAuth's shape (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8628 §3.5): `authorization_pending` and `slow_down` " +
      "while the person has not decided, `access_denied`, `expired_token`, `invalid_grant` (a device code or refresh token " +
      "unknown, used, revoked or expired), `unsupported_grant_type`, `invalid_request` (a malformed or invalid body, 400; " +
      "too large, 413), `temporarily_unavailable` (429 over the rate limit, 503 database unreachable), `server_error` (500); " +
      "the authorization server's `invalid_client`, `invalid_scope`, `invalid_target`, `invalid_redirect_uri`, `invalid_client_metadata`.",
    example: { error: "authorization_pending", error_description: "The user has not approved this device yet", interval: 5 },
  });
export type OAuthErrorBody = z.infer<typeof OAuthErrorBody>;

/**
 * A token endpoint's refusal: a 400 whose `details.error` is the OAuth code (and `details.interval` the polling interval),
 * which middleware/oauth-errors answers as `{error, error_description, interval?}`.
 */
export const oauthRefusal = (error: OAuthErrorCode, message: string, extra: { interval?: number } = {}) =>
  new AppError("BAD_REQUEST", message, { error, ...extra });

/** The API's error body of the same refusal (`{error:{code,message,details?}}` or 422 `{errors}`): its shape for OAuth. */
export function oauthErrorOf(status: number, body: unknown): { status: number; body: OAuthErrorBody } {
  const api = (body ?? {}) as { errors?: Record<string, string[]>; error?: { message?: string; details?: Record<string, unknown> } };
  if (api.errors) {
    const fields = Object.entries(api.errors).map(([field, messages]) => `${field}: ${messages.join("; ")}`);
    return {
      status: 400,
      body: { error: "invalid_request", error_description: `Invalid request (${fields.join(", ")})`, errors: api.errors },
    };
  }
  const details = api.error?.details ?? {};
  const named = OAUTH_ERRORS.find((code) => code === details.error);
  const error: OAuthErrorCode =
    named ?? (status === 429 || status === 503 ? "temporarily_unavailable" : status >= 500 ? "server_error" : "invalid_request");
  const interval = typeof details.interval === "number" ? { interval: details.interval } : {};
  return { status, body: { error, error_description: api.error?.message ?? "Request refused", ...interval } };
}
