import { createRoute, z } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ErrorCode, JSONRPCMessageSchema, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { AppError } from "../core/errors";
import { SCOPES } from "../core/scopes";
import { errorResponse, PROTECTED_RESOURCE_METADATA } from "../http/error-mapper";
import { jsonResponse } from "../http/openapi";
import { declaring } from "../http/policy";
import { publicRoute } from "../http/route-base";
import { newRouter } from "../http/router";
import { mustSettle } from "../http/settled-write";
import { publicBaseUrl } from "../http/urls";
import { type CallerEnv, withCaller } from "../http/with-caller";
import { isUtf8 } from "../middleware/body-guard";
import { type FailedCall, mcpServer, type SentArguments, type Toolbox, toolbox } from "./server";
import type { Tool, ToolContext } from "./tools";

/**
 * JSON-RPC: its tools check their arguments, its request ids are its own (no Idempotency-Key), its events say `mcp`;
 * any live credential may call it (each tool asks for its operation's scope).
 */
const RPC = { body: "rpc", idempotent: false, via: "mcp", scope: null } as const;

/** What a tool needs of the request: its caller, loaded (an MCP client re-authenticates on HTTP 401, not on a tool error). */
async function toolContext(c: Context<CallerEnv>): Promise<ToolContext> {
  const caller = c.get("caller");
  await caller.principal();
  return { caller };
}

/**
 * A tool call that failed: its REST error body, or, when the connection was lost after its write went out, what the
 * request's settling says (src/http/settled-write.ts, REST's rule): the committed record as the tool's answer (a delete's
 * `{deleted: true}`), or the error OUTCOME_UNKNOWN / UNAVAILABLE ("nothing was written").
 */
const failedCall = async (c: Context<CallerEnv>, ...[err, tool, args]: Parameters<FailedCall>): ReturnType<FailedCall> => {
  if (mustSettle(c.get("rdb"), err)) {
    const [method, route] = tool.rest.split(" ");
    const outcome = await c.get("settleWrite")({ method, route, id: typeof args.id === "string" ? args.id : undefined });
    if (!(outcome instanceof Error)) return { result: outcome.status === 204 ? { deleted: true } : outcome.body };
    err = outcome;
  }
  return { error: await errorResponse(err, c).json() };
};

/** Stateless: no session lives between requests, so there is no SSE stream to GET and no session to DELETE. */
function methodNotAllowed(c: Context) {
  const res = errorResponse(new AppError("METHOD_NOT_ALLOWED", `${c.req.method} is not supported on /mcp: send JSON-RPC with POST`), c);
  res.headers.set("Allow", "POST");
  return res;
}

/** A JSON-RPC error that answers no request in particular (`id: null`, JSON-RPC 2.0 §5.1), as HTTP 400. */
const rpcError = (c: Context, code: ErrorCode, message: string) => c.json({ jsonrpc: "2.0", error: { code, message }, id: null }, 400);

/** The `arguments` of each tools/call request as sent, by request id (see SentArguments). */
function sentArguments(messages: unknown[]): SentArguments | undefined {
  const sent: SentArguments = new Map();
  for (const message of messages as { id?: RequestId; method?: unknown; params?: { arguments?: unknown } }[]) {
    if (message.id === undefined || message.method === undefined) continue; // a response or a notification
    // The SDK answers a batch by its requests' ids: two requests with one id would swap answers (and arguments).
    if (sent.has(message.id)) return undefined;
    sent.set(message.id, message.method === "tools/call" ? message.params?.arguments : undefined);
  }
  return sent;
}

/**
 * The body as JSON-RPC messages, or the protocol's error: −32700 (Parse error) for bytes that are not UTF-8 JSON,
 * −32600 (Invalid Request) for JSON that is not a JSON-RPC message (the SDK would call that a parse error too) or a
 * batch that repeats a request id.
 */
