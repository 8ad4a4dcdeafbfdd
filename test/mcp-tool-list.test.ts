// What tools/list costs an agent and what every host accepts of it (docs/clients.md): the answer for a key with every scope
// stays within BUDGET as JSON-RPC sends it, and each tool's schemas keep the rules strict hosts (and the MCP Inspector's
// strict mode) hold them to: no `type` arrays, no keyword-less subschema, every object of an answer declares `required`.

import { z } from "@hono/zod-openapi";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import clientsDoc from "../docs/clients.md?raw";
import { toolSchema } from "../src/mcp/json-schema";
import { serviceTools } from "../src/mcp/tools";

const TOOLS = serviceTools();

import { newTenant, type Tenant } from "./helpers/fixtures";
import { MCP_ACCEPT, MCP_URL, workerFetch } from "./mcp-client";

// 31 KB since bulk writes came (bulk_update_tasks, said briefly: 31,072 bytes for 39 tools, 1,051 of them its own);
// 30 KB since workflow states came (list_states, and a task's statusCategory and times in every task tool's answer):
// 30,021 bytes for 38 tools; 29 KB before, with the cycles' tools: 29,559 bytes for 37 (27.5 KB with the inbox's: 28,056
// for 35).
const BUDGET = 31 * 1024;
/** The keywords that give a subschema a meaning (JSON Schema 2020-12's type, combinators, values and references). */
const MEANING = ["type", "anyOf", "oneOf", "allOf", "not", "enum", "const", "$ref"];
/** Where subschemas sit: keywords holding one, a list, or a map of them. */
const ONE = ["items", "additionalProperties", "propertyNames", "not", "contains"];
const LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP = ["properties", "$defs", "patternProperties"];

type Schema = Record<string, any>;

/** Every subschema of `schema` with its JSON pointer. */
function* subschemas(schema: Schema, at = ""): Generator<[string, Schema]> {
  yield [at || "/", schema];
  for (const key of ONE) if (typeof schema[key] === "object") yield* subschemas(schema[key], `${at}/${key}`);
  for (const key of LIST) for (const [i, sub] of (schema[key] ?? []).entries()) yield* subschemas(sub, `${at}/${key}/${i}`);
  for (const key of MAP)
    for (const [name, sub] of Object.entries(schema[key] ?? {})) yield* subschemas(sub as Schema, `${at}/${key}/${name}`);
}

/** What a strict host warns about in one tool's schema. */
function problems(schema: Schema, output: boolean): string[] {
  const found: string[] = [];
  for (const [at, sub] of subschemas(schema)) {
    if (Array.isArray(sub.type)) found.push(`${at}: type array ${JSON.stringify(sub.type)}`);
    if (!MEANING.some((key) => key in sub)) found.push(`${at}: no keyword (${JSON.stringify(sub)})`);
    if (output && "properties" in sub && !Array.isArray(sub.required)) found.push(`${at}: object without required`);
  }
  return found;
}

let t: Tenant;
let text: string;
let tools: Schema[];

beforeAll(async () => {
  t = await newTenant("MCP tool list");
  const res = await workerFetch(MCP_URL, {
    method: "POST",
    headers: { "content-type": "application/json", accept: MCP_ACCEPT, "svc-api-key": t.owner.key },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  expect(res.status).toBe(200);
  text = await res.text();
  tools = JSON.parse(text).result.tools;
});

describe("tools/list", () => {
  it(`for a key with every scope lists every tool within ${BUDGET} bytes`, async () => {
    // The owner's key holds every scope, so it is shown every tool.
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    const bytes = new TextEncoder().encode(text).length;
    console.info(`tools/list: ${TOOLS.length} tools, ${bytes} bytes`);
    expect(bytes).toBeLessThanOrEqual(BUDGET);
  });

  it("is what docs/clients.md says: every tool named, their number, and the size to the hundred bytes", () => {
    const section = clientsDoc.slice(clientsDoc.indexOf("## MCP for agents"), clientsDoc.indexOf("### Agent hosts by URL"));
    const named = new Set([...section.matchAll(/`([a-z][a-z_]*)`/g)].map((m) => m[1]));
    expect(tools.map((tool) => tool.name).filter((name) => !named.has(name))).toEqual([]);
    const [, size, count] = /\*\*about ([\d,]+) bytes\*\* as JSON-RPC sends it, for (\d+) tools/.exec(section) ?? [];
    expect(Number(count)).toBe(tools.length);
    const bytes = new TextEncoder().encode(text).length;
    expect(Number(size?.replace(/,/g, "")), `the answer is ${bytes} bytes`).toBe(Math.round(bytes / 100) * 100);
  });

  it("every tool's schemas: no type arrays, no keyword-less subschemas, every answer object declares required", () => {
    const found = tools.flatMap((tool) => [
      ...problems(tool.inputSchema, false).map((p) => `${tool.name} input ${p}`),
      ...problems(tool.outputSchema, true).map((p) => `${tool.name} output ${p}`),
    ]);
    expect(found).toEqual([]);
  });

  it("every tool's schemas compile under ajv's strict mode (no unknown keywords, no union types, no ignored keywords)", () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    for (const tool of tools) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        expect(() => ajv.compile(schema), tool.name).not.toThrow();
      }
    }
  });

  it("toolSchema makes what zod emits acceptable: nullable values, unknown values, free-form maps, in inputs and answers", () => {
    const record = z.object({ note: z.string().nullable(), data: z.unknown(), extra: z.record(z.string(), z.unknown()) });
    const envelope = z.object({ item: record, items: z.array(record), also: z.unknown(), maybe: z.string().nullable() });
    expect(JSON.stringify(z.toJSONSchema(record))).toMatch(/"type":\["string","null"\]/);
    expect(problems(toolSchema(record, "input"), false)).toEqual([]);
    expect(problems(toolSchema(envelope, "output"), true)).toEqual([]);
    expect(toolSchema(envelope, "output")).toMatchObject({
      properties: { item: { type: "object" }, items: { type: "array" }, maybe: { anyOf: [{ type: "string" }, { type: "null" }] } },
      required: ["item", "items", "also", "maybe"],
    });
  });

  it("the checks fail on what they forbid", () => {
    expect(problems({ type: "object", properties: { a: { type: ["string", "null"] }, b: {} } }, true)).toEqual([
      "/: object without required",
      '/properties/a: type array ["string","null"]',
      "/properties/b: no keyword ({})",
    ]);
  });
});
