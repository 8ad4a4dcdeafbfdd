// OAuth for agent hosts (docs/clients.md): metadata, registration, the consent page driven as a person
// drives it, the token endpoint, grants and revocation, on REST and MCP, against the real database.
import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { oauthGrants, oauthRefreshTokens } from "../drizzle/schema";
import { sha256Hex } from "../src/core/crypto";
import { SCOPES } from "../src/core/scopes";
import { api, del, fetchApp, get, post } from "./helpers/api";
import { addMember, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "./helpers/fixtures";
import { OAUTH_REDIRECT, pkce } from "./helpers/oauth";
import { codeIn, mailTo } from "./helpers/signup";
import { call, connect, postMcp } from "./mcp-client";

const REDIRECT = OAUTH_REDIRECT;

async function raw(method: string, path: string, form?: Record<string, string | string[]>, bindings = env) {
  const init: RequestInit = { method, redirect: "manual" };
  if (form) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
    init.body = body.toString();
    init.headers = { "content-type": "application/x-www-form-urlencoded" };
  }
  const res = await fetchApp(new Request(`http://api.test${path}`, init), bindings);
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
const claims = (jwt: string) => JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));

async function registerClient(name = "Test Agent Host") {
  const res = await post("/oauth/register", { client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" });
  expect(res.status).toBe(201);
  return res.body.client_id as string;
}

const authorizeUrl = (q: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(q)}`;

/** The redirect's query (`code` or `error`, and `state`). */
const landed = (res: { status: number; headers: Headers }) => {
  expect(res.status).toBe(302);
  const url = new URL(res.headers.get("location")!);
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
  return Object.fromEntries(url.searchParams);
};

/** Mails sent to each address so far: the next code is in the next one. */
const mailsTo = new Map<string, number>();

/** A person through the pages up to the consent page: the authorize GET, their email, the emailed code. */
async function signIn(clientId: string, email: string, opts: { scope?: string; challenge?: string; state?: string } = {}) {
  const { challenge = (await pkce()).challenge, state = "st-1" } = opts;
  const q: Record<string, string> = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    resource: "http://api.test/mcp",
  };
  if (opts.scope) q.scope = opts.scope;
  const page = await raw("GET", authorizeUrl(q));
  expect(page.status).toBe(200);
  const request = hidden(page.text, "request")!;
  const step2 = await raw("POST", "/oauth/authorize", { request, email, decision: "continue" });
  expect(step2.status).toBe(200);
  const sent = (mailsTo.get(email) ?? 0) + 1;
  mailsTo.set(email, sent);
  const code = codeIn(await mailTo(email, sent));
  const consent = await raw("POST", "/oauth/authorize/signin", {
    request,
    login_token: hidden(step2.text, "login_token")!,
    code,
    decision: "continue",
  });
  expect(consent.status).toBe(200);
  return { page, consent, request, session: hidden(consent.text, "session")! };
}

/** Approves on the consent page with these choices; the redirect's query. */
async function approve(s: { request: string; session: string }, choice: { workspaceId: string; scopes: string[]; teams?: string[] }) {
  const res = await raw("POST", "/oauth/authorize/consent", {
    request: s.request,
    session: s.session,
    workspace_id: choice.workspaceId,
    scope: choice.scopes,
    teams: choice.teams ? "some" : "all",
    team_id: choice.teams ?? [],
    decision: "approve",
  });
  return landed(res);
}

const token = (form: Record<string, string>) => raw("POST", "/oauth/token", form);

/** A whole grant: registration, consent with `choice`, code exchange. */
async function grant(tenant: Tenant, choice: { scopes?: string[]; teams?: string[]; scope?: string } = {}) {
  const clientId = await registerClient();
  const { verifier, challenge } = await pkce();
  const s = await signIn(clientId, tenant.owner.email, { challenge, scope: choice.scope });
  const back = await approve(s, { workspaceId: tenant.workspaceId, scopes: choice.scopes ?? [...SCOPES], teams: choice.teams });
  const res = await token({
    grant_type: "authorization_code",
    code: back.code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  });
  expect(res.status).toBe(200);
  return { clientId, ...(res.json() as { access_token: string; refresh_token: string; scope: string; expires_in: number }) };
}

const bearer = (path: string, accessToken: string, method = "GET", body?: unknown) => api(method, path, { bearer: accessToken, body });

/** A used refresh token as if its first use were a minute ago, past the grace for concurrent refreshes. */
const usedLongAgo = async (refreshToken: string) => {
  const hash = await sha256Hex(refreshToken);
  await withDb((db) =>
    db.update(oauthRefreshTokens).set({ usedAt: sql`now() - interval '1 minute'` }).where(eq(oauthRefreshTokens.hash, hash)),
  );
};

describe("OAuth metadata and registration", () => {
  it("the protected resource names this server, whose metadata says PKCE S256, public clients and metadata documents", async () => {
    const prm = await get("/.well-known/oauth-protected-resource");
    expect(prm.body).toMatchObject({ resource: "http://api.test/mcp", authorization_servers: ["http://api.test"] });
    const as = await get("/.well-known/oauth-authorization-server");
    expect(as.status).toBe(200);
    expect(as.body).toMatchObject({
      issuer: "http://api.test",
      authorization_endpoint: "http://api.test/oauth/authorize",
      token_endpoint: "http://api.test/oauth/token",
      registration_endpoint: "http://api.test/oauth/register",
      revocation_endpoint: "http://api.test/auth/revoke",
      revocation_endpoint_auth_methods_supported: ["none"],
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["none"],
      client_id_metadata_document_supported: true,
      scopes_supported: [...SCOPES],
    });
    // An MCP request without a credential points at the resource metadata.
    const mcp = await postMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), {});
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get("www-authenticate")).toContain('resource_metadata="http://api.test/.well-known/oauth-protected-resource"');
  });

  it("a 401 says what was wrong with what came: no credential, a bad key (no login to start), a bad token", async () => {
    const none = await postMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), {});
    expect(none.body.error.message).toBe("Authentication required: send a valid svc-api-key header or Bearer token");
    const key = await postMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), {
      "svc-api-key": "pmk_not-a-key-000000000000000000000000",
    });
    expect(key.status).toBe(401);
    expect(key.body.error.message).toContain("the svc-api-key header holds no valid API key");
    const token = await api("GET", "/me", { bearer: "not.a.jwt" });
    expect(token.status).toBe(401);
    expect(token.body.error.message).toContain("the Bearer token is not valid");
  });

  it("registers public clients (RFC 7591) and refuses unsafe redirect URIs with RFC 7591 errors", async () => {
    const ok = await post("/oauth/register", {
      client_name: "Cursor",
      redirect_uris: ["cursor://anysphere.cursor-retrieval/oauth/callback", REDIRECT],
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ client_id: expect.stringMatching(/^ocl_/), client_name: "Cursor", token_endpoint_auth_method: "none" });
    for (const uri of ["http://evil.example/cb", "javascript:alert(1)", "https://ok.example/cb#frag", "not a uri"]) {
      const res = await post("/oauth/register", { client_name: "x", redirect_uris: [uri] });
      expect(res.status, uri).toBe(400);
      expect(res.body).toEqual({ error: "invalid_redirect_uri", error_description: expect.any(String) });
    }
    const secret = await post("/oauth/register", { redirect_uris: [REDIRECT], token_endpoint_auth_method: "client_secret_basic" });
    expect(secret.body.error).toBe("invalid_client_metadata");
    // Hostile bodies are refused with RFC 7591's error, never a 500; unknown metadata is ignored (RFC 7591 §2).
    for (const rawBody of ["nope", "[]", "null", '"x"', '{"redirect_uris":"x"}', '{"redirect_uris":[1]}']) {
      const res = await api("POST", "/oauth/register", { rawBody, headers: { "content-type": "application/json" } });
      expect(res.status, rawBody).toBe(400);
      expect(res.body.error, rawBody).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
    }
    // A prototype-named key is refused by the API's body guard before the endpoint, as on every route.
    const proto = await api("POST", "/oauth/register", {
      rawBody: `{"__proto__":{"polluted":1},"redirect_uris":["${REDIRECT}"]}`,
      headers: { "content-type": "application/json" },
    });
    expect(proto.status).toBe(422);
    expect(({} as any).polluted).toBeUndefined();
    // Bounded, as a registration is public and kept for good: 10 redirect URIs of at most 2000 characters, a name of 100.
    const long = `https://ok.example/${"a".repeat(1982)}`;
    expect(long.length).toBe(2001);
    const bounded: [object, string][] = [
      [{ redirect_uris: [long] }, "invalid_redirect_uri"],
      [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `${REDIRECT}/${i}`) }, "invalid_redirect_uri"],
      [{ redirect_uris: Array.from({ length: 10 }, (_, i) => `https://ok.example/${i}/${"b".repeat(90_000)}`) }, "invalid_redirect_uri"],
      [{ redirect_uris: [REDIRECT], client_name: "n".repeat(101) }, "invalid_client_metadata"],
      [{ redirect_uris: [REDIRECT], client_name: { en: "x" } }, "invalid_client_metadata"],
    ];
    for (const [body, error] of bounded) {
      const res = await post("/oauth/register", body);
      expect([res.status, res.body.error]).toEqual([400, error]);
    }
    const longest = await post("/oauth/register", { redirect_uris: [long.slice(0, 2000)], client_name: "n".repeat(100) });
    expect([longest.status, longest.body.redirect_uris, longest.body.client_name]).toEqual([201, [long.slice(0, 2000)], "n".repeat(100)]);
    const extra = await post("/oauth/register", { redirect_uris: [REDIRECT], logo_uri: "https://x.example/l.png", software_id: "x" });
    expect(extra.status).toBe(201);
    expect(extra.body.client_name).toBe("127.0.0.1:33418");
  });

  it("a client_id that is a metadata document's URL must be https to a public host (loopback only in development)", async () => {
    const { challenge } = await pkce();
    for (const clientId of [
      "http://example.com/client.json",
      "https://10.0.0.1/client.json",
      "https://169.254.169.254/latest",
      "https://example.com/",
    ]) {
      const res = await raw(
        "GET",
        authorizeUrl({
          response_type: "code",
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_challenge: challenge,
          code_challenge_method: "S256",
        }),
      );
      expect(res.status, clientId).toBe(400);
      expect(res.text).toContain("This app cannot connect");
    }
  });
});

