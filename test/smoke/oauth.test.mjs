// An agent host connecting by URL (docs/clients.md): the MCP SDK's own client OAuth support against the
// real `npm start`, with the person's part (the consent page) scripted: discovery from the 401, registration (Dynamic
// Client Registration, and a Client ID Metadata Document served over https from this process), authorize, token, a
// tool call, refresh, revocation → 401.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hidden, newEngineeringTeam, STARTUP_MS, signUp, sixDigits, startStack } from "./lib/stack.mjs";

const REDIRECT = "http://127.0.0.1:33419/callback";

let stack;
let owner;
let team;
let documents;
let certDir;

/**
 * An https server on 127.0.0.1 with a certificate made now, which the stack trusts (NODE_EXTRA_CA_CERTS, read by
 * wrangler's workerd): where a Client ID Metadata Document lives, as a host's would on the Internet. Loopback is a
 * metadata document's host only under the development switch, which `npm start` sets.
 */
async function documentServer() {
  certDir = mkdtempSync(path.join(tmpdir(), "pm-oauth-cert-"));
  const key = path.join(certDir, "key.pem");
  const cert = path.join(certDir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
    ],
    { stdio: "ignore" },
  );
  const served = new Map();
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const body = served.get(req.url);
    res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    res.end(body ? JSON.stringify(body) : "{}");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `https://127.0.0.1:${server.address().port}`;
  return { cert, base, served, close: () => server.close() };
}

beforeAll(async () => {
  documents = await documentServer();
  process.env.NODE_EXTRA_CA_CERTS = documents.cert;
  stack = await startStack();
  owner = await signUp(stack, "oauth", "OAuth Works");
  team = await newEngineeringTeam(stack, owner);
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await stack?.stop();
  documents?.close();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
}, 40_000);

/** An agent host's OAuth state, kept in memory; the browser it would open is recorded instead. */
class ScriptedHost {
  constructor(opts = {}) {
    this.clientMetadataUrl = opts.clientMetadataUrl;
    this.saved = {};
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "Smoke Agent Host",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return "smoke-state";
  }
  clientInformation() {
    return this.saved.client;
  }
  saveClientInformation(info) {
    this.saved.client = info;
  }
  tokens() {
    return this.saved.tokens;
  }
  saveTokens(tokens) {
    this.saved.tokens = tokens;
  }
  redirectToAuthorization(url) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier) {
    this.saved.verifier = verifier;
  }
  codeVerifier() {
    return this.saved.verifier;
  }
}

/** The person at the consent page the host opened: their email, the emailed code, then `choose` (approve all, by default). */
async function consent(url, choose = (form) => form) {
  expect(url.origin).toBe(stack.base);
  const page = await stack.call("GET", `${url.pathname}${url.search}`);
  expect(page.status, page.text).toBe(200);
  const request = hidden(page.text, "request");
  const step = await stack.call("POST", "/oauth/authorize", { form: { request, email: owner.email, decision: "continue" } });
  expect(step.status, step.text).toBe(200);
  owner.mails += 1;
  const code = sixDigits(await stack.mail(owner.email, owner.mails));
  const signin = await stack.call("POST", "/oauth/authorize/signin", {
    form: { request, login_token: hidden(step.text, "login_token"), code, decision: "continue" },
  });
  expect(signin.status, signin.text).toBe(200);
  const form = new URLSearchParams({
    request,
    session: hidden(signin.text, "session"),
    workspace_id: hidden(signin.text, "workspace_id"),
    teams: "all",
    decision: "approve",
  });
  for (const [, scope] of signin.text.matchAll(/name="scope" value="([^"]+)" checked/g)) form.append("scope", scope);
  const res = await fetch(`${stack.base}/oauth/authorize/consent`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: choose(form).toString(),
    redirect: "manual",
  });
  expect(res.status, await res.clone().text()).toBe(302);
  const back = new URL(res.headers.get("location"));
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get("state")).toBe("smoke-state");
  return { page, code: back.searchParams.get("code") };
}

