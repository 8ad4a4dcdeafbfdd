/** An error and its causes: Drizzle wraps driver errors in `cause`; a WebSocket ErrorEvent carries `error`. */
export type ErrorLike = { cause?: unknown; error?: unknown; code?: unknown; constraint?: string; message?: string; name?: string };

export function* causes(err: unknown): Generator<ErrorLike> {
  for (let e = err as ErrorLike | undefined; e; e = (e.cause ?? e.error) as ErrorLike | undefined) yield e;
}

/** Drizzle's wrapper of a failed statement (DrizzleQueryError; its `name` is plain "Error"): its message quotes the SQL and parameters. */
export const isQueryWrapper = (e: ErrorLike): boolean => typeof (e as { query?: unknown }).query === "string";

/**
 * What a log line may say about an error: each cause's name, SQLSTATE and message, and nothing else. Drizzle's own
 * message is left out (it quotes the statement and its parameters, such as a key's hash), and so is every stack.
 */
export function errorSummary(err: unknown): string {
  const parts: string[] = [];
  for (const e of causes(err)) {
    if (isQueryWrapper(e)) continue;
    if (typeof e !== "object") parts.push(String(e));
    else parts.push([e.name ?? "Error", typeof e.code === "string" ? e.code : "", e.message ?? ""].filter(Boolean).join(" "));
  }
  return parts.join(" <- ") || "unknown error";
}
