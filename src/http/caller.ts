import { createMiddleware } from "hono/factory";
import { Caller, unauthorizedRequest } from "../auth/caller";
import { readCredential } from "../auth/credential";
import type { AppEnv } from "./context";
import { matchedScopes, securing } from "./policy";

/** What a protected route has: the caller (docs/architecture.md, "One auth idiom"). */
export type CallerEnv = AppEnv & { Variables: { caller: Caller } };

/**
 * Every protected route: reads `svc-api-key` or `Authorization: Bearer <JWT>` without a query (a request with neither,
 * or with a JWT that does not verify, is 401 at once) and sets `caller`, requiring the scope its route declares (src/http/policy.ts);
 * whether the credential is live and grants it is decided by the operation's own statement, or by loading the principal
 * when it needs one.
 */
export const withCaller = securing(
  createMiddleware<CallerEnv>(async (c, next) => {
    const credential = await readCredential(c.req, c.env);
    if (!credential) throw unauthorizedRequest(c.req);
    c.set("caller", new Caller(credential, c.get("rdb"), c.env, matchedScopes(c)));
    await next();
  }),
);