const mcpUrl = () => new URL(`${stack.base}/mcp`);
const connectWith = async (host) => {
  const client = new Client({ name: "smoke-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: host }));
  return client;
};

/** The whole login as a host runs it: the 401, discovery and registration by the SDK, the person's consent, the code's exchange. */
async function login(host, choose) {
  const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: host });
  const client = new Client({ name: "smoke-host", version: "1.0.0" });
  await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(host.authorizationUrl).toBeDefined();
  const { page, code } = await consent(host.authorizationUrl, choose);
  await transport.finishAuth(code);
  return { page };
}

async function roundTrip(host) {
  const { page } = await login(host);
  const client = await connectWith(host);
  const created = await client.callTool({ name: "create_task", arguments: { teamId: team.id, title: "Filed by an agent host" } });
  expect(created.isError, JSON.stringify(created)).toBeFalsy();
  const history = await stack.call("GET", `/tasks/${created.structuredContent.task.id}/history`, { key: owner.key });
  expect(history.body.events[0].actor.via).toBe("oauth");

  // Refresh: the SDK's own refresh, with the stored refresh token; it is rotated and the new access token works.
  const before = host.saved.tokens;
  expect(await auth(host, { serverUrl: mcpUrl() })).toBe("AUTHORIZED");
  expect(host.saved.tokens.refresh_token).not.toBe(before.refresh_token);
  expect(host.saved.tokens.access_token).not.toBe(before.access_token);
  const again = await connectWith(host);
  expect((await again.listTools()).tools.map((t) => t.name)).toContain("create_task");

  // Revocation: the person deletes the grant; the very next call is 401, and the refresh token is dead too.
  const grants = await stack.call("GET", "/oauth/grants", { key: owner.key });
  const grant = grants.body.oauth_grants.find((g) => g.clientId === host.saved.client.client_id);
  expect(grant).toMatchObject({ clientName: "Smoke Agent Host", teamIds: null });
  expect((await stack.call("DELETE", `/oauth/grants/${grant.id}`, { key: owner.key })).status).toBe(204);
  const refused = await stack.call("POST", "/mcp", {
    bearer: host.saved.tokens.access_token,
    body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  });
  expect(refused.status).toBe(401);
  await expect(again.listTools()).rejects.toThrow();
  return { page };
}

describe("the MCP SDK's client OAuth against npm start", () => {
  it("Dynamic Client Registration: register, consent, token, a tool call, refresh, revoke", async () => {
    const host = new ScriptedHost();
    const { page } = await roundTrip(host);
    expect(host.saved.client.client_id).toMatch(/^ocl_/);
    expect(page.text).toContain("Smoke Agent Host");
    expect(page.text).toContain("name not verified");
  }, 60_000);

  it("Client ID Metadata Document: the client_id is the https URL the server fetches", async () => {
    const url = `${documents.base}/clients/smoke.json`;
    documents.served.set("/clients/smoke.json", {
      client_id: url,
      client_name: "Smoke Agent Host",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    const host = new ScriptedHost({ clientMetadataUrl: url });
    const { page } = await roundTrip(host);
    expect(host.saved.client.client_id).toBe(url);
    expect(page.text).toContain("described by <b>127.0.0.1:");
  }, 60_000);

  it("the person narrows the scopes: the SDK's token has what they left ticked", async () => {
    const host = new ScriptedHost();
    await login(host, (form) => {
      form.delete("scope");
      form.append("scope", "read");
      return form;
    });
    expect(host.saved.tokens.scope).toBe("read");
    const client = await connectWith(host);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("create_task");
    const me = await stack.call("GET", "/me", { bearer: host.saved.tokens.access_token });
    expect(me.status).toBe(200);
    const write = await stack.call("POST", "/tasks", { bearer: host.saved.tokens.access_token, body: { teamId: team.id, title: "no" } });
    expect(write.status).toBe(403);
  }, 60_000);
});
