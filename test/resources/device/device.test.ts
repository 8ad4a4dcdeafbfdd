import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { deviceAuthorizations, workspaceMembers } from "../../../drizzle/schema";
import { base64url } from "../../../src/core/crypto";
import { SCOPES } from "../../../src/core/scopes";
import { api, fetchApp, get, post, uniqueEmail } from "../../helpers/api";
import { addMember, newTeam, newTenant, type Tenant, withDb } from "../../helpers/fixtures";
import { codeIn, mailTo } from "../../helpers/signup";

const USER_CODE = /^[BCDFGHJKMNPQRSTVWXZ]{4}-[BCDFGHJKMNPQRSTVWXZ]{4}$/;

/** A form-encoded POST (as RFC 8628 clients and the HTML page send) or a GET; the body read as text. */
async function raw(method: string, path: string, form?: Record<string, string>) {
  const init: RequestInit = { method };
  if (form) {
    init.body = new URLSearchParams(form).toString();
    init.headers = { "content-type": "application/x-www-form-urlencoded" };
  }
  const res = await fetchApp(new Request(`http://api.test${path}`, init));
  return { status: res.status as number, headers: res.headers as Headers, text: await res.text() };
}

const newDevice = async (body: Record<string, unknown> = { client_name: "pm-cli" }) => {
  const res = await post("/auth/device/code", body);
  expect(res.status).toBe(200);
  return res.body as { device_code: string; user_code: string; verification_uri_complete: string; interval: number };
};
const poll = (device_code: string) => post("/auth/device/token", { device_code });
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
const claims = (jwt: string) => JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));

