import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import { type CallerEnv, withCaller } from "../auth/middleware";
import { AppError, badRequest } from "../core/errors";
import { errorResponse } from "../http/error-mapper";
import { newRouter } from "../http/router";
import { isUtf8 } from "../middleware/body-guard";
import { mcpServer } from "./server";
import type { ToolContext } from "./tools";

/** What a tool needs of the request: its caller, loaded (an MCP client re-authenticates on HTTP 401, not on a tool error). */
async function toolContext(c: Context<CallerEnv>): Promise<ToolContext> {
  const caller = c.get("caller");
  await caller.principal();
  return { caller };
}

/** Stateless: no session lives between requests, so there is no SSE stream to GET and no session to DELETE. */
function methodNotAllowed(c: Context) {
  const res = errorResponse(new AppError("METHOD_NOT_ALLOWED", `${c.req.method} is not supported on /mcp: send JSON-RPC with POST`), c);
  res.headers.set("Allow", "POST");
  return res;
}

/**
 * `POST /mcp`: Model Context Protocol over Streamable HTTP. The caller is loaded first, so a bad credential is HTTP
 * 401, the cue an MCP client re-authenticates on, and never a tool error;
 * then a fresh server and transport answer this request alone, in JSON.
 * Not in the OpenAPI document: its body is JSON-RPC, described by the MCP specification.
 */
export const mcpRoutes = newRouter()
  .post("/mcp", withCaller, async (c) => {
    const context = await toolContext(c);
    // Earlier middleware may have read the body (Hono caches it), so the transport gets it parsed. Bytes that are not
    // UTF-8 would reach the tools as U+FFFD: malformed, like JSON that does not parse.
    if (!isUtf8(await c.req.arrayBuffer())) throw badRequest("The request body is not valid UTF-8");
    const body: unknown = await c.req.json().catch(() => {
      throw badRequest("Malformed JSON in request body");
    });
    const server = mcpServer(context, (err) => errorResponse(err, c).json());
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: body });
    } finally {
      await server.close();
    }
  })
  .on(["GET", "DELETE"], "/mcp", methodNotAllowed);
