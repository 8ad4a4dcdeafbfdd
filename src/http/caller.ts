import { createMiddleware } from "hono/factory";
import { Caller, unauthorizedRequest } from "../auth/caller";
import { readCredential } from "../auth/credential";
import { acceptedScopes } from "../core/scopes";
import type { AppEnv } from "./context";

/** What a protected route has: the caller (docs/architecture.md, "One auth idiom"). */
export type CallerEnv = AppEnv & { Variables: { caller: Caller } };

/**
 * Every protected route: reads `svc-api-key` or `Authorization: Bearer <JWT>` without a query (a request with neither,
 * or with a JWT that does not verify, is 401 at once) and sets `caller`, requiring the operation's scope (core/scopes.ts);
 * whether the credential is live and grants it is decided by the operation's own statement, or by loading the principal
 * when it needs one.
 */
export const withCaller = createMiddleware<CallerEnv>(async (c, next) => {
  const credential = await readCredential(c.req, c.env);
  if (!credential) throw unauthorizedRequest(c.req);
  c.set("caller", new Caller(credential, c.get("rdb"), c.env, acceptedScopes(c.req.method, c.req.routePath)));
  await next();
});
