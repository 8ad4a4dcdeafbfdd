/**
 * Rate limiting in the served document (src/middleware/rate-limit enforces it): the RateLimit-* headers on every
 * limited operation's responses and 429 RATE_LIMITED with Retry-After.
 */

import type { RoutePolicy } from "./policy";

type Json = Record<string, unknown>;
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

export const RATE_LIMIT_HEADERS: Record<string, Json> = {
  "RateLimit-Limit": {
    description:
      "Requests allowed per window for this credential (or, on the public sign-up, login, invite and device routes, this client IP).",
    schema: { type: "integer" },
  },
  "RateLimit-Remaining": { description: "Requests left in the current window.", schema: { type: "integer" } },
  "RateLimit-Reset": { description: "Seconds until the current window ends.", schema: { type: "integer" } },
  "Retry-After": { required: true, description: "Seconds to wait before the next request is allowed.", schema: { type: "integer" } },
};

const LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

/**
 * An operation that has a credential (its security list) or is limited by another key (its policy's `rateLimit`: the
 * client IP): RateLimit-* on its responses (absent when no usable credential was sent) and 429 when over the limit.
 */
export function documentRateLimits(policy: RoutePolicy, op: Json) {
  const authenticated = Array.isArray(op.security) && op.security.length > 0;
  if (!authenticated && !policy.rateLimit) return;
  const responses = op.responses as Record<string, Json>;
  const limitHeaders = Object.fromEntries(LIMIT_HEADERS.map((name) => [name, header(name)]));
  for (const response of Object.values(responses)) {
    if (!("$ref" in response)) response.headers = { ...(response.headers as Json | undefined), ...limitHeaders };
  }
  responses["429"] ??= {
    description: "RATE_LIMITED: over the limit of the window; retry after `Retry-After` seconds",
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    headers: {
      "Retry-After": header("Retry-After"),
      ...limitHeaders,
      "x-request-id": header("x-request-id"),
      "Server-Timing": header("Server-Timing"),
    },
  };
}
