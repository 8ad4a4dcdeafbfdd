// An MCP tool as a resource declares it (its module's `tools`, src/http/module.ts): it stands for one REST operation
// (`rest`, e.g. `POST /tasks`) and calls that operation's function, its input the route's zod schema, its answer the
// route's. Its scope is the operation's route's (src/http/policy.ts), found by the MCP server (src/mcp/tools.ts), so a
// key may do through MCP exactly what it may do through REST.
import { z } from "@hono/zod-openapi";
import type { Caller } from "../auth/caller";
import { type ListParams, type ListSpec, listBody } from "../store/list";
import { paginated } from "./route-schemas";
import { describeList, type ListArgs, ListInput, listQuery } from "./tool-input";

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
  /**
   * Its place in tools/list, which agents read in order: tools sort by rank (the service's from 10 in steps of 10, so
   * that a tool finds its place without naming another module's); one without a rank comes after them, in the modules' order.
   */
  rank?: number;
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

/** What a list tool needs of a record: its list spec (filters, sorts, cursors) and its `fields`-narrowed answer schema. */
interface Listed {
  list: ListSpec;
  selection: z.ZodObject;
}

/** A list tool: GET /<key>'s parameters and page, through the same list spec and query. */
export const listTool = (
  key: string,
  record: Listed,
  list: (caller: Caller, params: ListParams) => Promise<Record<string, unknown>[]>,
  about = "",
) =>
  tool({
    name: `list_${key}`,
    title: `List ${key}`,
    description: `The workspace's ${key} (GET /${key}).${about} ${describeList(record.list)}`,
    rest: `GET /${key}`,
    input: ListInput,
    output: paginated(key, record.selection),
    async run(ctx, args: ListArgs) {
      const params = await ctx.caller.listParams(record.list, listQuery(args));
      return listBody(key, params, await list(ctx.caller, params));
    },
  });

/** A DELETE /<key>/{id} tool: the record by id or name, answered {deleted: true} (REST's 204 has no body). */
export const deleteTool = (
  noun: string,
  key: string,
  ref: z.ZodType<string>,
  remove: (caller: Caller, id: string) => Promise<void>,
  about = "",
) =>
  tool({
    name: `delete_${noun}`,
    title: `Delete a ${noun}`,
    description: `Deletes a ${noun} (DELETE /${key}/{id}).${about}`,
    rest: `DELETE /${key}/{id}`,
    input: z.object({ id: ref }).strict(),
    output: Deleted,
    async run(ctx, { id }) {
      await remove(ctx.caller, id);
      return { deleted: true as const };
    },
  });

/** A POST /<key> tool: the REST body as its input, answered `{<noun>: record}` as REST's 201 is. */
export const createTool = <In>(
  noun: string,
  key: string,
  body: z.ZodType,
  record: z.ZodType,
  create: (caller: Caller, input: In) => Promise<unknown>,
  description: string,
) =>
  tool({
    name: `create_${noun}`,
    title: `Create a ${noun}`,
    description,
    rest: `POST /${key}`,
    input: body,
    output: z.object({ [noun]: record }),
    async run(ctx, input) {
      return { [noun]: await create(ctx.caller, input as In) };
    },
  });

/** A PATCH /<key>/{id} tool: the record by id or name and the REST body's fields, answered `{<noun>: record}`. */
export const updateTool = <In>(
  noun: string,
  key: string,
  ref: z.ZodType<string>,
  changes: z.ZodObject,
  record: z.ZodType,
  update: (caller: Caller, id: string, input: In) => Promise<unknown>,
  description: string,
) =>
  tool({
    name: `update_${noun}`,
    title: `Update a ${noun}`,
    description,
    rest: `PATCH /${key}/{id}`,
    input: z.object({ id: ref, ...changes.shape }).strict(),
    output: z.object({ [noun]: record }),
    async run(ctx, { id, ...fields }) {
      return { [noun]: await update(ctx.caller, id as string, fields as In) };
    },
  });
