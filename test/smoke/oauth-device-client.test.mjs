// A generic OAuth client library, used as its documentation shows, logs in against the real `npm start` with the device
// flow (RFC 8628): openid-client (panva's, on oauth4webapi) initiates, polls through `authorization_pending` while a
// person has not approved, gets the tokens, and reads every refusal (`access_denied`, `invalid_grant`) as the
// OAuth error it is, because the token endpoints answer in OAuth's wire format (RFC 6749 §5.2, RFC 8628 §3.5).
import * as oidc from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hidden, STARTUP_MS, sharedStack, signUp, sixDigits } from "./lib/stack.mjs";

const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

let stack;
let owner;
/** The client as an application configures it: the server's endpoints, its client id, no client secret (a public client). */
let config;

beforeAll(async () => {
  stack = await sharedStack();
  owner = await signUp(stack, "oidc");
  const { base } = stack;
  config = new oidc.Configuration(
    { issuer: base, device_authorization_endpoint: `${base}/auth/device/code`, token_endpoint: `${base}/auth/device/token` },
    "oidc-smoke",
    undefined,
    oidc.None(),
  );
  // The stack listens on plain http on 127.0.0.1; a deployment is https.
  oidc.allowInsecureRequests(config);
}, STARTUP_MS + 30_000);

afterAll(() => stack?.stop(), 40_000);

/** Resolves after `ms`. */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A refusal as the library reports it: its OAuth error code, or the unexpected error itself. */
const oauthErrorOf = (promise) =>
  promise.then(
    () => "no error",
    (err) => (err instanceof oidc.ResponseBodyError ? err.error : err),
  );

describe("openid-client's device authorization grant against npm start", () => {
  it("logs in: polls through authorization_pending until a person approves, then holds a working token", async () => {
    const device = await oidc.initiateDeviceAuthorization(config, { scope: "read tasks:write" });
    expect(device).toMatchObject({ user_code: expect.any(String), verification_uri: `${stack.base}/device`, interval: 5 });
    const polled = oidc.pollDeviceAuthorizationGrant(config, device);
    // The library's first poll comes after `interval` seconds and is answered authorization_pending; the person approves after it.
    await sleep(6_000);
    const approved = await stack.call("POST", "/auth/device/approve", { key: owner.key, body: { user_code: device.user_code } });
    expect(approved.status, approved.text).toBe(200);
    const tokens = await polled;
    expect(tokens).toMatchObject({ token_type: "bearer", scope: "read tasks:write", refresh_token: expect.any(String) });
    expect(tokens.expiresIn()).toBeGreaterThan(3500);
    const me = await stack.call("GET", "/me", { bearer: tokens.access_token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.user.email).toBe(owner.email);

    // The device code is used up: another exchange is invalid_grant, read by the library as such.
    expect(await oauthErrorOf(oidc.genericGrantRequest(config, DEVICE_GRANT, { device_code: device.device_code }))).toBe("invalid_grant");

    // The login is renewed at the refresh endpoint with the same library; a used refresh token is invalid_grant.
    const refresher = new oidc.Configuration(
      { issuer: stack.base, token_endpoint: `${stack.base}/auth/token` },
      "oidc-smoke",
      undefined,
      oidc.None(),
    );
    oidc.allowInsecureRequests(refresher);
    const renewed = await oidc.refreshTokenGrant(refresher, tokens.refresh_token);
    expect(renewed).toMatchObject({ token_type: "bearer", scope: "read tasks:write" });
    expect((await stack.call("GET", "/me", { bearer: renewed.access_token })).status).toBe(200);
    expect(await oauthErrorOf(oidc.refreshTokenGrant(refresher, tokens.refresh_token))).toBe("invalid_grant");
  }, 60_000);

  it("reports a device denied on the /device page as access_denied", async () => {
    const device = await oidc.initiateDeviceAuthorization(config, {});
    const polled = oauthErrorOf(oidc.pollDeviceAuthorizationGrant(config, device));
    const step = await stack.call("POST", "/device", { form: { user_code: device.user_code, email: owner.email } });
    expect(step.status, step.text).toBe(200);
    const denied = await stack.call("POST", "/device/confirm", {
      form: {
        user_code: device.user_code,
        login_token: hidden(step.text, "login_token"),
        code: sixDigits(await stack.mail(owner.email, ++owner.mails)),
        decision: "deny",
      },
    });
    expect(denied.status, denied.text).toBe(200);
    expect(await polled).toBe("access_denied");
  }, 60_000);
});
