// Smoke test of `npm start` itself: boots the real start script (embedded PostgreSQL, WebSocket proxy,
// `wrangler dev` with the front Worker on the public port, the API behind it and the email consumer) on its own port, PostgreSQL port and data dir, drives it
// over HTTP from outside like a user with curl, and stops every process it started. Runs in Node, not workerd.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveOnDevicePage, STARTUP_MS, signUp, sixDigits, startStack, unique } from "./lib/stack.mjs";

let stack;
let call;
let mail;
let base;

beforeAll(async () => {
  stack = await startStack();
  ({ call, mail, base } = stack);
}, STARTUP_MS + 30_000);

afterAll(() => stack?.stop(), 40_000);

describe("npm start, driven over HTTP", () => {
  let owner;

  it("answers /health (also against the database) and publishes the JWKS", async () => {
    expect((await call("GET", "/health")).body).toEqual({ status: "ok" });
    expect((await call("GET", "/health?deep=1")).status).toBe(200);
    const jwks = await call("GET", "/.well-known/jwks.json");
    expect(jwks.status, jwks.text).toBe(200);
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(jwks.body.keys[0].d).toBeUndefined();
    // The base URL itself, through the front Worker: what a person opens first.
    const index = await call("GET", "/");
    expect(index.status, index.text).toBe(200);
    expect(index.body.links).toEqual({ docs: `${base}/docs`, openapi: `${base}/openapi.json`, health: `${base}/health` });
  });

  it("signs up through the dev mailbox", async () => {
    owner = await signUp(stack, "owner");
    const me = await call("GET", "/me", { key: owner.key });
    expect(me.body).toMatchObject({ user: { email: owner.email }, workspace: { slug: owner.slug }, role: "OWNER" });
  });

  it("invites a person who redeems the emailed token", async () => {
    const email = unique("invitee");
    const invite = await call("POST", "/invites", { key: owner.key, body: { email } });
    expect(invite.status, invite.text).toBe(201);
    expect(invite.body.invite).toBeDefined();
    const text = (await mail(email)).text;
    // The token is in the text; try every long token-like word against the redeem endpoint's answer.
    const candidates = [...new Set(text.match(/[A-Za-z0-9_-]{20,}/g) ?? [])];
    let redeemed;
    for (const token of candidates) {
      const res = await call("POST", "/invites/redeem", { body: { token, name: "Smoke Invitee" } });
      if (res.status === 201) {
        redeemed = res;
        break;
      }
    }
    expect(redeemed?.body?.data, `no token in: ${text}`).toMatchObject({ api_token: expect.any(String), workspace_slug: owner.slug });
    const me = await call("GET", "/me", { key: redeemed.body.data.api_token });
    expect(me.body).toMatchObject({ user: { email }, workspace: { slug: owner.slug }, role: "MEMBER" });
  });

  it("logs in with an emailed code", async () => {
    const started = await call("POST", "/login/start", { body: { email: owner.email } });
    expect(started.status, started.text).toBe(200);
    const done = await call("POST", "/login/complete", {
      body: { login_token: started.body.data.login_token, code: sixDigits(await mail(owner.email, ++owner.mails)) },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.workspace_slug).toBe(owner.slug);
  });

  it("logs a command-line client in with the device flow; its JWT reads /me", async () => {
    const device = await call("POST", "/auth/device/code", { form: { client_id: "smoke-cli" } });
    expect(device.status).toBe(200);
    const { device_code, user_code, verification_uri, verification_uri_complete } = device.body;
    expect(verification_uri).toBe(`${base}/device`);
    expect(
      (await call("POST", "/auth/device/token", { form: { grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code } })).body
        .error,
    ).toBe("authorization_pending");

    // The person opens the page, gives their address, and approves with the emailed code.
    const page = await call("GET", new URL(verification_uri_complete).pathname + new URL(verification_uri_complete).search);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`value="${user_code}"`);
    const { step, confirm } = await approveOnDevicePage(stack, { userCode: user_code, email: owner.email, mailNumber: ++owner.mails });
    expect(step.status, step.text).toBe(200);
    expect(confirm.status, confirm.text).toBe(200);
    expect(confirm.text).toContain("Device approved");

    const token = await call("POST", "/auth/device/token", { body: { device_code } });
    expect(token.status, token.text).toBe(200);
    expect(token.body.token_type).toBe("Bearer");
    const me = await call("GET", "/me", { bearer: token.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { email: owner.email }, workspace: { slug: owner.slug } });
    expect((await call("POST", "/auth/device/token", { body: { device_code } })).status).toBe(400);
  });
  it("answers a GET that allows it from the front Worker's cache; a write through it hides what was stored before", async () => {
    const read = async () => {
      const res = await fetch(`${base}/me`, {
        headers: { "svc-api-key": owner.key, "cache-control": "max-age=30", "x-request-id": "smoke-edge" },
      });
      await res.text();
      expect(res.headers.has("x-pm-workspace")).toBe(false);
      // Every answer, a hit too: the caller's request id and the rate limit (docs/api.md, conventions).
      expect(res.headers.get("x-request-id")).toBe("smoke-edge");
      expect(res.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
      return res.headers.get("cache-status");
    };
    expect(await read()).toMatch(/^pm-edge; fwd=miss; fwd-status=200; stored$/);
    // The entry is stored after the answer (waitUntil): the next reads find it.
    let status;
    for (let i = 0; i < 20 && status !== "pm-edge; hit"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = await read();
    }
    expect(status).toBe("pm-edge; hit");
    const plain = await call("GET", "/me", { key: owner.key });
    expect(plain.headers.get("cache-status")).toBe("pm-edge; fwd=request");
    expect((await call("POST", "/api-keys", { key: owner.key, body: { name: "edge" } })).status).toBe(201);
    expect(await read()).toMatch(/^pm-edge; fwd=stale; fwd-status=(200|304); stored$/);
  });
});
