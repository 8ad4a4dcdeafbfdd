// An MCP tool as a resource declares it (its module's `tools`, src/http/module.ts): it stands for one REST operation
// (`rest`, e.g. `POST /tasks`) and calls that operation's function, its input the route's zod schema, its answer the
// route's. Its scope is the operation's route's (src/http/policy.ts), found by the MCP server (src/mcp/tools.ts), so a
// key may do through MCP exactly what it may do through REST.
import { z } from "@hono/zod-openapi";
import type { Caller } from "../auth/caller";

/** What a tool runs with: the request's caller, requiring the tool's scope, as a REST handler has it. */
export interface ToolContext {
  caller: Caller;
}

/** One tool as declared: its name and words, the REST operation it stands for, its schemas and what it runs. */
export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  rest: string;
  /** The tool it follows in tools/list, which agents read in order (default: after all before it). */
  after?: string;
  input: z.ZodType;
  output: z.ZodObject;
  run(ctx: ToolContext, args: never): Promise<Record<string, unknown>>;
}

/** A tool, typed: `run` gets what `input` parses to and answers what `output` describes. */
export const tool = <I extends z.ZodType, O extends z.ZodObject>(
  spec: Omit<ToolSpec, "input" | "output" | "run"> & {
    input: I;
    output: O;
    run(ctx: ToolContext, args: z.output<I>): Promise<z.output<O>>;
  },
): ToolSpec => spec as ToolSpec;

/** A page's `limit` and `cursor` as the query string GET would have taken (the operations parse and check them as GET's). */
export function pageQuery({ limit, cursor }: { limit?: number; cursor?: string }): URLSearchParams {
  const query = new URLSearchParams();
  if (limit !== undefined) query.set("limit", String(limit));
  if (cursor !== undefined) query.set("cursor", cursor);
  return query;
}

export const Cursor = z.string().optional().describe("pagination.nextCursor of the previous page");

/** A delete tool's answer (REST's 204 has no body). */
export const Deleted = z.object({ deleted: z.literal(true) });
