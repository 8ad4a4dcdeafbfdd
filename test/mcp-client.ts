// What the MCP test files share: the SDK's own client connected to the worker over Streamable HTTP, a tool call's
// body, and a bare JSON-RPC request.
import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";

export const MCP_URL = new URL("http://api.test/mcp");
export const MCP_ACCEPT = "application/json, text/event-stream";

/** The worker's fetch as a client reaches it, without the conformance check of api() (JSON-RPC bodies are not the API's). */
export const workerFetch = (url: string | URL, init?: RequestInit) =>
  (exports as any).default.fetch(new Request(url, init)) as Promise<Response>;

/**
 * An SDK client connected to the worker with these headers on every request (an API key or a Bearer token). It lists
 * the tools once, so from then on the client checks every answer's structuredContent against the tool's outputSchema
 * (callTool rejects one that does not match).
 */
export async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(MCP_URL, { fetch: workerFetch, requestInit: { headers } }));
  await client.listTools();
  return client;
}

/** A tool call's body: the API JSON of its text content (structuredContent says the same; a tool error has none). */
export async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as any;
  const body = JSON.parse(result.content[0].text);
  const isError = result.isError === true;
  expect(result.structuredContent).toEqual(isError ? undefined : body);
  return { isError, body };
}

/** POST /mcp with a raw body (no session: the server is stateless), answered as status, headers and parsed JSON. */
export async function postMcp(body: string | Uint8Array, headers: Record<string, string>) {
  const res = await workerFetch(MCP_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: MCP_ACCEPT, ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}
