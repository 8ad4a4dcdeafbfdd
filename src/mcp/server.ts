import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool as McpTool,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { ValidationError } from "../core/errors";
import type { Scope } from "../core/scopes";
import { zodErrors } from "../http/validation";
import { unkeepableText } from "../middleware/body-guard";
import { DEFAULT_LIMIT, FILTER_OPS, MAX_LIMIT } from "../store/list";
import { toolSchema } from "./json-schema";
import type { Tool, ToolContext } from "./tools";

const INSTRUCTIONS =
  "Project management for a workspace: teams, projects with milestones, labels and tasks (referenced like ENG-12) with their " +
  "comments, and what changed (a task's history; the workspace's event stream, resumed with the last event id seen). Each " +
  "tool stands for the REST operation it names, acts with the caller's own permissions and the scopes of its key (the tools " +
  "listed are the ones it may call) and answers the REST API's JSON (structuredContent, and the same as text); a refusal is a " +
  "tool error whose text is {error:{code,message}} or, for invalid arguments, {errors:{field:[message]}}. Records go by id or " +
  "by name: a task `ENG-12`, a project `ENG-P3`, a cycle `ENG-C3`, a team its prefix `ENG`, a user their email, a label its name (any case). " +
  "A list answers {<records>: [...], pagination}: pass pagination.nextCursor back as `cursor` for the next page; `fields` " +
  `narrows each record ("id,name,team{prefix}"); \`limit\` is 1..${MAX_LIMIT} (default ${DEFAULT_LIMIT}); \`filter\` is ` +
  `{<op>: {<field>: value}} with ops ${FILTER_OPS.join(", ")} (\`in\` takes an array; null matches null; filters combine ` +
  'with AND); `sort` is {<field>: "asc"|"desc"} in order of precedence (default createdAt ascending). A write\'s answer ' +
  "also has `position`: its last event's id (events after it: list_events with after).";

const describe = (tool: Tool): McpTool => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: toolSchema(tool.input, "input") as McpTool["inputSchema"],
  // What the REST route answers; MCP wants an object schema, and every tool answers an object.
  outputSchema: toolSchema(tool.output, "output") as McpTool["outputSchema"],
  // destructiveHint means something only for a tool that writes (openWorldHint is left out: each byte here is in every
  // agent's context, and no host acts on it).
  annotations: tool.readOnly ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: tool.destructive },
});

// The JSON Schemas are derived once per isolate and tool, on the first tools/list (not at startup).
const described = new WeakMap<Tool, McpTool>();
const describedOnce = (tool: Tool): McpTool => {
  const found = described.get(tool) ?? describe(tool);
  described.set(tool, found);
  return found;
};

/** An app's tools: in their order, and by name. */
export interface Toolbox {
  tools: readonly Tool[];
  byName: ReadonlyMap<string, Tool>;
}
export const toolbox = (tools: readonly Tool[]): Toolbox => ({ tools, byName: new Map(tools.map((tool) => [tool.name, tool])) });

/** The tools a credential of `scopes` may call. */
const listTools = ({ tools }: Toolbox, scopes: readonly Scope[]): McpTool[] =>
  tools.filter((tool) => tool.scopes === null || tool.scopes.some((scope) => scopes.includes(scope))).map(describedOnce);

/** A tool's answer: the REST body as text and as structuredContent, which validates against the tool's outputSchema. */
const toolResult = (body: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(body) }],
  structuredContent: body,
});

/**
 * A refusal: the REST error body as text only. structuredContent must match the outputSchema whenever it is present
 * (the SDK's Client checks it on error results too, and would turn the tool error into a protocol error), and an
 * error body is not the answer the schema describes.
 */
const toolError = (body: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(body) }],
  isError: true,
});

/**
 * A tool's answer, or its refusal as REST words it and in REST's order of checks: the caller loaded for the tool's scope
 * (403 with details.requiredScope without it), then the arguments (422), then the operation itself.
 */
async function callTool(ctx: ToolContext, tool: Tool, rawArgs: Record<string, unknown>): Promise<Record<string, unknown>> {
  const caller = ctx.caller.requiring(tool.scopes);
  await caller.principal();
  // The checks every REST body gets before its handler (http/body-guard), on the tool's arguments.
  const unkeepable = unkeepableText(rawArgs);
  if (Object.keys(unkeepable).length) throw new ValidationError(unkeepable);
  const args = tool.input.safeParse(rawArgs);
  if (!args.success) throw new ValidationError(zodErrors(args.error));
  return tool.run({ caller }, args.data as never);
}

/**
 * Each tools/call's `arguments` as the client sent them (JSON.parse'd), by request id. The SDK hands its handler a copy
 * rebuilt by its zod schema, in which a `__proto__` key has become the copy's prototype and vanished: the tools take the
 * arguments as sent, so they are checked as a REST body is (a `__proto__` key is 422, never dropped unseen).
 */
export type SentArguments = Map<RequestId, unknown>;

/**
 * What a failed tool call answers: the REST error body (`error`), or, for a write whose connection was lost after it
 * went out and that the request's settling found committed, the tool's answer after all (`result`).
 */
export type FailedCall = (
  err: unknown,
  tool: Tool,
  args: Record<string, unknown>,
) => Promise<{ result: Record<string, unknown> } | { error: Record<string, unknown> }>;

/**
 * The MCP server of one request. It is the SDK's low-level Server because McpServer validates arguments itself
 * and words the failure its own way, while here invalid arguments are the REST API's 422 body. `failed` renders
 * any error as the REST API would (the one error mapper, and the one settling rule), so a refusal is a tool error,
 * never a crash. A method it has no handler for is the SDK's −32601 (Method not found).
 */
export function mcpServer(box: Toolbox, ctx: ToolContext, sent: SentArguments, failed: FailedCall): Server {
  const server = new Server({ name: "pm-api", version: "1.0.0" }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(box, (await ctx.caller.principal()).scopes) }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }, { requestId }) => {
    const tool = box.byName.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    // The SDK's schema let them through, so they are an object (or absent), as sent.
    const args = (sent.get(requestId) ?? {}) as Record<string, unknown>;
    try {
      const body = await callTool(ctx, tool, args);
      // A write's answer names its position (PM-Position in REST: docs/api.md), read with the write (its COMMIT's query, or its HTTP transaction).
      const position = tool.readOnly ? undefined : ctx.caller.position;
      return toolResult(position ? { ...body, position } : body);
    } catch (err) {
      const answer = await failed(err, tool, args);
      return "result" in answer ? toolResult(answer.result) : toolError(answer.error);
    }
  });
  return server;
}
