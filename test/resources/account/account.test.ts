// The account page's rules over HTTP against the real database (the browser's part: test/smoke/account.test.mjs): the
// session cookie and CSRF token, sign-in by emailed code, what it lists, and that it revokes only the person's own
// credentials, with the API's operations, at once.
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { apiKeys, oauthGrants } from "../../../drizzle/schema";
import { signAccessToken } from "../../../src/auth/jwt";
import { newId } from "../../../src/ids";
import { api, fetchApp, post } from "../../helpers/api";
import { addMember, newTenant, type Tenant, withDb } from "../../helpers/fixtures";
import { codeIn, mailTo } from "../../helpers/signup";

const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

/** A browser of one: it keeps the page's cookie between requests, as a browser does for /account. */
function browser() {
  let cookie: string | null = null;
  async function page(method: "GET" | "POST", path: string, form?: Record<string, string>) {
    const headers = new Headers();
    if (cookie) headers.set("cookie", cookie);
    if (form) headers.set("content-type", "application/x-www-form-urlencoded");
    const res = await fetchApp(
      new Request(`http://api.test${path}`, { method, headers, body: form && new URLSearchParams(form).toString() }),
    );
    const set = res.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0];
    const timing = res.headers.get("server-timing") ?? "";
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      setCookie: set,
      queries: Number(/desc="(\d+) queries"/.exec(timing)?.[1]),
    };
  }
  return { page, cookie: () => cookie, forget: () => (cookie = null) };
}

/** Signs `email` in on the page; the browser and the signed-in page's CSRF token. */
async function signIn(email: string, mails = 1) {
  const b = browser();
  const start = await b.page("GET", "/account");
  const step = await b.page("POST", "/account/signin", { csrf: hidden(start.text, "csrf")!, email });
  expect(step.status, step.text).toBe(200);
  const done = await b.page("POST", "/account/signin/code", {
    csrf: hidden(step.text, "csrf")!,
    login_token: hidden(step.text, "login_token")!,
    code: codeIn(await mailTo(email, mails)),
  });
  expect(done.status, done.text).toBe(200);
  return { b, csrf: hidden(done.text, "csrf")!, html: done.text };
}

const status = async (who: { key?: string; bearer?: string }) => (await api("GET", "/me", who)).status;

