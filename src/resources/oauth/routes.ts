// The service as its own OAuth 2.1 authorization server for agent hosts (docs/clients.md): RFC 8414
// metadata, RFC 7591 registration, the consent page (./authorize.ts), the token endpoint, and a person's grants. The
// protocol endpoints answer OAuth's own error bodies (`{error, error_description}`, RFC 6749 §5.2, RFC 7591 §3.2.2),
// the grants the API's.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { MAX_REDIRECT_URI, OAuthError, registerClient } from "../../auth/oauth/clients";
import { exchangeCode, refreshGrant } from "../../auth/oauth/grants";
import { SCOPES } from "../../core/scopes";
import type { AppEnv } from "../../http/context";
import { htmlOrApiError, htmlResponse } from "../../http/html-page";
import { OAuthErrorBody } from "../../http/oauth-error-body";
import { ErrorBody, errorResponses, jsonResponse } from "../../http/openapi";
import { declaring, type RoutePolicy } from "../../http/policy";
import { listing, reading } from "../../http/read-route";
import { protectedRoute, publicRoute } from "../../http/route-base";
import { IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { publicBaseUrl } from "../../http/urls";
import { REVOKED } from "../../middleware/edge-workspace";
import { authorizePage, codeStep, consentStep, signInStep } from "./authorize";
import { deleteOAuthGrant, listOAuthGrants } from "./operations";
import { OAuthGrantSelection, oauthGrantRecord } from "./record";

const TAG = "OAuth";

/** A refusal of the protocol (OAuth's body), or of the API's middleware before it (a malformed Idempotency-Key: the API's). */
const oauthError = (description: string) => ({
  description: `${description}; a refusal before the endpoint (e.g. a malformed Idempotency-Key) is the API's error body`,
  content: { "application/json": { schema: z.union([OAuthErrorBody, ErrorBody]) } },
});
const form = (schema: z.ZodType) => ({ body: { required: true, content: { "application/x-www-form-urlencoded": { schema } } } });

/** The protocol's public endpoints and pages: limited per client IP (they come before any credential). */
const PUBLIC: RoutePolicy = { rateLimit: "ip" };

const serverMetadata = createRoute({
  method: "get",
  operationId: "getAuthorizationServerMetadata",
  path: "/.well-known/oauth-authorization-server",
  ...publicRoute(TAG),
  summary: "OAuth 2.0 Authorization Server Metadata (RFC 8414)",
  description:
    "The protected-resource metadata names this server; an MCP client reads this document to register (by a Client ID Metadata Document URL as `client_id`, or at `registration_endpoint`), send a person to `authorization_endpoint` and exchange the code at `token_endpoint`.",
  responses: { 200: jsonResponse(z.record(z.string(), z.unknown()).openapi("AuthorizationServerMetadata"), "The metadata") },
});

const register = createRoute({
  method: "post",
  operationId: "registerOAuthClient",
  path: "/oauth/register",
  ...publicRoute(TAG),
  summary: "Dynamic Client Registration (RFC 7591) of a public client",
  description:
    "Takes `redirect_uris` (1 to 10, each at most 2000 characters: https, http to localhost or 127.0.0.1, or an app's own scheme; no fragment) and `client_name` (at most 100 characters); the client is public (`token_endpoint_auth_method` `none`) and uses PKCE. Answers 201 with its `client_id`. Registrations are limited per client IP by the hour (`RATE_LIMIT_REGISTRATIONS`, 30 by default): over it, 429 with `Retry-After`. A registered client is not verified: a refusal of its authorization request before the person consents is a page, never a redirect.",
  request: { body: { required: true, content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } } },
  responses: {
    201: jsonResponse(z.record(z.string(), z.unknown()).openapi("OAuthClientInformation"), "Registered"),
    400: oauthError("`invalid_redirect_uri` or `invalid_client_metadata`"),
  },
});