describe("device flow (RFC 8628)", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant("Device Co");
  });

  it("starts with the RFC's fields; the device code is stored only as a hash", async () => {
    const res = await post("/auth/device/code", { client_name: "pm-cli on laptop" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      device_code: expect.any(String),
      user_code: expect.stringMatching(USER_CODE),
      verification_uri: "http://api.test/device",
      verification_uri_complete: `http://api.test/device?user_code=${res.body.user_code}`,
      expires_in: 900,
      interval: 5,
    });
    expect(res.body.device_code.length).toBeGreaterThanOrEqual(40);
    const [row] = await withDb((db) => db.select().from(deviceAuthorizations).where(eq(deviceAuthorizations.userCode, res.body.user_code)));
    expect(row).toMatchObject({ status: "PENDING", clientName: "pm-cli on laptop", userId: null, intervalSeconds: 5 });
    expect(row.id).toMatch(/^dev_[0-9a-z]{26}$/);
    expect(row.deviceCodeHash).not.toContain(res.body.device_code);
    // An empty body is fine: client_name is optional.
    expect((await api("POST", "/auth/device/code")).status).toBe(200);
  });

  it("approve by API, pending, slow_down, then the JWT once; it works like an API key of that user and workspace", async () => {
    const team = await newTeam(tenant, { prefix: "DEV" });
    const device = await newDevice();

    const pending = await poll(device.device_code);
    expect(pending.status).toBe(400);
    // OAuth's wire format (RFC 8628 §3.5), at the top level, never stored by a cache.
    expect(pending.body).toEqual({ error: "authorization_pending", error_description: expect.any(String), interval: 5 });
    expect(pending.headers.get("cache-control")).toBe("no-store");
    expect(pending.headers.get("x-request-id")).toBeTruthy();
    const slow = await poll(device.device_code);
    expect(slow.status).toBe(400);
    expect(slow.body).toEqual({ error: "slow_down", error_description: expect.any(String), interval: 10 });

    const approved = await post("/auth/device/approve", { user_code: device.user_code.toLowerCase().replace("-", " ") }, tenant.owner.key);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ approved: true });

    const issued = await poll(device.device_code);
    expect(issued.status).toBe(200);
    expect(issued.body).toEqual({
      access_token: expect.any(String),
      token_type: "Bearer",
      expires_in: 3600,
      scope: SCOPES.join(" "),
      refresh_token: expect.stringMatching(/^pmr_/),
    });
    const jwt = issued.body.access_token as string;
    expect(claims(jwt)).toMatchObject({ sub: tenant.owner.userId, wid: tenant.workspaceId, iss: "pm-api", aud: "pm-api" });

    const again = await poll(device.device_code);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: "invalid_grant", error_description: "Unknown or already used device_code" });

    const me = await api("GET", "/me", { bearer: jwt });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { id: tenant.owner.userId }, workspace: { id: tenant.workspaceId }, role: "OWNER" });
    const task = await api("POST", "/tasks", { bearer: jwt, body: { title: "from the command line", teamId: team.id } });
    expect(task.status).toBe(201);
    expect(task.body.task).toMatchObject({ reference: "DEV-1" });
  });

  it("issues the token exactly once under concurrent polls", async () => {
    const device = await newDevice();
    await post("/auth/device/approve", { user_code: device.user_code }, tenant.owner.key);
    const results = await Promise.all(Array.from({ length: 5 }, () => poll(device.device_code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.body.error === "invalid_grant")).toHaveLength(4);
  });

  it("accepts form-encoded bodies and the RFC's grant_type and client_id on all three endpoints", async () => {
    const started = await raw("POST", "/auth/device/code", { client_id: "pm-cli" });
    expect(started.status).toBe(200);
    const device = JSON.parse(started.text);
    const [row] = await withDb((db) => db.select().from(deviceAuthorizations).where(eq(deviceAuthorizations.userCode, device.user_code)));
    expect(row.clientName).toBe("pm-cli");
    const grant = { grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: device.device_code, client_id: "pm-cli" };
    const pending = await raw("POST", "/auth/device/token", grant);
    expect(pending.status).toBe(400);
    expect(JSON.parse(pending.text).error).toBe("authorization_pending");
    const approve = await fetchApp(
      new Request("http://api.test/auth/device/approve", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "svc-api-key": tenant.owner.key },
        body: `user_code=${device.user_code}`,
      }),
    );
    expect(approve.status).toBe(200);
    const issued = await raw("POST", "/auth/device/token", grant);
    expect(issued.status).toBe(200);
    expect(JSON.parse(issued.text).token_type).toBe("Bearer");
  });

  it("validates the bodies in OAuth's words: device_code required (invalid_request), wrong grant_type (unsupported_grant_type), unknown fields", async () => {
    const missing = await api("POST", "/auth/device/token");
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: "invalid_request", error_description: expect.stringContaining("device_code") });
    expect(Object.keys(missing.body.errors)).toEqual(["device_code"]);
    const wrongGrant = await raw("POST", "/auth/device/token", { grant_type: "password", device_code: "x" });
    expect(wrongGrant.status).toBe(400);
    expect(JSON.parse(wrongGrant.text)).toEqual({ error: "unsupported_grant_type", error_description: expect.any(String) });
    const extra = await post("/auth/device/token", { device_code: "x", extra: true });
    expect(extra.body).toEqual({
      error: "invalid_request",
      error_description: "Invalid request (extra: Unknown field)",
      errors: { extra: ["Unknown field"] },
    });
    // The device authorization endpoint is the API's own shape (docs/api.md: the token endpoint is the one that is OAuth's).
    expect((await post("/auth/device/code", { client_name: "x", extra: true })).body.errors).toEqual({ extra: ["Unknown field"] });
    const unknown = await poll("not-a-device-code");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: "invalid_grant", error_description: expect.any(String) });
    const text = await api("POST", "/auth/device/token", { rawBody: "device_code=x", headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(400);
    expect(text.body.error).toBe("invalid_request");
    const malformed = await api("POST", "/auth/device/token", { rawBody: "{", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe("invalid_request");
    const large = await api("POST", "/auth/device/token", {
      rawBody: JSON.stringify({ device_code: "x".repeat(1024 * 1024) }),
      headers: { "content-type": "application/json" },
    });
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ error: "invalid_request", error_description: "Request body is larger than 1 MiB" });
  });

  it("answers expired_token for an expired device code, which can no longer be approved", async () => {
    const device = await newDevice();
    await withDb((db) =>
      db
        .update(deviceAuthorizations)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(deviceAuthorizations.userCode, device.user_code)),
    );
    const res = await poll(device.device_code);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("expired_token");
    const approve = await post("/auth/device/approve", { user_code: device.user_code }, tenant.owner.key);
    expect(approve.status).toBe(404);
    expect(approve.body.error.code).toBe("NOT_FOUND");
  });

  it("approve: agents 403, no credential 401, unknown code 404, already decided 409", async () => {
    const device = await newDevice();
    const agent = await addMember(tenant, "MEMBER", "AGENT");
    const byAgent = await post("/auth/device/approve", { user_code: device.user_code }, agent.key);
    expect(byAgent.status).toBe(403);
    expect(byAgent.body.error.code).toBe("FORBIDDEN");
    expect((await post("/auth/device/approve", { user_code: device.user_code })).status).toBe(401);
    expect((await post("/auth/device/approve", { user_code: "BBBB-BBBB" }, tenant.owner.key)).status).toBe(404);
    expect((await post("/auth/device/approve", { user_code: "not a code" }, tenant.owner.key)).status).toBe(404);
    const member = await addMember(tenant, "MEMBER");
    expect((await post("/auth/device/approve", { user_code: device.user_code }, member.key)).status).toBe(200);
    const twice = await post("/auth/device/approve", { user_code: device.user_code }, tenant.owner.key);
    expect(twice.status).toBe(409);
    // Still pending for the agent's attempt: the device belongs to the member who approved it.
    const issued = await poll(device.device_code);
    expect(claims(issued.body.access_token).sub).toBe(member.userId);
  });

  it("refuses altered tokens and a token of a user who left the workspace", async () => {
    const member = await addMember(tenant, "MEMBER");
    const device = await newDevice();
    await post("/auth/device/approve", { user_code: device.user_code }, member.key);
    const jwt = (await poll(device.device_code)).body.access_token as string;
    expect((await api("GET", "/me", { bearer: jwt })).status).toBe(200);
    const [header, payload, signature] = jwt.split(".");
    const otherWorkspace = await newTenant("Elsewhere");
    const forged = base64url(new TextEncoder().encode(JSON.stringify({ ...claims(jwt), wid: otherWorkspace.workspaceId })));
    expect((await api("GET", "/me", { bearer: `${header}.${forged}.${signature}` })).status).toBe(401);
    const flipped = signature.slice(0, 10) + (signature[10] === "A" ? "B" : "A") + signature.slice(11);
    expect((await api("GET", "/me", { bearer: `${header}.${payload}.${flipped}` })).status).toBe(401);
    expect((await api("GET", "/me", { bearer: `${header}.${payload}` })).status).toBe(401);
    await withDb((db) => db.delete(workspaceMembers).where(eq(workspaceMembers.userId, member.userId)));
    expect((await api("GET", "/me", { bearer: jwt })).status).toBe(401);
  });
});

