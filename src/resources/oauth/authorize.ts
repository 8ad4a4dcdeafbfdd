// /oauth/authorize (docs/clients.md, OAuth): the authorization code flow with PKCE S256 (RFC 6749 §4.1, RFC 7636) and
// RFC 8707 `resource`, as a consent page. The request is checked once (GET), then travels sealed (auth/jwt.ts sealState)
// through the steps: email, emailed code (the login codes of POST /login/complete), consent. A request whose client or
// redirect_uri is wrong is answered here, never redirected (RFC 6749 §4.1.2.1); any other refusal, and Deny, go back to
// the client as `error=…` when the client is verified (an operator approved it, OAUTH_VERIFIED_CLIENTS). Anyone may
// register a client or publish a metadata document, so for any other client a refusal before the person consents is a
// page too: the service is no redirector to a URI no one vouched for (RFC 9700 §4.11.2).
import { asc, eq } from "drizzle-orm";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { teams, workspaceMembers, workspaces } from "../../../drizzle/schema";
import { normalizeEmail } from "../../auth/accounts/codes";
import { completeLoginWith, startLogin } from "../../auth/accounts/login";
import { openState, sealState } from "../../auth/jwt";
import { isMetadataUrl, isVerifiedClient, OAuthError, resolveClient } from "../../auth/oauth/clients";
import { createAuthorizationCode } from "../../auth/oauth/grants";
import { ValidationError } from "../../core/errors";
import { parseScopeString, SCOPES, type Scope } from "../../core/scopes";
import type { AppEnv } from "../../http/context";
import { emailOutbox } from "../../http/email-outbox";
import { type Html, pageHeaders } from "../../http/html-page";
import { publicBaseUrl } from "../../http/urls";
import { devWebhooks } from "../../webhooks/url-safety";
import { type ClientShown, codePage, consentPage, messagePage, signInPage } from "./page";

type C = Context<AppEnv>;

/** How long a person has to finish the steps, and to consent once signed in. */
const REQUEST_TTL_SECONDS = 30 * 60;
const SESSION_TTL_SECONDS = 15 * 60;

/** An authorization request as checked by GET /oauth/authorize. */
interface AuthRequest {
  clientId: string;
  clientName: string;
  documentHost: string | null;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  /** What it asked for; null: every scope. */
  scopes: Scope[] | null;
}

/** Where a form's redirect may go (the page's CSP form-action): the redirect URI's origin, or its private-use scheme. */
const formTarget = (redirectUri: string) => {
  const url = new URL(redirectUri);
  return url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
};

const render = async (c: C, page: Html, status: ContentfulStatusCode = 200, redirectUri?: string) =>
  c.html(await page, status, pageHeaders(redirectUri && formTarget(redirectUri)));

const shown = (r: AuthRequest): ClientShown => ({
  name: r.clientName,
  documentHost: r.documentHost,
  redirectHost: new URL(r.redirectUri).host || r.redirectUri,
});

