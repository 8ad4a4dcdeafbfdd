import { z } from "@hono/zod-openapi";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { ValidationError } from "../core/errors";
import { zodErrors } from "../http/validation";
import { unkeepableText } from "../middleware/body-guard";
import { TOOLS, type ToolContext } from "./tools";

const INSTRUCTIONS =
  "Project management for a workspace: teams, projects, labels and tasks (referenced like ENG-12), and what changed (a task's " +
  "history; the workspace's event stream, resumed with the last event id seen). Each tool acts with the " +
  "caller's own permissions and answers the REST API's JSON; a refusal is a tool error carrying {error:{code,message}} or, " +
  "for invalid arguments, {errors:{field:[message]}}.";

const byName = new Map(TOOLS.map((tool) => [tool.name, tool]));

// The JSON Schemas are derived once per isolate, on the first tools/list (not at startup).
let listed: McpTool[] | undefined;
const listTools = (): McpTool[] =>
  (listed ??= TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { io: "input" }) as McpTool["inputSchema"],
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: false },
  })));

const toolResult = (body: Record<string, unknown>, isError: boolean): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(body) }],
  structuredContent: body,
  ...(isError && { isError }),
});

/**
 * The MCP server of one request. It is the SDK's low-level Server because McpServer validates arguments itself
 * and words the failure its own way, while here invalid arguments are the REST API's 422 body. `errorBody` renders
 * any error as the REST API would (the one error mapper), so a refusal is a tool error, never a crash.
 */
export function mcpServer(ctx: ToolContext, errorBody: (err: unknown) => Promise<Record<string, unknown>>): Server {
  const server = new Server({ name: "pm-api", version: "1.0.0" }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = byName.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    try {
      // The checks every REST body gets before its handler (http/body-guard), on the tool's arguments.
      const unkeepable = unkeepableText(params.arguments ?? {});
      if (Object.keys(unkeepable).length) throw new ValidationError(unkeepable);
      const args = tool.input.safeParse(params.arguments ?? {});
      if (!args.success) throw new ValidationError(zodErrors(args.error));
      return toolResult(await tool.run(ctx, args.data as never), false);
    } catch (err) {
      return toolResult(await errorBody(err), true);
    }
  });
  return server;
}