const token = createRoute({
  method: "post",
  operationId: "exchangeOAuthToken",
  path: "/oauth/token",
  ...publicRoute(TAG),
  summary: "Token endpoint: an authorization code (with its PKCE verifier) or a refresh token for tokens",
  description:
    "`grant_type=authorization_code` with `code`, `redirect_uri`, `client_id`, `code_verifier`; `grant_type=refresh_token` with `refresh_token` and `client_id`. The refresh token is used up: each answer carries the next; one presented again revokes the grant. Errors are RFC 6749 §5.2 bodies.",
  request: form(z.record(z.string(), z.string())),
  responses: {
    200: jsonResponse(
      z
        .object({
          access_token: z.string(),
          token_type: z.literal("Bearer"),
          expires_in: z.number().int(),
          scope: z.string(),
          refresh_token: z.string(),
        })
        .openapi("OAuthToken"),
      "An access token (a JWT) and the next refresh token",
    ),
    400: oauthError("`invalid_request`, `invalid_grant`, `unsupported_grant_type`"),
  },
});

const authorize = createRoute({
  method: "get",
  operationId: "oauthAuthorizePage",
  path: "/oauth/authorize",
  ...publicRoute(TAG),
  summary: "Authorization endpoint (HTML): the consent page",
  description:
    "`response_type=code`, `client_id`, `redirect_uri`, `code_challenge` with `code_challenge_method=S256`, `state`, `scope` (space-separated; omitted: every scope), `resource` (RFC 8707: `<base>/mcp` or `<base>`). A person signs in with an emailed code, chooses the workspace, may untick scopes and narrow to some teams, and approves (a redirect with `code`) or denies (`error=access_denied`).",
  request: {
    query: z.object({
      response_type: z.literal("code"),
      client_id: z.string().max(2000),
      redirect_uri: z.string().max(MAX_REDIRECT_URI).optional(),
      code_challenge: z.string().max(128),
      code_challenge_method: z.literal("S256"),
      state: z.string().max(2000).optional(),
      scope: z.string().max(500).optional(),
      resource: z.string().max(2000).optional(),
    }),
  },
  responses: {
    200: htmlResponse("The sign-in step"),
    302: { description: "Back to a verified client (OAUTH_VERIFIED_CLIENTS) with `error`" },
    400: htmlResponse("Unknown client or redirect_uri; or any refusal for a client not verified (no redirect: RFC 9700 §4.11.2)"),
  },
});
const steps = [
  [
    "oauthAuthorizeEmail",
    "/oauth/authorize",
    "step 1: the email address to send a code to, or Deny",
    "The same login codes as POST /login/start.",
  ],
  [
    "oauthAuthorizeSignIn",
    "/oauth/authorize/signin",
    "step 2: the emailed code, or Deny",
    "The same login codes as POST /login/complete; the code is used up.",
  ],
  [
    "oauthAuthorizeConsent",
    "/oauth/authorize/consent",
    "step 3: workspace, scopes and teams; Approve or Deny",
    "Approve redirects to the client with `code` (5 minutes, single use); the scopes are those ticked of those asked, the teams every team or those ticked.",
  ],
].map(([operationId, path, what, description]) =>
  createRoute({
    method: "post",
    operationId,
    path,
    ...publicRoute(TAG),
    summary: `Authorization endpoint (HTML), ${what}`,
    description,
    request: form(z.record(z.string(), z.string())),
    responses: {
      200: htmlResponse("The next step"),
      302: { description: "Back to the client" },
      400: htmlOrApiError("The request expired (30 minutes) or the form is not this flow's"),
      403: htmlResponse("The person is a member of no workspace"),
      422: htmlOrApiError("Invalid input"),
    },
  }),
);

const listGrants = createRoute({
  ...protectedRoute(TAG),
  method: "get",
  operationId: "listOAuthGrants",
  path: "/oauth/grants",
  summary: "List the caller's OAuth grants (agent hosts the caller let in)",
  description: listDescription(oauthGrantRecord.list, "Grants of the caller in the current workspace; never a token."),
  request: { query: listQueryFor(oauthGrantRecord.list) },
  responses: {
    200: jsonResponse(paginated("oauth_grants", OAuthGrantSelection), "OAuth grants (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const removeGrant = createRoute({
  ...protectedRoute(TAG),
  method: "delete",
  operationId: "deleteOAuthGrant",
  path: "/oauth/grants/{id}",
  summary: "Revoke an OAuth grant",
  description:
    "One of the caller's grants (any other is 404). Its access and refresh tokens are 401 (invalid_grant) from the next request on.",
  request: { params: IdParam },
  responses: { 204: { description: "Revoked" }, ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]) },
});