/** Back to the client with the answer (RFC 6749 §4.1.2), `state` as sent and `iss` (RFC 9207). */
function answer(c: C, r: AuthRequest, params: Record<string, string>) {
  const url = new URL(r.redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (r.state !== null) url.searchParams.set("state", r.state);
  url.searchParams.set("iss", publicBaseUrl(c));
  return c.redirect(url.toString(), 302);
}

/** The resources a token of this server is for (RFC 8707): the MCP endpoint, or the API as a whole. */
const isOurResource = (c: C, resource: string) => {
  const base = publicBaseUrl(c);
  return [base, `${base}/`, `${base}/mcp`].includes(resource);
};

/**
 * GET /oauth/authorize: checks the request; a refusal is a page (a bad client or redirect, or any refusal for a client
 * not verified) or a redirect with `error`.
 */
export async function authorizePage(c: C) {
  const q = c.req.query();
  const dead = (message: string) => render(c, messagePage("This app cannot connect", message), 400);
  if (!q.client_id) return dead("The request names no client_id.");
  let client: Awaited<ReturnType<typeof resolveClient>>;
  try {
    client = await resolveClient(c.get("rdb").db, q.client_id, devWebhooks(c.env));
  } catch (err) {
    if (err instanceof OAuthError) return dead(err.description);
    throw err;
  }
  const redirectUri = q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
    return dead("The request's redirect_uri is not one the app registered.");
  }
  const partial: AuthRequest = {
    clientId: client.clientId,
    clientName: client.clientName,
    documentHost: isMetadataUrl(client.clientId) ? new URL(client.clientId).host : null,
    redirectUri,
    state: q.state ?? null,
    codeChallenge: q.code_challenge ?? "",
    scopes: null,
  };
  const refuse = (error: string, description: string) =>
    isVerifiedClient(c.env.OAUTH_VERIFIED_CLIENTS, client.clientId)
      ? answer(c, partial, { error, error_description: description })
      : dead(`${description} (${error}).`);
  if (q.response_type !== "code") return refuse("unsupported_response_type", "response_type must be code");
  if (q.code_challenge_method !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge ?? "")) {
    return refuse("invalid_request", "PKCE is required: code_challenge (S256 of the verifier) with code_challenge_method S256");
  }
  if (q.resource !== undefined && !isOurResource(c, q.resource)) {
    return refuse("invalid_target", `resource must be ${publicBaseUrl(c)}/mcp (or the API, ${publicBaseUrl(c)})`);
  }
  if (q.scope !== undefined && q.scope.trim() !== "") {
    const asked = parseScopeString(q.scope);
    if (asked.unknown.length) return refuse("invalid_scope", `Unknown scope: ${asked.unknown.join(", ")} (known: ${SCOPES.join(" ")})`);
    partial.scopes = asked.scopes;
  }
  const request = await sealState(c.env, "oauth-request", { ...partial }, REQUEST_TTL_SECONDS);
  return render(c, signInPage({ request, client: shown(partial), scopes: partial.scopes }), 200, redirectUri);
}

/** The sealed request of a form, or null (forged or expired). */
async function openRequest(c: C, token: unknown): Promise<AuthRequest | null> {
  if (typeof token !== "string") return null;
  return (await openState(c.env, "oauth-request", token)) as AuthRequest | null;
}

/** The form's fields; a repeated field (checkboxes) as a list. */
async function formFields(c: C): Promise<Record<string, string | string[]>> {
  const body = await c.req.parseBody({ all: true }).catch(() => ({}));
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === "string") out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === "string");
  }
  return out;
}
const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);
const many = (v: string | string[] | undefined) => (v === undefined ? [] : typeof v === "string" ? [v] : v);

const expired = (c: C) => render(c, messagePage("This request has expired", "Start again from the app that sent you here."), 400);

/** POST /oauth/authorize: Deny, or the email address to send a sign-in code to. */
export async function signInStep(c: C) {
  const form = await formFields(c);
  const r = await openRequest(c, form.request);
  if (!r) return expired(c);
  if (one(form.decision) === "deny") return answer(c, r, { error: "access_denied", error_description: "The person denied access" });
  const email = (one(form.email) ?? "").trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) {
    const page = signInPage({
      request: one(form.request)!,
      client: shown(r),
      scopes: r.scopes,
      email,
      errors: ["Enter a valid email address."],
    });
    return render(c, page, 422, r.redirectUri);
  }
  const loginToken = await startLogin(c.get("rdb").db, emailOutbox(c), normalizeEmail(email));
  return render(c, codePage({ request: one(form.request)!, client: shown(r), loginToken }), 200, r.redirectUri);
}

/** The workspaces a person may grant access to, first joined first. */
const workspacesOf = (c: C, userId: string) =>
  c
    .get("rdb")
    .db.select({ id: workspaces.id, name: workspaces.name, slug: workspaces.slug })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(workspaceMembers.userId, userId))
    .orderBy(asc(workspaceMembers.createdAt), asc(workspaces.id));

const teamsOf = (c: C, workspaceId: string) =>
  c
    .get("rdb")
    .db.select({ id: teams.id, name: teams.name, prefix: teams.prefix })
    .from(teams)
    .where(eq(teams.workspaceId, workspaceId))
    .orderBy(asc(teams.name), asc(teams.id));

