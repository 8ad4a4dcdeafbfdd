// MCP to the letter: JSON-RPC's own errors for what is not a request the server can answer, and HTTP 401 with
// the `WWW-Authenticate` challenge (RFC 6750, RFC 9728, the MCP authorization spec) that names the resource metadata
// served at /.well-known/oauth-protected-resource, so an MCP client knows how to start a login.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { EmptyResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../src/core/scopes";
import { api, get } from "./helpers/api";
import { newTenant, type Tenant } from "./helpers/fixtures";
import { connect, MCP_URL, postMcp, workerFetch } from "./mcp-client";

const BASE = "http://api.test";
const METADATA = `${BASE}/.well-known/oauth-protected-resource`;
const UNKNOWN_KEY = "pmk_not-a-real-key-at-all-0000000000000000000";
const rpc = (method: string, params: Record<string, unknown> = {}, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

describe("MCP protocol errors", () => {
  let t: Tenant;
  let client: Client;
  let key: Record<string, string>;

  beforeAll(async () => {
    t = await newTenant("MCP protocol");
    key = { "svc-api-key": t.owner.key };
    client = await connect(key);
  });
  afterAll(() => client?.close());

  it("a body that is not JSON is −32700 Parse error with id null (HTTP 400), and so is one that is not UTF-8", async () => {
    for (const body of ["{not json", '{"jsonrpc":"2.0","id":1,', "", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]) {
      const res = await postMcp(body, key);
      expect(res.status, String(body)).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(res.body).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: expect.stringMatching(/^Parse error/) }, id: null });
    }
  });

  it("JSON that is no JSON-RPC message is −32600 Invalid Request with id null", async () => {
    for (const body of ["{}", "[]", "42", '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', '[{"id":1}]']) {
      const res = await postMcp(body, key);
      expect(res.status, body).toBe(400);
      expect(res.body, body).toEqual({
        jsonrpc: "2.0",
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
        id: null,
      });
    }
  });

  it("an unknown method is −32601 Method not found, for a bare request and through the SDK client", async () => {
    const res = await postMcp(rpc("tasks/teleport", {}, 7), key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32601, message: expect.stringContaining("Method not found") } });
    // A method of the protocol this server has no capability for is the same error.
    expect((await postMcp(rpc("resources/list", {}, "r"), key)).body).toMatchObject({ id: "r", error: { code: -32601 } });
    await expect(client.request({ method: "prompts/list", params: {} }, EmptyResultSchema)).rejects.toMatchObject({ code: -32601 });
  });

  it("an unknown tool in tools/call is −32602 Invalid params", async () => {
    const res = await postMcp(rpc("tools/call", { name: "teleport", arguments: {} }), key);
    expect(res.body).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: expect.stringContaining("teleport") } });
    await expect(client.callTool({ name: "teleport", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it("the credential comes first: a bad key with a body that is not JSON is 401, not a parse error", async () => {
    const res = await postMcp("{not json", { "svc-api-key": UNKNOWN_KEY });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHORIZED");
  });
});

describe("401 names how to authenticate (WWW-Authenticate), on /mcp and everywhere else", () => {
  it("no credential: a Bearer challenge with the realm and the resource metadata, no error code (RFC 6750 §3.1)", async () => {
    for (const res of [await postMcp(rpc("tools/list"), {}), await api("GET", "/tasks"), await api("POST", "/labels", { body: {} })]) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(`Bearer realm="pm", resource_metadata="${METADATA}"`);
    }
  });

  it("a credential that is not valid: the same challenge with error=invalid_token", async () => {
    const challenge = `Bearer realm="pm", error="invalid_token", resource_metadata="${METADATA}"`;
    const answers = [
      await postMcp(rpc("initialize"), { "svc-api-key": UNKNOWN_KEY }),
      await postMcp(rpc("tools/list"), { authorization: "Bearer not.a.jwt" }),
      await api("GET", "/me", { key: UNKNOWN_KEY }),
      await api("GET", "/tasks/ENG-1", { bearer: "not.a.jwt" }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(challenge);
    }
  });

  it("no other answer carries a challenge", async () => {
    const t = await newTenant("No challenge");
    for (const res of [await get("/me", t.owner.key), await get("/tasks/NOPE-1", t.owner.key), await get("/health")]) {
      expect(res.status).not.toBe(401);
      expect(res.headers.get("www-authenticate")).toBeNull();
    }
  });

  it("serves the Protected Resource Metadata (RFC 9728) publicly: the MCP resource, its authorization server, header bearer tokens, the scopes", async () => {
    const res = await get("/.well-known/oauth-protected-resource");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      resource: `${BASE}/mcp`,
      authorization_servers: [BASE],
      bearer_methods_supported: ["header"],
      scopes_supported: [...SCOPES],
      resource_documentation: `${BASE}/docs`,
    });
    // RFC 9728 §3.1's path form for the resource <base>/mcp answers the same.
    const pathForm = await get("/.well-known/oauth-protected-resource/mcp");
    expect(pathForm.status).toBe(200);
    expect(pathForm.body).toEqual(res.body);
  });

  it("the SDK client sees the 401 and the metadata address in the challenge", async () => {
    const seen: string[] = [];
    const spy = async (url: string | URL, init?: RequestInit) => {
      const res = await workerFetch(url, init);
      seen.push(`${res.status} ${res.headers.get("www-authenticate")}`);
      return res;
    };
    const anonymous = new Client({ name: "anonymous", version: "1" });
    await expect(anonymous.connect(new StreamableHTTPClientTransport(MCP_URL, { fetch: spy }))).rejects.toMatchObject({ code: 401 });
    expect(seen).toEqual([`401 Bearer realm="pm", resource_metadata="${METADATA}"`]);
  });
});