/** An OAuth error body, uncacheable (RFC 6749 §5.1–5.2); a refusal that revoked a grant says whose (docs/edge.md). */
const oauthFailure = (c: Context, err: OAuthError) =>
  c.json({ error: err.error, error_description: err.description }, err.status, {
    "cache-control": "no-store",
    ...(err.revoked && { [REVOKED]: err.revoked }),
  });

/** The token request's parameters: a form (RFC 6749 §4.1.3), or JSON from a lenient client. */
async function tokenParams(c: Context): Promise<Record<string, string>> {
  const json = /application\/json/i.test(c.req.header("content-type") ?? "");
  const raw: unknown = json ? await c.req.json().catch(() => null) : await c.req.parseBody().catch(() => null);
  if (typeof raw !== "object" || raw === null)
    throw new OAuthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded");
  return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string"));
}

const required = (p: Record<string, string>, name: string) => {
  if (!p[name]) throw new OAuthError("invalid_request", `${name} is required`);
  return p[name];
};

export const oauthRoutes = newRouter()
  .openapi(
    serverMetadata,
    reading(serverMetadata, async ({ env, url }) => {
      const base = publicBaseUrl({ env, req: { url: url.href } });
      return {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        // RFC 7009: one endpoint revokes every token the service issues, a device login's and a grant's.
        revocation_endpoint: `${base}/auth/revoke`,
        revocation_endpoint_auth_methods_supported: ["none"],
        scopes_supported: [...SCOPES],
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        token_endpoint_auth_methods_supported: ["none"],
        code_challenge_methods_supported: ["S256"],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${base}/docs`,
      };
    }),
  )
  .openapi(listGrants, reading(listGrants, listing(oauthGrantRecord.list, "oauth_grants", listOAuthGrants)))
  .openapi(removeGrant, async (c) => {
    await deleteOAuthGrant(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });

// The protocol endpoints and the pages are plain handlers (OAuth's error bodies, HTML); the document lists them.
for (const route of [register, token, authorize, ...steps]) oauthRoutes.openAPIRegistry.registerPath(route);

// A registration stores a row for good: a budget of its own per client IP.
oauthRoutes.post("/oauth/register", declaring({ rateLimit: "registration" }), async (c: Context<AppEnv>) => {
  try {
    const body = await c.req.json().catch(() => {
      throw new OAuthError("invalid_client_metadata", "The body must be a JSON object");
    });
    return c.json(await registerClient(c.get("rdb").db, body), 201, { "cache-control": "no-store" });
  } catch (err) {
    if (err instanceof OAuthError) return oauthFailure(c, err);
    throw err;
  }
});

oauthRoutes.post("/oauth/token", declaring(PUBLIC), async (c: Context<AppEnv>) => {
  try {
    const p = await tokenParams(c);
    const db = c.get("rdb").db;
    const grantType = required(p, "grant_type");
    const clientId = required(p, "client_id");
    const base = publicBaseUrl(c);
    if (p.resource !== undefined && ![base, `${base}/`, `${base}/mcp`].includes(p.resource)) {
      throw new OAuthError("invalid_target", `resource must be ${base}/mcp (or the API, ${base})`);
    }
    const answer =
      grantType === "authorization_code"
        ? await exchangeCode(db, c.env, {
            code: required(p, "code"),
            clientId,
            redirectUri: required(p, "redirect_uri"),
            codeVerifier: required(p, "code_verifier"),
          })
        : grantType === "refresh_token"
          ? await refreshGrant(db, c.env, { refreshToken: required(p, "refresh_token"), clientId })
          : (() => {
              throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
            })();
    return c.json(answer, 200, { "cache-control": "no-store", pragma: "no-cache" });
  } catch (err) {
    if (err instanceof OAuthError) return oauthFailure(c, err);
    throw err;
  }
});

oauthRoutes.get("/oauth/authorize", declaring(PUBLIC), authorizePage);
oauthRoutes.post("/oauth/authorize", declaring(PUBLIC), signInStep);
oauthRoutes.post("/oauth/authorize/signin", declaring(PUBLIC), codeStep);
oauthRoutes.post("/oauth/authorize/consent", declaring(PUBLIC), consentStep);