describe("device verification page", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant("Page Co");
  });

  /** Steps 1 and 2 of the page for a person; returns the confirm form's fields and the emailed code. */
  async function throughEmailStep(userCode: string, email: string, mails = 1) {
    const step = await raw("POST", "/device", { user_code: userCode, email });
    expect(step.status, step.text).toBe(200);
    expect(step.text).toContain('action="/device/confirm"');
    const loginToken = hidden(step.text, "login_token")!;
    expect(loginToken).toBeTruthy();
    expect(hidden(step.text, "user_code")).toBe(userCode);
    return { loginToken, code: codeIn(await mailTo(email, mails)), html: step.text };
  }

  it("renders the form with the user code prefilled, escaped, without scripts and not frameable", async () => {
    const device = await newDevice();
    const url = new URL(device.verification_uri_complete);
    const page = await raw("GET", `${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain(`value="${device.user_code}"`);
    expect(page.text).toContain('action="/device"');
    expect(page.text).not.toMatch(/<script/i);
    expect(page.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const evil = await raw("GET", `/device?user_code=${encodeURIComponent('"><script>alert(1)</script>')}`);
    expect(evil.status).toBe(200);
    expect(evil.text).not.toContain("<script>alert(1)</script>");
    expect(evil.text).toContain("&quot;&gt;&lt;script&gt;");
  });

  it("approves a device: user code + email, the emailed login code, then the JWT for the chosen workspace", async () => {
    const second = await newTenant("Page Second");
    await withDb((db) =>
      db.insert(workspaceMembers).values({ workspaceId: second.workspaceId, userId: tenant.owner.userId, role: "ADMIN" }),
    );
    const device = await newDevice({ client_name: '<img src=x onerror="alert(1)">' });
    const { loginToken, code, html } = await throughEmailStep(device.user_code, tenant.owner.email.toUpperCase());
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).not.toContain("<img");

    const wrong = await raw("POST", "/device/confirm", {
      user_code: device.user_code,
      login_token: loginToken,
      code: code === "000000" ? "111111" : "000000",
      decision: "continue",
    });
    expect(wrong.status).toBe(422);
    expect(wrong.text).toMatch(/Invalid code \(4 attempts left\)/);
    expect(hidden(wrong.text, "login_token")).toBe(loginToken);
    expect((await poll(device.device_code)).body.error).toBe("authorization_pending");

    // Signed in, the person chooses among their workspaces (no slug to type), as on the consent page.
    const signedIn = await raw("POST", "/device/confirm", {
      user_code: device.user_code,
      login_token: loginToken,
      code,
      decision: "continue",
    });
    expect(signedIn.status, signedIn.text).toBe(200);
    expect(signedIn.text).toContain('action="/device/decide"');
    expect(signedIn.text).toContain(`<option value="${tenant.workspaceId}"`);
    expect(signedIn.text).toContain(`<option value="${second.workspaceId}"`);
    expect(signedIn.text).not.toContain("workspace_slug");
    // Not approved yet (polled again within the interval: slow_down).
    expect((await poll(device.device_code)).status).toBe(400);
    const session = hidden(signedIn.text, "session")!;
    const stranger = await newTenant("Not Theirs");
    const notTheirs = await raw("POST", "/device/decide", {
      user_code: device.user_code,
      session,
      workspace_id: stranger.workspaceId,
      decision: "approve",
    });
    expect(notTheirs.status).toBe(422);
    expect(notTheirs.text).toContain("Choose one of your workspaces");
    // The sign-in is this device's only.
    const other = await newDevice();
    expect(
      (await raw("POST", "/device/decide", { user_code: other.user_code, session, workspace_id: second.workspaceId, decision: "approve" }))
        .status,
    ).toBe(400);

    const done = await raw("POST", "/device/decide", {
      user_code: device.user_code,
      session,
      workspace_id: second.workspaceId,
      decision: "approve",
    });
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain("Device approved");
    const issued = await poll(device.device_code);
    expect(issued.status).toBe(200);
    const me = await api("GET", "/me", { bearer: issued.body.access_token });
    expect(me.body).toMatchObject({ user: { id: tenant.owner.userId }, workspace: { id: second.workspaceId }, role: "ADMIN" });

    // The login code was used up by the approval.
    const reuse = await raw("POST", "/device/confirm", {
      user_code: device.user_code,
      login_token: loginToken,
      code,
      decision: "continue",
    });
    expect(reuse.status).toBe(404);
  });

  it("denies a device through the page: its poll answers access_denied", async () => {
    const device = await newDevice();
    const member = await addMember(tenant, "MEMBER");
    const { loginToken, code } = await throughEmailStep(device.user_code, member.email);
    const denied = await raw("POST", "/device/confirm", { user_code: device.user_code, login_token: loginToken, code, decision: "deny" });
    expect(denied.status).toBe(200);
    expect(denied.text).toContain("Device denied");
    const res = await poll(device.device_code);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "access_denied", error_description: "The user denied this device" });
    expect((await post("/auth/device/approve", { user_code: device.user_code }, tenant.owner.key)).status).toBe(409);
  });

  it("answers an unknown address like a known one and emails it nothing", async () => {
    const device = await newDevice();
    const unknown = uniqueEmail("stranger");
    const step = await raw("POST", "/device", { user_code: device.user_code, email: unknown });
    expect(step.status).toBe(200);
    expect(step.text).toContain('name="login_token"');
    const probe = await addMember(tenant, "MEMBER");
    await throughEmailStep(device.user_code, probe.email);
    expect((await get(`/_dev/mailbox?to=${encodeURIComponent(unknown)}`)).body.messages).toEqual([]);
    const loginToken = hidden(step.text, "login_token")!;
    const guess = await raw("POST", "/device/confirm", {
      user_code: device.user_code,
      login_token: loginToken,
      code: "123456",
      decision: "continue",
    });
    expect(guess.status).toBe(422);
  });

  it("shows errors as pages: unknown user code, bad email, bad code, an incomplete form", async () => {
    const unknown = await raw("POST", "/device", { user_code: "BBBB-BBBB", email: tenant.owner.email });
    expect(unknown.status).toBe(404);
    expect(unknown.text).toMatch(/unknown or has expired/);
    const device = await newDevice();
    const badEmail = await raw("POST", "/device", { user_code: device.user_code, email: "not-an-address" });
    expect(badEmail.status).toBe(422);
    expect(badEmail.text).toMatch(/valid email/);
    const badCode = await raw("POST", "/device/confirm", {
      user_code: device.user_code,
      login_token: "x",
      code: "12",
      decision: "continue",
    });
    expect(badCode.status).toBe(422);
    expect(badCode.text).toMatch(/6-digit code/);
    const incomplete = await raw("POST", "/device/confirm", { user_code: device.user_code });
    expect(incomplete.status).toBe(422);
    expect(incomplete.headers.get("content-type")).toMatch(/^text\/html/);
  });
});

describe("device flow in the OpenAPI document", () => {
  it("documents the JSON endpoints with both media types and the HTML page routes", async () => {
    const doc = (await get("/openapi.json")).body;
    const op = (method: string, path: string) => doc.paths[path]?.[method];
    expect(op("post", "/auth/device/code").operationId).toBe("createDeviceCode");
    expect(op("post", "/auth/device/approve").operationId).toBe("approveDevice");
    expect(op("post", "/auth/device/token").operationId).toBe("exchangeDeviceToken");
    expect(op("post", "/login/start").operationId).toBe("startLogin");
    expect(op("post", "/login/complete").operationId).toBe("completeLogin");
    for (const path of ["/auth/device/code", "/auth/device/approve", "/auth/device/token"]) {
      expect(Object.keys(op("post", path).requestBody.content).sort()).toEqual(["application/json", "application/x-www-form-urlencoded"]);
    }
    expect(op("post", "/auth/device/approve").security).toEqual([{ ApiKey: [] }, { Bearer: [] }]);
    expect(op("post", "/auth/device/token").security).toEqual([]);
    expect(Object.keys(op("get", "/device").responses["200"].content)).toEqual(["text/html"]);
    expect(op("post", "/device/confirm").requestBody.content["application/x-www-form-urlencoded"]).toBeDefined();
  });
});
