// Who the request's writes are by, known before any of them starts (a request transaction for If-Match or an
// Idempotency-Key begins before the route's own auth runs): the credential's user, how it came (an API key or a token,
// the MCP endpoint, an import) and the request id. The events the database writes with each change carry it
// (docs/events.md).
import { createMiddleware } from "hono/factory";
import { type Credential, credentialUser, readCredential } from "../../auth/credential";
import type { EventVia } from "../../db/event-context";
import type { AppEnv } from "../../http/context";
import { type RoutePolicy, routePolicy } from "../../http/policy";
import { ATTEMPT, namedAttempt } from "../settle-asked";

/** How a request's writes came (`via` of every event: docs/events.md), from its route's policy and its credential. */
function viaOf(policy: RoutePolicy, credential: Credential | null): EventVia | null {
  // A sign-up or an invite redeemed is by the account it makes, whatever credential came along.
  if (policy.via === "sign_up") return "sign_up";
  if (!credential) return null; // another public route: a login
  // An OAuth grant's token says so wherever it writes, /mcp included (`via: "oauth"`).
  if (credential.kind === "jwt" && credential.grantId) return "oauth";
  if (policy.via) return policy.via;
  return credential.kind === "apiKey" ? "api_key" : "jwt";
}

export const eventContext = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    const policy = routePolicy(c);
    const credential = policy.via === "sign_up" ? null : await readCredential(c.req, c.env).catch(() => null);
    const via = viaOf(policy, credential);
    c.get("rdb").eventContext = {
      actor: credential ? credentialUser(credential) : null,
      via,
      requestId: c.get("requestId"),
      // The front Worker names a write's attempt, so it can ask after it if the write is dropped (src/middleware/settle-asked).
      attempt: namedAttempt(c.req.header(ATTEMPT)) ?? crypto.randomUUID(),
    };
  }
  await next();
});
