// Credentials of the login flows as fixtures: an OAuth grant made by the consent step's own function (the pages are walked
// in test/oauth.test.ts) and exchanged at POST /oauth/token, and a device login approved through the API.
import { expect } from "vitest";
import { createAuthorizationCode } from "../../src/auth/oauth/grants";
import { base64url } from "../../src/core/crypto";
import { api, post } from "./api";
import { withDb } from "./fixtures";

export const OAUTH_REDIRECT = "http://127.0.0.1:33418/callback";

export async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

/** A registered client and a person's consent to it (every scope and team): the code and what exchanges it. */
export async function consentCode(person: { userId: string }, workspaceId: string) {
  const registered = await post("/oauth/register", { client_name: "Fixture host", redirect_uris: [OAUTH_REDIRECT] });
  expect(registered.status).toBe(201);
  const clientId: string = registered.body.client_id;
  const { verifier, challenge } = await pkce();
  const code = await withDb((db) =>
    createAuthorizationCode(db, {
      userId: person.userId,
      workspaceId,
      clientId,
      clientName: "Fixture host",
      redirectUri: OAUTH_REDIRECT,
      codeChallenge: challenge,
      scopes: null,
      teamIds: null,
    }),
  );
  expect(code).not.toBeNull();
  const exchange = {
    grant_type: "authorization_code",
    code: code!,
    redirect_uri: OAUTH_REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  };
  return { clientId, exchange };
}

/** A whole grant: the consent's code exchanged for its first tokens. */
export async function oauthGrant(person: { userId: string }, workspaceId: string) {
  const { clientId, exchange } = await consentCode(person, workspaceId);
  const res = await post("/oauth/token", exchange);
  expect(res.status).toBe(200);
  return { clientId, exchange, accessToken: res.body.access_token as string, refreshToken: res.body.refresh_token as string };
}

/** A device login approved by `key`'s holder: its access and refresh tokens. */
export async function deviceLogin(key: string) {
  const started = await post("/auth/device/code", { client_name: "fixture device" });
  expect(started.status).toBe(200);
  expect((await api("POST", "/auth/device/approve", { key, body: { user_code: started.body.user_code } })).status).toBe(200);
  const tokens = await post("/auth/device/token", { device_code: started.body.device_code });
  expect(tokens.status).toBe(200);
  return { accessToken: tokens.body.access_token as string, refreshToken: tokens.body.refresh_token as string };
}
