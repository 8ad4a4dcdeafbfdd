import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { workspacesOf } from "../../auth/accounts/credentials";
import { openState, sealState } from "../../auth/jwt";
import { AppError, badRequest, ValidationError } from "../../core/errors";
import { parseScopeString, SCOPES } from "../../core/scopes";
import type { AppEnv } from "../../http/context";
import { emailOutbox } from "../../http/email-outbox";
import { formBody, htmlOrApiError, htmlResponse } from "../../http/html-page";
import { OAuthErrorBody, oauthRefusal } from "../../http/oauth-error-body";
import { errorResponses, jsonResponse } from "../../http/openapi";
import { declaring, type RoutePolicy } from "../../http/policy";
import { protectedRoute, publicRoute } from "../../http/route-base";
import { newRouter } from "../../http/router";
import { publicBaseUrl } from "../../http/urls";
import { zodErrors } from "../../http/validation";
import { REVOKED } from "../../middleware/edge-workspace";
import {
  approveDevice,
  createDeviceCode,
  decideDevice,
  exchangeDeviceCode,
  normalizeUserCode,
  pendingDevice,
  refreshLogin,
  revokeToken,
  signInDevice,
  startDeviceLogin,
} from "./operations";
import { confirmPage, enterCodePage, messagePage, PAGE_HEADERS, workspacePage } from "./page";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
/**
 * A token request's grant_type: documented as the one value the endpoint takes, validated as any string, so that
 * another grant is RFC 6749's `unsupported_grant_type` (deviceBody), not a malformed request.
 */
const grantType = (grant: string) =>
  z
    .string()
    .max(100)
    .openapi({ type: "string", enum: [grant] });

const DeviceCodeRequest = z
  .object({
    client_name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "Shown to the person who approves, e.g. `pm-cli on laptop`" }),
    // RFC 8628 clients send these; client_id stands in for client_name when that is absent.
    client_id: z.string().trim().min(1).max(100).optional(),
    scope: z
      .string()
      .max(500)
      .optional()
      .openapi({
        description: `What the device asks to do, space-separated (RFC 8628 §3.1): ${SCOPES.join(", ")}. Omitted: every scope. The token may get fewer (its \`scope\` says which).`,
        example: "read comments:write",
      }),
  })
  .strict()
  .openapi("DeviceCodeRequest");
const DeviceApproveRequest = z
  .object({ user_code: z.string().min(1).max(32) })
  .strict()
  .openapi("DeviceApproveRequest");
const RefreshRequest = z
  .object({ grant_type: grantType("refresh_token"), refresh_token: z.string().min(1).max(200), client_id: z.string().max(100).optional() })
  .strict()
  .openapi("RefreshTokenRequest");
const RevokeRequest = z
  .object({
    token: z
      .string()
      .min(1)
      .max(4000)
      .openapi({ description: "A refresh token or an access token: a device login's, or an OAuth grant's (POST /oauth/token)" }),
    token_type_hint: z.enum(["refresh_token", "access_token"]).optional(),
    client_id: z
      .string()
      .max(2000)
      .optional()
      .openapi({ description: "An OAuth client's id: when sent, only a token of that client's grant is revoked" }),
  })
  .strict()
  .openapi("RevokeTokenRequest");
const TokenAnswer = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    scope: z.string().openapi({ description: "The scopes the token has, space-separated" }),
    refresh_token: z.string().openapi({ description: "Renews the login (POST /auth/token); single use, each answer carries the next" }),
  })
  .openapi("DeviceToken");

const DeviceTokenRequest = z
  .object({
    device_code: z.string().min(1).max(200),
    grant_type: grantType(DEVICE_GRANT).optional(),
    client_id: z.string().max(100).optional(),
  })
  .strict()
  .openapi("DeviceTokenRequest");

/** JSON or, as RFC 8628 clients send it, application/x-www-form-urlencoded. */
const jsonOrForm = <T extends z.ZodType>(schema: T) => ({
  body: {
    // Not `required`, so each media type is validated only when it is the one sent; the handler checks the rest.
    required: false,
    content: { "application/json": { schema }, "application/x-www-form-urlencoded": { schema } },
  },
});