async function rpcBody(c: Context): Promise<{ body: unknown; sent: SentArguments } | { refusal: Response }> {
  // Bytes that are not UTF-8 would reach the tools as U+FFFD: malformed, like JSON that does not parse.
  if (!isUtf8(await c.req.arrayBuffer())) return { refusal: rpcError(c, ErrorCode.ParseError, "Parse error: the body is not valid UTF-8") };
  let body: unknown;
  try {
    // Earlier middleware may have read the body (Hono caches it), so it is parsed here and handed to the transport.
    body = JSON.parse(await c.req.text());
  } catch {
    return { refusal: rpcError(c, ErrorCode.ParseError, "Parse error: the body is not JSON") };
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || !messages.every((message) => JSONRPCMessageSchema.safeParse(message).success)) {
    return { refusal: rpcError(c, ErrorCode.InvalidRequest, "Invalid Request: the body is not a JSON-RPC 2.0 message") };
  }
  const sent = sentArguments(messages);
  if (!sent) return { refusal: rpcError(c, ErrorCode.InvalidRequest, "Invalid Request: two requests of the batch have the same id") };
  return { body, sent };
}

const ProtectedResourceMetadata = z
  .object({
    resource: z.string().openapi({ description: "The MCP endpoint, `<base>/mcp`", example: "http://127.0.0.1:8787/mcp" }),
    authorization_servers: z
      .array(z.string())
      .openapi({ description: "This service itself (`<base>`): its OAuth metadata is at /.well-known/oauth-authorization-server" }),
    bearer_methods_supported: z.array(z.literal("header")),
    scopes_supported: z.array(z.enum(SCOPES)),
    resource_documentation: z.string().openapi({ example: "http://127.0.0.1:8787/docs" }),
  })
  .openapi("ProtectedResourceMetadata");

const protectedResource = createRoute({
  method: "get",
  operationId: "getProtectedResourceMetadata",
  path: PROTECTED_RESOURCE_METADATA,
  ...publicRoute("Account"),
  summary: "OAuth 2.0 Protected Resource Metadata (RFC 9728) of the MCP endpoint",
  description:
    "Where an MCP client learns how to authenticate: every 401 names this document in its `WWW-Authenticate` header " +
    '(`Bearer realm="pm", resource_metadata="<base>/.well-known/oauth-protected-resource"`). Credentials go in a header ' +
    "(`Authorization: Bearer <token>` or `svc-api-key`); `scopes_supported` are the scopes a key or token may carry; `authorization_servers` names " +
    "this service, where an agent host gets a token by OAuth (docs/clients.md).",
  responses: { 200: jsonResponse(ProtectedResourceMetadata, "The metadata") },
});
/** RFC 9728 §3.1's form for the resource `<base>/mcp` (the well-known name before its path): the same document. */
const protectedResourceOfMcp = createRoute({
  ...protectedResource,
  operationId: "getMcpProtectedResourceMetadata",
  path: `${PROTECTED_RESOURCE_METADATA}/mcp`,
  summary: "The same metadata at RFC 9728's path form for the resource <base>/mcp",
  description:
    "What `/.well-known/oauth-protected-resource` answers: a client that builds the URL from the resource's path (RFC 9728 §3.1) finds it here.",
});

const resourceMetadata = (c: Context) => {
  const base = publicBaseUrl(c);
  return c.json(
    {
      resource: `${base}/mcp`,
      authorization_servers: [base],
      bearer_methods_supported: ["header" as const],
      scopes_supported: [...SCOPES],
      resource_documentation: `${base}/docs`,
    },
    200,
  );
};

/**
 * The resource metadata (public), and `POST /mcp`: Model Context Protocol over Streamable HTTP. The caller is loaded first, so a bad credential is HTTP
 * 401 (with the `WWW-Authenticate` challenge), the cue an MCP client re-authenticates on, and never a tool error; then
 * the body must be JSON-RPC, and a fresh server and transport answer this request alone, in JSON.
 * `/mcp` is not in the OpenAPI document: its body is JSON-RPC, described by the MCP specification. It offers `tools`.
 */
export const mcpRoutes = (tools: () => readonly Tool[]) => {
  let box: Toolbox | undefined;
  return newRouter()
    .openapi(protectedResource, resourceMetadata)
    .openapi(protectedResourceOfMcp, resourceMetadata)
    .post("/mcp", declaring<CallerEnv>(RPC), withCaller, async (c) => {
      const context = await toolContext(c);
      const parsed = await rpcBody(c);
      if ("refusal" in parsed) return parsed.refusal;
      box ??= toolbox(tools());
      const server = mcpServer(box, context, parsed.sent, (...failure) => failedCall(c, ...failure));
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(c.req.raw, { parsedBody: parsed.body });
      } finally {
        await server.close();
      }
    })
    .on(["GET", "DELETE"], "/mcp", methodNotAllowed);
};
