// Who the request's writes are by, known before any of them starts (a request transaction for If-Match or an
// Idempotency-Key begins before the route's own auth runs): the credential's user, how it came (an API key or a token,
// the MCP endpoint, an import) and the request id. The events the database writes with each change carry it
// (docs/events.md).
import { createMiddleware } from "hono/factory";
import { credentialUser, readCredential } from "../../auth/credential";
import type { EventVia } from "../../db/event-context";
import type { AppEnv } from "../../http/context";
import { IMPORT_PATH } from "../../http/urls";

export const eventContext = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") {
    const credential = await readCredential(c.req, c.env).catch(() => null);
    // A public route (sign-up, login, an invite redeemed) has no credential: no `via`.
    // An OAuth grant's token says so wherever it writes, /mcp included (contract §16).
    const via: EventVia | null = !credential
      ? null
      : credential.kind === "jwt" && credential.grantId
        ? "oauth"
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
