// The OAuth token endpoints (the routes whose policy says `errors: "oauth"`) answer their refusals in OAuth's wire
// format (http/oauth-error-body.ts): every error answer of those routes, whatever raised it (the handler, the validator, the body limit, the rate limit, the error mapper's 503),
// is rewritten here from the API's body, so there is still one error mapper and one place that speaks OAuth.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../http/context";
import { oauthErrorOf } from "../../http/oauth-error-body";
import { routePolicy } from "../../http/policy";

export const oauthErrors = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  // A token request is a POST (the only method those routes have); another method is the API's 405 like anywhere else.
  if (routePolicy(c).errors !== "oauth") return;
  // RFC 6749 §5.1, §5.2: a token endpoint's answers, tokens or refusals, are never stored by a cache.
  c.res.headers.set("cache-control", "no-store");
  if (c.res.status < 400) return;
  const { status, body } = oauthErrorOf(c.res.status, await c.res.json().catch(() => undefined));
  // Hono keeps the replaced answer's headers (request id, timing, rate limit, Retry-After) on the new one.
  c.res = new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
});