describe("account page", () => {
  let tenant: Tenant;
  let other: Tenant;
  beforeAll(async () => {
    tenant = await newTenant("Account Co");
    other = await newTenant("Account Elsewhere");
  });

  it("without a session: the sign-in form and a new session cookie, strict and short-lived; no script, not frameable, not stored", async () => {
    const b = browser();
    const res = await b.page("GET", "/account");
    expect(res.status).toBe(200);
    expect(res.text).toContain('action="/account/signin"');
    expect(res.text).not.toMatch(/<script/i);
    expect(res.setCookie).toMatch(/^pm_account=[\w.-]+; Max-Age=1800; Path=\/account; HttpOnly; SameSite=Strict$/);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/script-src/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    // The token in the form is the session's: a page opened again keeps it.
    const again = await b.page("GET", "/account");
    expect(again.setCookie).toBeNull();
    expect(hidden(again.text, "csrf")).toBe(hidden(res.text, "csrf"));
    // On https the cookie is Secure too.
    const secure = await fetchApp(new Request("https://api.test/account"));
    expect(secure.headers.get("set-cookie")).toMatch(/; Secure/);
  });

  it("refuses a form without its session's CSRF token (403), and sends no code", async () => {
    const b = browser();
    const page = await b.page("GET", "/account");
    const csrf = hidden(page.text, "csrf")!;
    const email = tenant.owner.email;
    const wrong = await b.page("POST", "/account/signin", { csrf: `${csrf.slice(0, -1)}x`, email });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain("did not come from this page");
    // The session stays (a forged form signs no one out): its own token still works.
    expect(wrong.setCookie).toBeNull();
    expect(hidden(wrong.text, "csrf")).toBe(csrf);
    // Another site's form: the browser sends no cookie with it (SameSite=Strict), so no token can match.
    const foreign = browser();
    expect((await foreign.page("POST", "/account/signin", { csrf, email })).status).toBe(403);
    expect((await foreign.page("POST", "/account/revoke", { csrf, kind: "key", workspace_id: "ws_x", id: "apik_x" })).status).toBe(403);
    const mailbox = await api("GET", `/_dev/mailbox?to=${encodeURIComponent(email)}`);
    expect(mailbox.body.messages).toEqual([]);
  });

  it("signs in with the emailed code; lists the person's keys, agents' keys, apps and device logins, no one else's, in one query", async () => {
    const person = await addMember(tenant, "MEMBER");
    const stranger = await addMember(tenant, "MEMBER");
    const agent = await post("/agents", { name: "Deploy Bot" }, person.key);
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    await post("/api-keys", { name: "Stranger's key" }, stranger.key);
    const { b, csrf, html } = await signIn(person.email);
    expect(html).toContain(`Signed in as <b>${person.email}</b>`);
    expect(html).toContain("Account Co");
    expect(html).toContain("Deploy Bot");
    expect(html).not.toContain("Stranger's key");
    expect(csrf).toBeTruthy();
    const page = await b.page("GET", "/account");
    expect(page.status).toBe(200);
    expect(page.queries).toBe(1);
  });

  it("a wrong code is 422 and keeps the form", async () => {
    const person = await addMember(tenant, "MEMBER");
    const b = browser();
    const start = await b.page("GET", "/account");
    const step = await b.page("POST", "/account/signin", { csrf: hidden(start.text, "csrf")!, email: person.email });
    const code = codeIn(await mailTo(person.email));
    const wrong = await b.page("POST", "/account/signin/code", {
      csrf: hidden(step.text, "csrf")!,
      login_token: hidden(step.text, "login_token")!,
      code: code === "000000" ? "111111" : "000000",
    });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toMatch(/Invalid code \(4 attempts left\)/);
    expect(hidden(wrong.text, "login_token")).toBe(hidden(step.text, "login_token"));
  });

  it("revokes only the person's own credentials, each at once: keys, agents' keys, apps, device logins", async () => {
    const person = await addMember(tenant, "MEMBER");
    const stranger = await addMember(tenant, "MEMBER");
    const spare = await post("/api-keys", { name: "Spare" }, person.key);
    const agent = await post("/agents", { name: "Ops Bot" }, person.key);
    const agentKeyId = (await withDb((db) => db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.userId, agent.body.agent.id))))[0]
      .id;
    const strangers = await post("/api-keys", { name: "Not yours" }, stranger.key);
    // A connected app (its grant, as the consent page leaves it) and its token.
    const grantId = newId("ogr");
    await withDb((db) =>
      db.insert(oauthGrants).values({
        id: grantId,
        workspaceId: tenant.workspaceId,
        userId: person.userId,
        clientId: "client-x",
        clientName: "Some Host",
        redirectUri: "http://127.0.0.1/cb",
      }),
    );
    const { token: appToken } = await signAccessToken(env, { sub: person.userId, wid: tenant.workspaceId, gid: grantId });
    // A device login of the person.
    const device = await post("/auth/device/code", { client_name: "pm on laptop" });
    await post("/auth/device/approve", { user_code: device.body.user_code }, person.key);
    const deviceToken = (await post("/auth/device/token", { device_code: device.body.device_code })).body.access_token as string;
    const loginId = JSON.parse(atob(deviceToken.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).sid as string;
    expect(await status({ bearer: appToken })).toBe(200);
    expect(await status({ bearer: deviceToken })).toBe(200);

    const { b, csrf, html } = await signIn(person.email);
    for (const name of ["Spare", "Ops Bot", "Some Host", "pm on laptop"]) expect(html).toContain(name);
    const revoke = (kind: string, id: string, workspace = tenant.workspaceId, token = csrf) =>
      b.page("POST", "/account/revoke", { csrf: token, kind, workspace_id: workspace, id });

    // Another person's key, a key named in a workspace the person is not in, an unknown kind: refused, nothing revoked.
    const notYours = await revoke("key", strangers.body.apiKey.id);
    expect(notYours.status).toBe(404);
    expect(notYours.text).toContain("is not one of yours");
    expect(await status({ key: strangers.body.key })).toBe(200);
    expect((await revoke("key", spare.body.apiKey.id, other.workspaceId)).status).toBe(404);
    expect(await status({ key: spare.body.key })).toBe(200);
    expect((await revoke("everything", spare.body.apiKey.id)).status).toBe(422);
    // A good token of another session does not do either, and leaves this session signed in.
    const elsewhere = await signIn(stranger.email);
    const crossed = await revoke("key", spare.body.apiKey.id, tenant.workspaceId, elsewhere.csrf);
    expect(crossed.status).toBe(403);
    expect(crossed.text).toContain(`Signed in as <b>${person.email}</b>`);

    const done = await revoke("key", spare.body.apiKey.id);
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain("The API key was revoked.");
    expect(await status({ key: spare.body.key })).toBe(401);
    expect((await revoke("key", spare.body.apiKey.id)).status).toBe(404);

    expect((await revoke("key", agentKeyId)).status).toBe(200);
    expect(await status({ key: agent.body.agent.apiKey })).toBe(401);
    expect((await revoke("grant", grantId)).status).toBe(200);
    expect(await status({ bearer: appToken })).toBe(401);
    expect((await revoke("login", loginId)).status).toBe(200);
    expect(await status({ bearer: deviceToken })).toBe(401);
    // Its refresh token is gone with it, as with POST /auth/revoke.
    expect(await status({ key: person.key })).toBe(200);

    // The key's deletion is an event by the person.
    const events = await api("GET", "/events?limit=250", { key: person.key });
    const deleted = events.body.events.find(
      (e: { type: string; resourceId: string }) => e.resourceId === spare.body.apiKey.id && e.type === "api_key.deleted",
    );
    expect(deleted).toMatchObject({ actor: { id: person.userId, via: "jwt" } });
  });

  it("revoking needs a signed-in session (401: the sign-in form); signing out ends it", async () => {
    const person = await addMember(tenant, "MEMBER");
    const spare = await post("/api-keys", { name: "Kept" }, person.key);
    const anonymous = browser();
    const start = await anonymous.page("GET", "/account");
    const refused = await anonymous.page("POST", "/account/revoke", {
      csrf: hidden(start.text, "csrf")!,
      kind: "key",
      workspace_id: tenant.workspaceId,
      id: spare.body.apiKey.id,
    });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('action="/account/signin"');
    expect(await status({ key: spare.body.key })).toBe(200);

    const { b, csrf } = await signIn(person.email);
    const out = await b.page("POST", "/account/signout", { csrf });
    expect(out.status).toBe(200);
    expect(out.text).toContain('action="/account/signin"');
    const after = await b.page("POST", "/account/revoke", {
      csrf: hidden(out.text, "csrf")!,
      kind: "key",
      workspace_id: tenant.workspaceId,
      id: spare.body.apiKey.id,
    });
    expect(after.status).toBe(401);
    // The old signed-in token is not the new session's.
    expect(
      (await b.page("POST", "/account/revoke", { csrf, kind: "key", workspace_id: tenant.workspaceId, id: spare.body.apiKey.id })).status,
    ).toBe(403);
    expect(await status({ key: spare.body.key })).toBe(200);
  });
});
