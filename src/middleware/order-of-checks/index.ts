// The order of checks (docs/api.md, conventions): a protected operation answers 401 for a missing or invalid credential whatever its body or
// parameters (only 413 and 405 come first); then 403/404; then validation. The common request never pays for it: a
// statement that authenticates itself proves the credential while it works, so input is checked before the credential is.
// Only when the input is refused does this prove the credential (one query), and look up the resource its path names
// (with the read its GET answers with), so that the refusal a caller gets is the first the order names.
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { Caller, unauthorizedRequest } from "../../auth/caller";
import { readCredential } from "../../auth/credential";
import { AppError, ValidationError } from "../../core/errors";
import { acceptedScopes } from "../../core/scopes";
import type { AppEnv } from "../../http/context";
import { type AppHandle, documentedRoute } from "../../http/documented-routes";
import type { Readers } from "../if-match";

/** A refusal of what the request carries (its body, query or path values), not of who sends it or what it names. */
export const isInputRefusal = (err: unknown) =>
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
 * The resource a path names and the id it names it by, when it has a read: `/teams/T/members` names team T,
 * `/tasks/ENG-1` task ENG-1. Undefined when the route names none (`/tasks`) or the resource has no read.
 */
function namedResource(readers: Readers, template: string, pathname: string) {
  const parts = template.split("/");
  if (!parts[2]?.startsWith("{")) return undefined;
  const [, name, id] = pathname.split("/");
  const read = readers[name];
  return read && id ? { read, id } : undefined;
}

/** Wraps the app's error handler so that an input refusal of a protected operation comes after 401 and 404. */
export function checksInOrder(app: AppHandle, readers: Readers, onError: ErrorHandler<AppEnv>): ErrorHandler<AppEnv> {
  return async (err, c) => {
    if (!isInputRefusal(err)) return onError(err, c);
    const route = documentedRoute(app, c.req.method, c.req.path);
    if (!route?.secured) return onError(err, c);
    const denied = await refusal(c, route.path);
    if (denied) return onError(denied, c);
    const resource = c.req.method === "GET" ? undefined : namedResource(readers, route.path, c.req.path);
    const credential = resource && (await readCredential(c.req, c.env));
    if (resource && credential) {
      // Only whether it exists for this caller: the answer never leaves the server, so the read needs no scope (a
      // write-only key's 404 comes before its 422).
      const found = await resource.read(new Caller(credential, c.get("rdb"), c.env, null), resource.id).catch((e: unknown) => e);
      if (found instanceof AppError && found.code === "NOT_FOUND") return onError(new AppError("NOT_FOUND", found.message), c);
    }
    return onError(err, c);
  };
}