describe("OAuth authorization and tokens", () => {
  let tenant: Tenant;
  let team: TeamFixture;
  let other: TeamFixture;
  beforeAll(async () => {
    tenant = await newTenant("OAuth Co");
    team = await newTeam(tenant, { name: "Engineering" });
    other = await newTeam(tenant, { name: "Sales" });
  });

  it("refuses a bad client or redirect_uri on the page; anything else back at a verified client with its state", async () => {
    const clientId = await registerClient();
    const { challenge } = await pkce();
    const base = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "xyz",
    };
    expect((await raw("GET", authorizeUrl({ ...base, client_id: "ocl_unknown" }))).status).toBe(400);
    const wrongRedirect = await raw("GET", authorizeUrl({ ...base, redirect_uri: "http://127.0.0.1:1/other" }));
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.headers.get("location")).toBeNull();
    const { code_challenge: _, ...noPkce } = base;
    const refusals: [string, string][] = [
      [authorizeUrl({ ...base, code_challenge_method: "plain" }), "invalid_request"],
      [authorizeUrl(noPkce), "invalid_request"],
      [authorizeUrl({ ...base, response_type: "token" }), "unsupported_response_type"],
      [authorizeUrl({ ...base, scope: "read admin" }), "invalid_scope"],
      [authorizeUrl({ ...base, resource: "https://elsewhere.example/mcp" }), "invalid_target"],
    ];
    // A registered client is not verified (anyone may register any redirect URI): each refusal is a page, no redirect.
    for (const [url, error] of refusals) {
      const page = await raw("GET", url);
      expect([error, page.status, page.headers.get("location")]).toEqual([error, 400, null]);
      expect(page.text).toContain("This app cannot connect");
      expect(page.text).toContain(`(${error})`);
    }
    // Once an operator approves it (OAUTH_VERIFIED_CLIENTS), refusals go back to it with error and state (RFC 6749 §4.1.2.1).
    const verified = { ...env, OAUTH_VERIFIED_CLIENTS: `ocl_someone_else ${clientId}` };
    for (const [url, error] of refusals) expect(landed(await raw("GET", url, undefined, verified))).toMatchObject({ error, state: "xyz" });
  });

  it("the consent page names the client as unverified, its workspace, scopes and teams; Deny needs no code", async () => {
    const clientId = await registerClient("Claude <script>");
    const { challenge } = await pkce();
    const page = await raw(
      "GET",
      authorizeUrl({
        response_type: "code",
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "s1",
        scope: "read tasks:write",
      }),
    );
    expect(page.text).toContain("Claude &lt;script&gt;");
    expect(page.text).toContain("name not verified");
    expect(page.text).not.toMatch(/<script/);
    expect(page.headers.get("content-security-policy")).toMatch(/form-action 'self' http:\/\/127\.0\.0\.1:33418;/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    // Deny at the first step: back to the client, no email asked.
    const denied = await raw("POST", "/oauth/authorize", { request: hidden(page.text, "request")!, decision: "deny" });
    expect(landed(denied)).toMatchObject({ error: "access_denied", state: "s1", iss: "http://api.test" });

    const s = await signIn(clientId, tenant.owner.email, { scope: "read tasks:write" });
    expect(s.consent.text).toContain("OAuth Co");
    expect(s.consent.text).toContain('value="tasks:write" checked');
    expect(s.consent.text).not.toContain('value="webhooks:write"');
    expect(s.consent.text).toContain("Engineering");
    const denyLate = await raw("POST", "/oauth/authorize/consent", { request: s.request, session: s.session, decision: "deny" });
    expect(landed(denyLate).error).toBe("access_denied");
    // A forged or mismatched session is a dead end.
    const other = await signIn(clientId, tenant.owner.email);
    const mixed = await raw("POST", "/oauth/authorize/consent", {
      request: other.request,
      session: s.session,
      workspace_id: tenant.workspaceId,
      scope: "read",
      teams: "all",
      decision: "approve",
    });
    expect(mixed.status).toBe(400);
  });

  it("exchanges the code once, with its verifier, for a token that works on REST and MCP and writes events via oauth", async () => {
    const clientId = await registerClient();
    const { verifier, challenge } = await pkce();
    const s = await signIn(clientId, tenant.owner.email, { challenge });
    const back = await approve(s, { workspaceId: tenant.workspaceId, scopes: [...SCOPES] });
    expect(back).toMatchObject({ code: expect.any(String), state: "st-1", iss: "http://api.test" });
    const exchange = {
      grant_type: "authorization_code",
      code: back.code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    };

    const wrongVerifier = await token({ ...exchange, code_verifier: (await pkce()).verifier });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.json()).toEqual({ error: "invalid_grant", error_description: expect.any(String) });
    expect((await token({ ...exchange, client_id: await registerClient() })).json().error).toBe("invalid_grant");
    expect((await token({ ...exchange, grant_type: "password" })).json().error).toBe("unsupported_grant_type");
    expect((await token({ grant_type: "authorization_code", client_id: clientId })).json().error).toBe("invalid_request");

    const issued = await token(exchange);
    expect(issued.status).toBe(200);
    expect(issued.headers.get("cache-control")).toBe("no-store");
    const t = issued.json();
    expect(t).toEqual({
      access_token: expect.any(String),
      token_type: "Bearer",
      expires_in: 3600,
      scope: SCOPES.join(" "),
      refresh_token: expect.stringMatching(/^pmo_/),
    });
    expect(claims(t.access_token)).toMatchObject({
      sub: tenant.owner.userId,
      wid: tenant.workspaceId,
      gid: expect.stringMatching(/^ogr_/),
    });

    const me = await bearer("/me", t.access_token);
    expect(me.status).toBe(200);
    expect(me.body.user.id).toBe(tenant.owner.userId);
    const created = await bearer("/tasks", t.access_token, "POST", { teamId: team.id, title: "Made over OAuth" });
    expect(created.status).toBe(201);
    const client = await connect({ authorization: `Bearer ${t.access_token}` });
    const viaMcp = await call(client, "create_task", { teamId: team.id, title: "Made over OAuth and MCP" });
    expect(viaMcp.isError).toBe(false);
    for (const id of [created.body.task.id, viaMcp.body.task.id]) {
      const history = await get(`/tasks/${id}/history`, tenant.owner.key);
      expect(history.body.events[0].actor).toMatchObject({ id: tenant.owner.userId, via: "oauth" });
    }

    // The code again: refused, and the grant it made is revoked (RFC 6749 §4.1.2).
    const replay = await token(exchange);
    expect(replay.json().error).toBe("invalid_grant");
    expect((await bearer("/me", t.access_token)).status).toBe(401);
    expect(
      (await postMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { authorization: `Bearer ${t.access_token}` }))
        .status,
    ).toBe(401);
  });

  it("the person narrows scopes and teams: the token has what they ticked, on REST and MCP", async () => {
    const g = await grant(tenant, { scope: "read tasks:write comments:write", scopes: ["read", "comments:write"], teams: [team.id] });
    expect(g.scope).toBe("read comments:write");
    const write = await bearer("/tasks", g.access_token, "POST", { teamId: team.id, title: "no" });
    expect(write.status).toBe(403);
    expect(write.body.error.details.requiredScope).toBe("tasks:write");
    expect((await bearer(`/teams/${team.id}`, g.access_token)).status).toBe(200);
    expect((await bearer(`/teams/${other.id}`, g.access_token)).status).toBe(404);
    const client = await connect({ authorization: `Bearer ${g.access_token}` });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("create_task");
    expect(names).toContain("add_comment");
    const refused = await call(client, "create_task", { teamId: team.id, title: "no" });
    expect(refused.body.error.details.requiredScope).toBe("tasks:write");
    // Refreshing keeps what was granted.
    const next = await token({ grant_type: "refresh_token", refresh_token: g.refresh_token, client_id: g.clientId });
    expect(next.json().scope).toBe("read comments:write");
    expect(claims(next.json().access_token).tid).toEqual([team.id]);
  });

  it("a consent with nothing ticked, or 'only these teams' with none, asks again", async () => {
    const s = await signIn(await registerClient(), tenant.owner.email);
    const none = await raw("POST", "/oauth/authorize/consent", {
      request: s.request,
      session: s.session,
      workspace_id: tenant.workspaceId,
      teams: "all",
      decision: "approve",
    });
    expect(none.status).toBe(422);
    expect(none.text).toContain("Tick at least one");
    const noTeam = await raw("POST", "/oauth/authorize/consent", {
      request: s.request,
      session: s.session,
      workspace_id: tenant.workspaceId,
      scope: "read",
      teams: "some",
      decision: "approve",
    });
    expect(noTeam.status).toBe(422);
    // A team of another workspace is not granted.
    const elsewhere = await newTeam(await newTenant("Elsewhere"));
    const foreign = await raw("POST", "/oauth/authorize/consent", {
      request: s.request,
      session: s.session,
      workspace_id: tenant.workspaceId,
      scope: "read",
      teams: "some",
      team_id: elsewhere.id,
      decision: "approve",
    });
    expect(foreign.status).toBe(422);
  });

  it("rotates refresh tokens; a used one presented again after the grace revokes the grant at once", async () => {
    const g = await grant(tenant);
    const first = await token({ grant_type: "refresh_token", refresh_token: g.refresh_token, client_id: g.clientId });
    expect(first.status).toBe(200);
    const rotated = first.json();
    expect(rotated.refresh_token).not.toBe(g.refresh_token);
    expect((await bearer("/me", rotated.access_token)).status).toBe(200);
    expect((await token({ grant_type: "refresh_token", refresh_token: rotated.refresh_token, client_id: "ocl_other" })).json().error).toBe(
      "invalid_grant",
    );

    await usedLongAgo(g.refresh_token);
    const reused = await token({ grant_type: "refresh_token", refresh_token: g.refresh_token, client_id: g.clientId });
    expect(reused.status).toBe(400);
    expect(reused.json().error).toBe("invalid_grant");
    expect((await bearer("/me", rotated.access_token)).status).toBe(401);
    expect((await bearer("/me", g.access_token)).status).toBe(401);
    expect((await token({ grant_type: "refresh_token", refresh_token: rotated.refresh_token, client_id: g.clientId })).json().error).toBe(
      "invalid_grant",
    );
  });

  it("two refreshes at once with the same token both renew (the grace); the grant lives on", async () => {
    const g = await grant(tenant);
    const refresh = { grant_type: "refresh_token", refresh_token: g.refresh_token, client_id: g.clientId };
    const both = await Promise.all([token(refresh), token(refresh)]);
    expect(both.map((r) => [r.status, r.json().error])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    const [a, b] = both.map((r) => r.json());
    expect(a.refresh_token).not.toBe(b.refresh_token);
    for (const answer of [a, b]) {
      expect((await bearer("/me", answer.access_token)).status).toBe(200);
      // Each successor renews in its turn: neither branch was revoked.
      const next = await token({ ...refresh, refresh_token: answer.refresh_token });
      expect(next.status).toBe(200);
    }
    expect(await withDb((db) => db.select().from(oauthGrants).where(eq(oauthGrants.clientId, g.clientId)))).toHaveLength(1);
  });

  it("POST /auth/revoke (RFC 7009) revokes a grant by its refresh token or an access token; another client's is left alone", async () => {
    for (const which of ["refresh_token", "access_token"] as const) {
      const g = await grant(tenant);
      const token_ = which === "refresh_token" ? g.refresh_token : g.access_token;
      // Another client's id: not this client's token to revoke (RFC 7009 §2.1), the same answer.
      const foreign = await raw("POST", "/auth/revoke", { token: token_, token_type_hint: which, client_id: "ocl_other" });
      expect([which, foreign.status, foreign.json()]).toEqual([which, 200, { revoked: true }]);
      expect((await bearer("/me", g.access_token)).status).toBe(200);
      // As RFC 7009 §2.1 sends it: a form, the token and its client.
      const revoked = await raw("POST", "/auth/revoke", { token: token_, token_type_hint: which, client_id: g.clientId });
      expect([which, revoked.status, revoked.json()]).toEqual([which, 200, { revoked: true }]);
      expect((await bearer("/me", g.access_token)).status).toBe(401);
      const refreshed = await token({ grant_type: "refresh_token", refresh_token: g.refresh_token, client_id: g.clientId });
      expect([which, refreshed.json().error]).toEqual([which, "invalid_grant"]);
      expect(await withDb((db) => db.select().from(oauthGrants).where(eq(oauthGrants.clientId, g.clientId)))).toEqual([]);
      // Again, or without client_id: the same answer, nothing left to revoke.
      expect((await raw("POST", "/auth/revoke", { token: token_ })).status).toBe(200);
    }
    // A refusal is OAuth's (RFC 7009 §2.2.1): a request without a token.
    const bad = await raw("POST", "/auth/revoke", { token_type_hint: "access_token" });
    expect([bad.status, bad.json().error, bad.headers.get("cache-control")]).toEqual([400, "invalid_request", "no-store"]);
  });

  it("GET /oauth/grants lists the caller's grants; DELETE revokes one at once on REST, MCP and refresh", async () => {
    const g = await grant(tenant, { scopes: ["read"] });
    const list = await get("/oauth/grants", tenant.owner.key);
    expect(list.status).toBe(200);
    const mine = list.body.oauth_grants.find((x: any) => x.clientId === g.clientId);
    expect(mine).toEqual({
      id: expect.stringMatching(/^ogr_/),
      clientId: g.clientId,
      clientName: "Test Agent Host",
      scopes: ["read"],
      teamIds: null,
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
    });
    // The token itself may list them; another member sees none of them.
    expect((await bearer("/oauth/grants", g.access_token)).status).toBe(200);
    const stranger = await addMember(tenant);
    expect((await del(`/oauth/grants/${mine.id}`, stranger.key)).status).toBe(404);
    expect((await bearer(`/oauth/grants/${mine.id}`, g.access_token, "DELETE")).status).toBe(403);

    expect((await del(`/oauth/grants/${mine.id}`, tenant.owner.key)).status).toBe(204);
    expect((await bearer("/me", g.access_token)).status).toBe(401);
    expect(
      (await postMcp(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), { authorization: `Bearer ${g.access_token}` }))
        .status,
    ).toBe(401);
    expect((await token({ grant_type: "refresh_token", refresh_token: g.refresh_token, client_id: g.clientId })).json().error).toBe(
      "invalid_grant",
    );
    expect((await del(`/oauth/grants/${mine.id}`, tenant.owner.key)).status).toBe(404);
  });

  it("removing a person from the workspace revokes their grants", async () => {
    const member = await addMember(tenant);
    const g = await grant({ ...tenant, owner: member });
    expect((await bearer("/me", g.access_token)).status).toBe(200);
    expect((await del(`/users/${member.userId}`, tenant.owner.key)).status).toBe(204);
    expect((await bearer("/me", g.access_token)).status).toBe(401);
    expect(await withDb((db) => db.select().from(oauthGrants).where(eq(oauthGrants.userId, member.userId)))).toEqual([]);
    expect((await token({ grant_type: "refresh_token", refresh_token: g.refresh_token, client_id: g.clientId })).json().error).toBe(
      "invalid_grant",
    );
  });

  it("a person in several workspaces chooses one", async () => {
    const second = await newTenant("Second Place");
    const member = await withDb(async (db) => {
      const { joinWorkspaceWithKey } = await import("../src/auth/accounts/membership");
      return joinWorkspaceWithKey(db, { workspaceId: second.workspaceId, userId: tenant.owner.userId, role: "MEMBER", keyName: "t" });
    });
    expect(member).toEqual(expect.any(String));
    const clientId = await registerClient();
    const { verifier, challenge } = await pkce();
    const s = await signIn(clientId, tenant.owner.email, { challenge });
    expect(s.consent.text).toContain('<select id="workspace_id"');
    expect(s.consent.text).toContain(`Second Place (${second.slug})`);
    const switched = await raw("POST", "/oauth/authorize/consent", {
      request: s.request,
      session: s.session,
      workspace_id: second.workspaceId,
      decision: "switch",
    });
    expect(switched.status).toBe(200);
    expect(switched.text).toContain(`value="${second.workspaceId}" selected`);
    expect(switched.text).not.toContain("Engineering");
    const back = await approve(s, { workspaceId: second.workspaceId, scopes: ["read"] });
    const t = (
      await token({
        grant_type: "authorization_code",
        code: back.code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
      })
    ).json();
    expect(claims(t.access_token).wid).toBe(second.workspaceId);
    expect((await bearer("/me", t.access_token)).body.workspace.id).toBe(second.workspaceId);
  });
});
