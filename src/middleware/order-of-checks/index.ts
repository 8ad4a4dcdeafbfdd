// The order of checks (docs/api.md, conventions): a protected operation answers 401 for a missing or invalid credential whatever its body or
// parameters (only 413 and 405 come first); then 403/404; then validation. The common request never pays for it: a
// statement that authenticates itself proves the credential while it works, so input is checked before the credential is.
// Only when the input is refused does this prove the credential (one query), and look up the resource its path names
// (its own GET), so that the refusal a caller gets is the first the order names.
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { Caller, unauthorizedRequest } from "../../auth/caller";
import { readCredential } from "../../auth/credential";
import { AppError, ValidationError } from "../../core/errors";
import { acceptedScopes } from "../../core/scopes";
import type { AppEnv } from "../../http/context";
import { type AppHandle, dispatchGet, documentedRoute, outerOf } from "../../http/dispatch";

/** A refusal of what the request carries (its body, query or path values), not of who sends it or what it names. */
const isInputRefusal = (err: unknown) =>
  err instanceof ValidationError ||
  (err instanceof AppError && err.code === "BAD_REQUEST") ||
  (err instanceof HTTPException && (err.status === 400 || err.status === 415));

/**
 * Why the request may not run at all: 401 unless its credential names a live key or token of a current member, 403
 * when it lacks the operation's scope (`path`: the route's template); null when it may (no query when the caller knows).
 */
async function refusal(c: Context<AppEnv>, path: string): Promise<AppError | null> {
  const caller = (c as Context<AppEnv & { Variables: { caller?: Caller } }>).get("caller");
  if (caller) return caller.refusal();
  const credential = await readCredential(c.req, c.env);
  if (!credential) return unauthorizedRequest(c.req);
  return new Caller(credential, c.get("rdb"), c.env, acceptedScopes(c.req.method, path)).refusal();
}

/**
 * The resource a path names, as a path its GET answers: `/teams/T/members` names `/teams/T`, `/tasks/ENG-1` itself.
 * Undefined when the route names none (`/tasks`) or the app has no GET for it.
 */
function namedResource(app: AppHandle, template: string, pathname: string): string | undefined {
  const parts = template.split("/");
  const at = parts.findIndex((part) => part.startsWith("{"));
  if (at < 0) return undefined;
  const path = pathname
    .split("/")
    .slice(0, at + 1)
    .join("/");
  return documentedRoute(app, "GET", path) ? path : undefined;
}

/** Wraps the app's error handler so that an input refusal of a protected operation comes after 401 and 404. */
export function checksInOrder(app: AppHandle, onError: ErrorHandler<AppEnv>): ErrorHandler<AppEnv> {
  return async (err, c) => {
    if (!isInputRefusal(err)) return onError(err, c);
    const route = documentedRoute(app, c.req.method, c.req.path);
    if (!route?.secured) return onError(err, c);
    const denied = await refusal(c, route.path);
    if (denied) return onError(denied, c);
    const resource = c.req.method === "GET" ? undefined : namedResource(app, route.path, c.req.path);
    if (resource) {
      const found = await dispatchGet(app, outerOf(c), resource, `${c.get("requestId")}-check`, { existence: true });
      if (found.status === 404) {
        const { error } = (await found.json()) as { error: { message: string } };
        return onError(new AppError("NOT_FOUND", error.message), c);
      }
      await found.body?.cancel();
    }
    return onError(err, c);
  };
}