/**
 * The body of a jsonOrForm route, whichever media type came (none: an empty body, validated here). A token endpoint
 * names its `grant`: another grant_type is RFC 6749's `unsupported_grant_type`, not a malformed request.
 */
function deviceBody<T extends z.ZodType>(c: Context, schema: T, grant?: string): z.infer<T> {
  const form = /application\/x-www-form-urlencoded|multipart\/form-data/i.test(c.req.header("content-type") ?? "");
  const input = (c.req.valid as (target: string) => unknown)(form ? "form" : "json");
  const grantType = (input as { grant_type?: unknown } | undefined)?.grant_type;
  if (grant && typeof grantType === "string" && grantType !== grant) {
    throw oauthRefusal("unsupported_grant_type", `grant_type must be ${grant} here`);
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ValidationError(zodErrors(parsed.error));
  return parsed.data;
}

/** What a person's device or browser calls before it has a credential: limited per client IP. */
const PUBLIC: RoutePolicy = { rateLimit: "ip" };
/** The OAuth token endpoints (RFC 8628 §3.4, RFC 6749 §6, RFC 7009): their refusals are OAuth's (src/http/oauth-error-body.ts). */
const TOKEN_ENDPOINT: RoutePolicy = { errors: "oauth" };

const code = createRoute({
  method: "post",
  operationId: "createDeviceCode",
  path: "/auth/device/code",
  ...publicRoute("Device flow", PUBLIC),
  summary: "Start a device login (RFC 8628): a device code to poll with and a user code to show",
  description:
    "The command-line client shows `user_code` and `verification_uri` (or opens `verification_uri_complete`), where a person signs in with an emailed code and approves the device; meanwhile the client polls POST /auth/device/token every `interval` seconds until `expires_in` runs out.",
  request: jsonOrForm(DeviceCodeRequest),
  responses: {
    200: jsonResponse(
      z
        .object({
          device_code: z.string(),
          user_code: z.string().openapi({ example: "BCDF-GHJK" }),
          verification_uri: z.string(),
          verification_uri_complete: z.string(),
          expires_in: z.number().int(),
          interval: z.number().int(),
        })
        .openapi("DeviceCode"),
      "Device authorization started",
    ),
    ...errorResponses(["BAD_REQUEST", "UNAVAILABLE"], { validation: true }),
  },
});

const approve = createRoute({
  method: "post",
  operationId: "approveDevice",
  path: "/auth/device/approve",
  // Any live credential: the device's token never gets more than the approver's credential has.
  ...protectedRoute("Device flow", { scope: null }),
  summary: "Approve a device by its user code (humans only)",
  description:
    "Binds the pending device to the caller and the caller's current workspace; its next poll receives a JWT for them. Agents get 403. An unknown or expired user code is 404; one already approved or denied is 409.",
  request: jsonOrForm(DeviceApproveRequest),
  responses: {
    200: jsonResponse(z.object({ approved: z.literal(true) }), "Approved"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});

const token = createRoute({
  method: "post",
  operationId: "exchangeDeviceToken",
  path: "/auth/device/token",
  ...publicRoute("Device flow", { ...PUBLIC, ...TOKEN_ENDPOINT }),
  summary: "Poll for the access token of a device (RFC 8628 §3.4)",
  description:
    "Errors are OAuth's (RFC 8628 §3.5, RFC 6749 §5.2: `{error, error_description}` at the top level, not the API's shape), so any OAuth client library polls it. Until the person decides: 400 `authorization_pending`, or `slow_down` when polled faster than the interval (which then grows by 5 s; `interval` says it). Afterwards 400 `access_denied` or `expired_token`. Once approved: the JWT, exactly once; a device code that was already exchanged (or never existed) is 400 `invalid_grant`. The JWT works as `Authorization: Bearer` on every endpoint, for the approving user in the workspace they approved from.",
  request: jsonOrForm(DeviceTokenRequest),
  responses: {
    200: jsonResponse(TokenAnswer, "Access token (a JWT) and the refresh token of the login"),
    400: jsonResponse(OAuthErrorBody, "authorization_pending, slow_down, access_denied, expired_token, invalid_grant, invalid_request"),
    503: jsonResponse(OAuthErrorBody, "temporarily_unavailable: the database is unreachable"),
  },
});

const refresh = createRoute({
  method: "post",
  operationId: "refreshToken",
  path: "/auth/token",
  ...publicRoute("Device flow", TOKEN_ENDPOINT),
  summary: "Renew a device's login: a new access token from its refresh token (RFC 6749 §6)",
  description:
    "The refresh token is used up: the answer carries the next one, with the same scopes and teams. Errors are OAuth's (RFC 6749 §5.2): an unknown, used, revoked or expired refresh token (90 days unused), or one of a user who left the workspace, is 400 `invalid_grant`.",
  request: jsonOrForm(RefreshRequest),
  responses: {
    200: jsonResponse(TokenAnswer, "A new access token and the next refresh token"),
    400: jsonResponse(OAuthErrorBody, "invalid_grant, unsupported_grant_type, invalid_request"),
    503: jsonResponse(OAuthErrorBody, "temporarily_unavailable: the database is unreachable"),
  },
});

const revoke = createRoute({
  method: "post",
  operationId: "revokeToken",
  path: "/auth/revoke",
  ...publicRoute("Device flow", TOKEN_ENDPOINT),
  summary: "Revoke a token (RFC 7009): a device's login or an OAuth grant, with every token of it",
  description:
    "Takes a refresh token or an access token of a device's login (`pm logout`) or of an OAuth grant (the authorization server's `revocation_endpoint`): the login or the grant ends, so its refresh token and every access token of it are 401 from the next request on. As RFC 7009 says, the answer is the same for a token that is unknown or already revoked.",
  request: jsonOrForm(RevokeRequest),
  responses: {
    200: jsonResponse(z.object({ revoked: z.literal(true) }), "Revoked (or nothing to revoke)"),
    400: jsonResponse(OAuthErrorBody, "invalid_request: a malformed or invalid body (RFC 7009 §2.2.1, RFC 6749 §5.2)"),
    503: jsonResponse(OAuthErrorBody, "temporarily_unavailable: the database is unreachable"),
  },
});

// ---- the verification page (text/html) ----

const PageStart = z.object({ user_code: z.string().max(64), email: z.string().max(320) }).strict();
const PageConfirm = z
  .object({
    user_code: z.string().max(64),
    login_token: z.string().max(200),
    code: z.string().max(32),
    decision: z.enum(["continue", "deny"]),
  })
  .strict();
const PageDecide = z
  .object({
    user_code: z.string().max(64),
    session: z.string().max(2000),
    workspace_id: z.string().max(100),
    decision: z.enum(["approve", "deny"]),
  })
  .strict();
/** How long a person signed in on the page has to choose the workspace. */
const PAGE_SESSION_TTL_SECONDS = 15 * 60;

const page = createRoute({
  method: "get",
  operationId: "deviceVerificationPage",
  path: "/device",
  ...publicRoute("Device flow"),
  summary: "Verification page (HTML): enter the device's user code and an email address",
  description: "`verification_uri_complete` opens it with `user_code` filled in.",
  request: { query: z.object({ user_code: z.string().max(64).optional() }) },
  responses: { 200: htmlResponse("The form") },
});

const pageStart = createRoute({
  method: "post",
  operationId: "deviceVerificationStart",
  path: "/device",
  ...publicRoute("Device flow"),
  summary: "Verification page (HTML), step 1: checks the user code and emails a login code",
  description: "The same login codes as POST /login/start: an address without an account gets the same page and no email.",
  request: formBody(PageStart),
  responses: {
    200: htmlResponse("Asks for the emailed code"),
    404: htmlResponse("Unknown or expired user code"),
    422: htmlResponse("Invalid input"),
    ...errorResponses(["UNAVAILABLE"]),
  },
});

const pageConfirm = createRoute({
  method: "post",
  operationId: "deviceVerificationConfirm",
  path: "/device/confirm",
  ...publicRoute("Device flow"),
  summary: "Verification page (HTML), step 2: checks the emailed code; Continue to choose the workspace, or Deny the device",
  description:
    "The same login codes as POST /login/complete; the code is used up. Continue answers step 3: the person's workspaces to choose from (as the OAuth consent page offers them).",
  request: formBody(PageConfirm),
  responses: {
    200: htmlResponse("Step 3, or denied"),
    404: htmlResponse("Unknown or expired user code"),
    409: htmlResponse("Already decided"),
    422: htmlResponse("Wrong code, or a member of no workspace"),
    ...errorResponses(["UNAVAILABLE"]),
  },
});

const pageDecide = createRoute({
  method: "post",
  operationId: "deviceVerificationDecide",
  path: "/device/decide",
  ...publicRoute("Device flow"),
  summary: "Verification page (HTML), step 3: approves the device for one of the person's workspaces, or denies it",
  description: "`session` is step 2's signed sign-in (15 minutes, for this user code only); `workspace_id` one of the person's workspaces.",
  request: formBody(PageDecide),
  responses: {
    200: htmlResponse("Approved or denied"),
    400: htmlOrApiError("The sign-in expired or is not this device's"),
    404: htmlResponse("Unknown or expired user code"),
    409: htmlResponse("Already decided"),
    422: htmlOrApiError("Not one of the person's workspaces"),
    ...errorResponses(["UNAVAILABLE"]),
  },
});

type PageContext = Context<AppEnv>;
const render = async (c: PageContext, body: ReturnType<typeof enterCodePage>, status: ContentfulStatusCode = 200) =>
  c.html(await body, status, PAGE_HEADERS);

/** The page's form fields, checked here so that a bad form is answered with a page, not with JSON. */
async function pageForm<T extends z.ZodType>(c: PageContext, schema: T): Promise<z.infer<T> | undefined> {
  const type = c.req.header("content-type") ?? "";
  if (!/application\/x-www-form-urlencoded|multipart\/form-data/i.test(type)) return undefined;
  // A malformed multipart body (no boundary, truncated) is an incomplete form, not a server error.
  const parsed = schema.safeParse(await c.req.parseBody().catch(() => undefined));
  return parsed.success ? parsed.data : undefined;
}
const incomplete = (c: PageContext) =>
  render(c, messagePage("Something went wrong", "The form was incomplete. Start again.", { restart: true }), 422);

const flatten = (err: ValidationError) => Object.values(err.errors).flat();
/** A decision on a code decided or expired meanwhile (404, 409): a page; anything else is the API's error. */
function noLongerPending(c: PageContext, err: unknown) {
  if (err instanceof AppError && (err.code === "NOT_FOUND" || err.code === "CONFLICT")) {
    return render(c, messagePage("Device code no longer pending", err.message, { restart: true }), err.status);
  }
  throw err;
}
const denied = (c: PageContext) => render(c, messagePage("Device denied", "The device was refused access. You can close this page."));

export const deviceRoutes = newRouter()
  .openapi(code, async (c) => {
    const input = deviceBody(c, DeviceCodeRequest);
    const asked = input.scope === undefined ? null : parseScopeString(input.scope);
    if (asked?.unknown.length) {
      throw badRequest(`Unknown scope: ${asked.unknown.join(", ")} (known: ${SCOPES.join(", ")})`, { error: "invalid_scope" });
    }
    if (asked && asked.scopes.length === 0) throw badRequest("scope names no scope", { error: "invalid_scope" });
    const db = c.get("rdb").db;
    return c.json(await createDeviceCode(db, publicBaseUrl(c), input.client_name ?? input.client_id, asked?.scopes ?? null), 200);
  })
  .openapi(approve, async (c) => {
    const { user_code } = deviceBody(c, DeviceApproveRequest);
    await approveDevice(c.get("caller"), user_code);
    return c.json({ approved: true as const }, 200);
  })
  .openapi(token, async (c) => {
    const { device_code } = deviceBody(c, DeviceTokenRequest, DEVICE_GRANT);
    return c.json(await exchangeDeviceCode(c.get("rdb").db, c.env, device_code), 200);
  })
  .openapi(refresh, async (c) => {
    const { refresh_token } = deviceBody(c, RefreshRequest, "refresh_token");
    return c.json(await refreshLogin(c.get("rdb").db, c.env, refresh_token), 200);
  })
  .openapi(revoke, async (c) => {
    const { token, client_id } = deviceBody(c, RevokeRequest);
    const workspace = await revokeToken(c.get("rdb").db, c.env, token, client_id);
    // The front Worker stops the revoked credential's stored answers at once (docs/edge.md, "Revocation").
    if (workspace) c.header(REVOKED, workspace);
    return c.json({ revoked: true as const }, 200);
  });

// The HTML routes are plain Hono handlers (they answer pages, also for bad input); the document lists them.
for (const route of [page, pageStart, pageConfirm, pageDecide]) deviceRoutes.openAPIRegistry.registerPath(route);

deviceRoutes.get("/device", declaring(PUBLIC), (c) => {
  const userCode = c.req.query("user_code");
  return render(c, enterCodePage({ userCode: userCode && userCode.length <= 64 ? userCode : undefined }));
});

deviceRoutes.post("/device", declaring(PUBLIC), async (c) => {
  const form = await pageForm(c, PageStart);
  if (!form) return incomplete(c);
  const { user_code, email } = form;
  const db = c.get("rdb").db;
  const device = await pendingDevice(db, user_code);
  if (!device) {
    const errors = ["This device code is unknown or has expired. Check the code on your device."];
    return render(c, enterCodePage({ userCode: user_code, email, errors }), 404);
  }
  if (!z.email().safeParse(email.trim()).success) {
    return render(c, enterCodePage({ userCode: user_code, email, errors: ["Enter a valid email address."] }), 422);
  }
  const loginToken = await startDeviceLogin(db, emailOutbox(c), email);
  return render(c, confirmPage({ userCode: device.userCode, loginToken, clientName: device.clientName, scopes: device.scopes }));
});

deviceRoutes.post("/device/confirm", declaring(PUBLIC), async (c) => {
  const form = await pageForm(c, PageConfirm);
  if (!form) return incomplete(c);
  const db = c.get("rdb").db;
  const device = await pendingDevice(db, form.user_code);
  if (!device) {
    const message = "This device code is unknown, has expired or was already used.";
    return render(c, messagePage("Device code expired", message, { restart: true }), 404);
  }
  const again = (errors: string[]) =>
    render(
      c,
      confirmPage({
        userCode: device.userCode,
        loginToken: form.login_token,
        clientName: device.clientName,
        scopes: device.scopes,
        errors,
      }),
      422,
    );
  const code = form.code.trim();
  if (!/^\d{6}$/.test(code)) return again(["Enter the 6-digit code from the email."]);
  const deny = form.decision === "deny";
  try {
    const login = await signInDevice(db, device.userCode, { login_token: form.login_token, code }, deny);
    if (deny) return denied(c);
    // Signed in: the choice of workspace, bound to this device's user code.
    const session = await sealState(
      c.env,
      "device-session",
      { sub: login.user.id, email: login.user.email, uc: device.userCode },
      PAGE_SESSION_TTL_SECONDS,
    );
    const workspaces = await workspacesOf(db, login.user.id);
    return render(
      c,
      workspacePage({ userCode: device.userCode, session, clientName: device.clientName, email: login.user.email, workspaces }),
    );
  } catch (err) {
    if (err instanceof ValidationError) return again(flatten(err));
    return noLongerPending(c, err);
  }
});

deviceRoutes.post("/device/decide", async (c) => {
  const form = await pageForm(c, PageDecide);
  if (!form) return incomplete(c);
  const userCode = normalizeUserCode(form.user_code);
  const signedIn = await openState(c.env, "device-session", form.session);
  if (!signedIn || !userCode || signedIn.uc !== userCode) {
    return render(c, messagePage("This sign-in has expired", "Sign in again to approve the device.", { restart: true }), 400);
  }
  const db = c.get("rdb").db;
  const person = { id: String(signedIn.sub), email: String(signedIn.email) };
  try {
    if (form.decision === "deny") {
      await decideDevice(db, userCode, { approve: false });
      return denied(c);
    }
    const workspaces = await workspacesOf(db, person.id);
    const workspace = workspaces.find((w) => w.id === form.workspace_id);
    if (!workspace) {
      const device = await pendingDevice(db, userCode);
      const page = workspacePage({
        userCode,
        session: form.session,
        clientName: device?.clientName ?? null,
        email: person.email,
        workspaces,
        errors: ["Choose one of your workspaces."],
      });
      return render(c, page, 422);
    }
    await decideDevice(db, userCode, { approve: true, userId: person.id, workspaceId: workspace.id, within: null });
    const message = `The device is signed in to ${workspace.name} as ${person.email}. You can close this page.`;
    return render(c, messagePage("Device approved", message));
  } catch (err) {
    return noLongerPending(c, err);
  }
});
