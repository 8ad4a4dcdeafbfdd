// What can go wrong, and the exit code and stderr text each kind of failure gets. Expected failures never print a
// stack trace: a person reads the message, a script reads the exit code.

export const EXIT = { ok: 0, api: 1, usage: 2, auth: 3 } as const;

/** The command line itself is wrong (exit 2). */
export class UsageError extends Error {}

/** No usable credential, or the API answered 401 (exit 3). */
export class NotLoggedInError extends Error {}

/**
 * The API answered an error: `{error:{code,message}}`, 422 `{errors:{field:[messages]}}`, or a token endpoint's
 * `{error, error_description}` (exit 1; 401 exit 3).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: Record<string, string[]> = {},
  ) {
    super(message);
  }

  static fromBody(status: number, body: unknown): ApiError {
    const error = isObject(body) && isObject(body.error) ? body.error : undefined;
    if (error && typeof error.code === "string" && typeof error.message === "string")
      return new ApiError(status, error.code, error.message);
    // The token endpoints answer in OAuth's shape (RFC 6749 §5.2): `{error: "invalid_grant", error_description}`.
    if (isObject(body) && typeof body.error === "string") {
      return new ApiError(status, body.error, typeof body.error_description === "string" ? body.error_description : body.error);
    }
    if (status === 422 && isObject(body) && isObject(body.errors)) {
      return new ApiError(status, "VALIDATION_FAILED", "Validation failed", body.errors as Record<string, string[]>);
    }
    return new ApiError(status, `HTTP_${status}`, "Unexpected answer from the API");
  }
}

/** The API could not be reached at all (exit 1). */
export class ConnectionError extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** Prints the failure to stderr and returns the exit code. Anything not listed here is a bug: its message, exit 1. */
export function reportFailure(error: unknown, usageHint: string): number {
  if (error instanceof UsageError) {
    console.error(`error: ${error.message}\n${usageHint}`);
    return EXIT.usage;
  }
  if (error instanceof NotLoggedInError) {
    console.error(`error: ${error.message}`);
    return EXIT.auth;
  }
  if (error instanceof ApiError) {
    console.error(`error: ${error.code}: ${error.message}`);
    for (const [field, messages] of Object.entries(error.fieldErrors)) console.error(`  ${field}: ${messages.join("; ")}`);
    if (error.status === 401) {
      console.error("Run `pm login` (or set PM_API_KEY) to sign in again.");
      return EXIT.auth;
    }
    return EXIT.api;
  }
  console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
  return EXIT.api;
}