/** The consent page for `workspaceId` (the first when it is not one of theirs). */
async function consent(
  c: C,
  r: AuthRequest,
  form: { request: string; session: string; userId: string; email: string },
  choice: { workspaceId?: string; ticked?: Scope[]; tickedTeams?: string[] | null; errors?: string[] },
  status: ContentfulStatusCode = 200,
) {
  const list = await workspacesOf(c, form.userId);
  if (list.length === 0) return render(c, messagePage("No workspace", "You are not a member of any workspace."), 403);
  const workspace = list.find((w) => w.id === choice.workspaceId) ?? list[0];
  const asked = r.scopes ?? [...SCOPES];
  const page = consentPage({
    request: form.request,
    session: form.session,
    client: shown(r),
    email: form.email,
    workspaces: list,
    workspaceId: workspace.id,
    teams: await teamsOf(c, workspace.id),
    asked,
    ticked: choice.ticked ?? asked,
    tickedTeams: choice.tickedTeams ?? null,
    errors: choice.errors,
  });
  return render(c, page, status, r.redirectUri);
}

/** POST /oauth/authorize/signin: Deny, or the emailed code; once it checks, the consent page. */
export async function codeStep(c: C) {
  const form = await formFields(c);
  const request = one(form.request);
  const r = await openRequest(c, request);
  if (!r || !request) return expired(c);
  if (one(form.decision) === "deny") return answer(c, r, { error: "access_denied", error_description: "The person denied access" });
  const loginToken = one(form.login_token) ?? "";
  const code = (one(form.code) ?? "").trim();
  const again = (errors: string[]) => render(c, codePage({ request, client: shown(r), loginToken, errors }), 422, r.redirectUri);
  if (!/^\d{6}$/.test(code)) return again(["Enter the 6-digit code from the email."]);
  let signedIn: { userId: string; email: string };
  try {
    // The same login codes as POST /login/complete, used up here: the consent step is bound to this sign-in instead.
    const { login } = await completeLoginWith(c.get("rdb").db, { login_token: loginToken, code }, async () => undefined);
    signedIn = { userId: login.user.id, email: login.user.email };
  } catch (err) {
    if (err instanceof ValidationError) return again(Object.values(err.errors).flat());
    throw err;
  }
  const session = await sealState(
    c.env,
    "oauth-session",
    { sub: signedIn.userId, email: signedIn.email, rq: await requestKey(request) },
    SESSION_TTL_SECONDS,
  );
  return consent(c, r, { request, session, ...signedIn }, {});
}

/** What binds a sign-in to the one request it was made for. */
const requestKey = async (request: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(request)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

/** POST /oauth/authorize/consent: Deny, another workspace, or Approve with the ticked scopes and teams. */
export async function consentStep(c: C) {
  const form = await formFields(c);
  const request = one(form.request);
  const session = one(form.session);
  const r = await openRequest(c, request);
  const s = session ? await openState(c.env, "oauth-session", session) : null;
  if (!r || !request || !session || !s || s.rq !== (await requestKey(request))) return expired(c);
  const decision = one(form.decision);
  if (decision === "deny") return answer(c, r, { error: "access_denied", error_description: "The person denied access" });
  const who = { request, session, userId: String(s.sub), email: String(s.email) };
  const workspaceId = one(form.workspace_id);
  const asked = r.scopes ?? [...SCOPES];
  const ticked = SCOPES.filter((x) => asked.includes(x) && many(form.scope).includes(x));
  const some = one(form.teams) === "some";
  const tickedTeams = some ? [...new Set(many(form.team_id))] : null;
  // Another workspace: its own teams, so the team choice starts again (every team).
  if (decision !== "approve") return consent(c, r, who, { workspaceId, ticked });
  const problems = [
    ...(ticked.length === 0 ? ["Tick at least one thing it may do, or Deny."] : []),
    ...(tickedTeams?.length === 0 ? ["Tick at least one team, or choose every team."] : []),
  ];
  if (problems.length || !workspaceId) return consent(c, r, who, { workspaceId, ticked, tickedTeams, errors: problems }, 422);
  const code = await createAuthorizationCode(c.get("rdb").db, {
    userId: who.userId,
    workspaceId,
    clientId: r.clientId,
    clientName: r.clientName,
    redirectUri: r.redirectUri,
    codeChallenge: r.codeChallenge,
    // Every scope ticked of a request that named none: every scope, also those added later (as a key made without scopes).
    scopes: r.scopes === null && ticked.length === SCOPES.length ? null : ticked,
    teamIds: tickedTeams,
  });
  if (!code) {
    const errors = ["That workspace or one of those teams is no longer yours to grant. Choose again."];
    return consent(c, r, who, { ticked, tickedTeams: null, errors }, 422);
  }
  return answer(c, r, { code });
}
