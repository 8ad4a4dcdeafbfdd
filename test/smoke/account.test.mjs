// The account page in a real browser (docs/clients.md, "Your account page"): headless Chromium against `npm start`
// (the front Worker on the public port, as in production). A person connects an app on the consent page, signs in
// on /account with the code from the dev mailbox, revokes the app and a key, and each revoked credential is 401 at once,
// also where the front Worker had stored answers for it.

import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, launch } from "./lib/browser.mjs";
import { STARTUP_MS, sharedStack, signUp, sixDigits } from "./lib/stack.mjs";

let stack;
let browser;
let owner;
let redirect;

/** Where the connected app's consent ends: a local callback that keeps the URL it was sent to. */
async function callbackServer() {
  const seen = [];
  const server = createServer((req, res) => {
    seen.push(new URL(req.url, "http://127.0.0.1"));
    res.writeHead(200, { "content-type": "text/plain" }).end("You can close this page.");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { uri: `http://127.0.0.1:${server.address().port}/callback`, seen, close: () => server.close() };
}

/** GET /me with `who`, allowing a stored answer (the front Worker may answer from its cache): status and Cache-Status. */
async function me(who) {
  const headers = { "cache-control": "max-age=60", ...who };
  const res = await fetch(`${stack.base}/me`, { headers });
  return { status: res.status, cache: res.headers.get("cache-status") };
}
/** The answer stored at the edge: a second read is a hit. */
async function storedAtTheEdge(who) {
  expect((await me(who)).status).toBe(200);
  const again = await me(who);
  expect(again).toEqual({ status: 200, cache: expect.stringContaining("pm-edge; hit") });
}

const mails = () => ++owner.mails;

beforeAll(async () => {
  stack = await sharedStack();
  owner = await signUp(stack, "account", "Account Works");
  redirect = await callbackServer();
  browser = await launch();
}, STARTUP_MS + 60_000);

afterAll(async () => {
  await browser?.close();
  redirect?.close();
  await stack?.stop();
});

describe.skipIf(!chromiumPath())("the account page in Chromium", () => {
  it("signs in by emailed code, revokes a connected app and a key: each is 401 at once, also from the edge", async () => {
    const { page } = browser;
    await page.setViewport(900, 1000);

    // A connected app: registered by the host, approved by the person on the consent page in the browser.
    const registered = await stack.call("POST", "/oauth/register", { body: { redirect_uris: [redirect.uri], client_name: "Smoke Host" } });
    expect(registered.status, registered.text).toBe(201);
    const clientId = registered.body.client_id;
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const authorize = new URL(`${stack.base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirect.uri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
    }))
      authorize.searchParams.set(k, v);
    await page.goto(authorize.href);
    await page.type("#email", owner.email);
    await page.press('button[value="continue"]');
    await page.type("#code", sixDigits(await stack.mail(owner.email, mails())));
    await page.press('button[value="continue"]');
    expect(await page.text()).toContain("revoke it any time on your account page");
    await page.press('button[value="approve"]');
    const back = redirect.seen.at(-1);
    expect(back.searchParams.get("state")).toBe("s1");
    const exchanged = await fetch(`${stack.base}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: back.searchParams.get("code"),
        redirect_uri: redirect.uri,
        client_id: clientId,
        code_verifier: verifier,
      }),
    });
    const token = (await exchanged.json()).access_token;
    expect(token).toBeTruthy();

    // A second key, and an agent's key; every credential's answer stored at the edge.
    const key = await stack.call("POST", "/api-keys", { key: owner.key, body: { name: "Laptop script" } });
    expect(key.status, key.text).toBe(201);
    const agent = await stack.call("POST", "/agents", { key: owner.key, body: { name: "Build Bot" } });
    expect(agent.status, agent.text).toBe(201);
    const app = { authorization: `Bearer ${token}` };
    const laptop = { "svc-api-key": key.body.key };
    await storedAtTheEdge(app);
    await storedAtTheEdge(laptop);
    await storedAtTheEdge({ "svc-api-key": owner.key });

    // Sign in on the account page.
    await page.goto(`${stack.base}/account`);
    expect(await page.text()).toContain("See and revoke your API keys");
    await page.type("#email", owner.email);
    await page.press('button[type="submit"]');
    await page.type("#code", sixDigits(await stack.mail(owner.email, mails())));
    await page.press('button[type="submit"]');
    const signedIn = await page.text();
    expect(signedIn).toContain(`Signed in as ${owner.email}`);
    for (const name of ["Laptop script", "Build Bot", "Smoke Host"]) expect(signedIn).toContain(name);
    // The session cookie: HttpOnly, SameSite=Strict, only for /account, short-lived.
    const [cookie] = await page.cookies(`${stack.base}/account`);
    expect(cookie).toMatchObject({ name: "pm_account", httpOnly: true, sameSite: "Strict", path: "/account" });
    expect(cookie.expires * 1000 - Date.now()).toBeLessThanOrEqual(30 * 60 * 1000);
    // For a person to look at (it is not compared): how the page reads.
    await page.screenshot(path.join(tmpdir(), "pm-account-page.png"));

    // Revoke the app: its token is 401 at once, also where the front Worker stored an answer for it.
    await page.press('button[aria-label="Revoke app Smoke Host"]');
    expect(await page.text()).toContain("The app was revoked.");
    expect(await me(app)).toMatchObject({ status: 401 });
    expect((await fetch(`${stack.base}/me`, { headers: app })).status).toBe(401);

    // Revoke the key: likewise.
    await page.press('button[aria-label="Revoke API key Laptop script"]');
    const after = await page.text();
    expect(after).toContain("The API key was revoked.");
    expect(after).not.toContain("Laptop script");
    expect(await me(laptop)).toMatchObject({ status: 401 });
    expect((await fetch(`${stack.base}/me`, { headers: laptop })).status).toBe(401);

    // What was not revoked still works; the page ran no script and broke no rule of its CSP.
    expect((await me({ "svc-api-key": owner.key })).status).toBe(200);
    expect((await stack.call("GET", "/me", { key: agent.body.agent.apiKey })).status).toBe(200);
    expect(page.consoleErrors).toEqual([]);
  }, 120_000);
});
