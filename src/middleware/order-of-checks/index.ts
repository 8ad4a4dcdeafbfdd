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
import type { AppEnv } from "../../http/context";
import { matchedParams, matchedRoute, matchedScopes } from "../../http/policy";
import { type AppHandle, readsOf } from "../../http/read-route";

/** A refusal of what the request carries (its body, query or path values), not of who sends it or what it names. */
export const isInputRefusal = (err: unknown) =>
  err instanceof ValidationError ||
  (err instanceof AppError && err.code === "BAD_REQUEST") ||
  (err instanceof HTTPException && (err.status === 400 || err.status === 415));

/**
 * Why the request may not run at all: 401 unless its credential names a live key or token of a current member, 403
 * when it lacks the scope its route declares; null when it may (no query when the caller knows).
 */
async function refusal(c: Context<AppEnv>): Promise<AppError | null> {
  const caller = (c as Context<AppEnv & { Variables: { caller?: Caller } }>).get("caller");
  if (caller) return caller.refusal();
  const credential = await readCredential(c.req, c.env);
  if (!credential) return unauthorizedRequest(c.req);
  return new Caller(credential, c.get("rdb"), c.env, matchedScopes(c)).refusal();
}

type App = Pick<AppHandle, "routes">;

/**
 * The record the matched route names and the id it names it by, when its GET has a read: `/teams/:id/members` names
 * the team (GET `/teams/:id`), `/tasks/:id` the task. Undefined when the route names none (`/tasks`) or it has no read.
 */
function namedRecord(app: App, c: Context<AppEnv>, template: string) {
  const [, name, param] = template.split("/");
  const get = param?.startsWith(":") ? readsOf(app).get(`/${name}/${param}`) : undefined;
  const id = get && matchedParams(c)[param.slice(1)];
  return get && id ? { get, id } : undefined;
}

/** Wraps the app's error handler so that an input refusal of a protected operation comes after 401 and 404. */
export function checksInOrder(app: App, onError: ErrorHandler<AppEnv>): ErrorHandler<AppEnv> {
  return async (err, c) => {
    if (!isInputRefusal(err)) return onError(err, c);
    const route = matchedRoute(c);
    if (!route?.secured) return onError(err, c);
    const denied = await refusal(c);
    if (denied) return onError(denied, c);
    const record = c.req.method === "GET" ? undefined : namedRecord(app, c, route.path);
    const credential = record && (await readCredential(c.req, c.env));
    if (record && credential) {
      // Only whether it exists for this caller: the answer never leaves the server, so the read needs no scope (a
      // write-only key's 404 comes before its 422).
      const caller = new Caller(credential, c.get("rdb"), c.env, null);
      const input = { caller, param: { id: record.id }, query: {}, url: new URL(c.req.url), db: c.get("rdb").db, env: c.env };
      const found = await record.get.read(input).catch((e: unknown) => e);
      if (found instanceof AppError && found.code === "NOT_FOUND") return onError(new AppError("NOT_FOUND", found.message), c);
    }
    return onError(err, c);
  };
}
