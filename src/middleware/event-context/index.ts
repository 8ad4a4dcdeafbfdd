// Who the request's writes are by, known before any of them starts (a request transaction for If-Match or an
// Idempotency-Key begins before the route's own auth runs): the credential's user, how it came (an API key or a token,
// the MCP endpoint, an import) and the request id. The events the database writes with each change carry it
// (docs/events.md).
import { createMiddleware } from "hono/factory";
import { credentialUser, readCredential } from "../../auth/credential";
import type { EventVia } from "../../db/event-context";
import type { AppEnv } from "../../http/context";
import { IMPORT_PATH, SIGN_UP_PATH } from "../../http/urls";

export const eventContext = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    // A sign-up or an invite redeemed is by the account it makes, whatever credential came along (contract §9: `sign_up`);
    // another public route (a login) has no credential: no `via`.
    const signUp = SIGN_UP_PATH.test(c.req.path);
    const credential = signUp ? null : await readCredential(c.req, c.env).catch(() => null);
    const via: EventVia | null = signUp
      ? "sign_up"
      : !credential
        ? null
        : c.req.path === "/mcp"
          ? "mcp"
          : IMPORT_PATH.test(c.req.path)
            ? "import"
            : credential.kind === "apiKey"
              ? "api_key"
              : "jwt";
    c.get("rdb").eventContext = { actor: credential ? credentialUser(credential) : null, via, requestId: c.get("requestId") };
  }
  await next();
});
