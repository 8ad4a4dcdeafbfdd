import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Application error codes and the one HTTP status each maps to (docs/api.md, conventions). */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  // A path that exists but not for this method (GET/DELETE /mcp: the MCP endpoint is stateless, POST only).
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  // GET /events resumed after an event older than the stream keeps.
  GONE: 410,
  // A stale If-Match on PATCH or DELETE: nothing was written.
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  // A Range beyond a stored file's bytes.
  RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  // A write's connection failed after it went out and whether it committed could not be settled: retry with the same
  // Idempotency-Key (docs/api.md, conventions).
  OUTCOME_UNKNOWN: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error type services throw; the error mapper renders it as `{error:{code,message,details?}}`. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "AppError";
  }
  get status(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }
}

/** A validation failure rendered as 422 `{errors:{field:[msg]}}`. */
export class ValidationError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super("Validation failed");
    this.name = "ValidationError";
  }
}

export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} not found`);
export const forbidden = (message = "You are not allowed to do this", details?: Record<string, unknown>) =>
  new AppError("FORBIDDEN", message, details);
export const badRequest = (message: string, details?: Record<string, unknown>) => new AppError("BAD_REQUEST", message, details);
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError("CONFLICT", message, details);
export const invalid = (field: string, message: string) => new ValidationError({ [field]: [message] });
