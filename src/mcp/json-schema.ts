import { z } from "@hono/zod-openapi";
import { isLoose } from "../http/tool-input";

type Schema = Record<string, unknown>;

/** Any JSON value, said with keywords (a keyword-less `{}` is refused by strict hosts). */
const ANY_JSON: Schema = { anyOf: ["string", "number", "boolean", "null", "array", "object"].map((type) => ({ type })) };

const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);
const isEmpty = (value: unknown) => isSchema(value) && Object.keys(value).length === 0;

/** Keywords whose value is one subschema, and those whose value is a list or a map of them. */
const ONE = ["items", "additionalProperties", "propertyNames", "not"];
const LIST = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP = ["properties", "$defs"];

/**
 * One node, made what every host accepts and an agent affords: no `type` arrays (`["string","null"]` becomes anyOf), no
 * keyword-less subschema (an empty `items` or `additionalProperties` says nothing and goes; an empty property is any JSON
 * value, said so), and nothing the tools' own zod check makes redundant: the pattern that restates a `format`, the
 * integer bounds that are only JavaScript's safe range, and (in an answer) descriptions.
 */
function compact(node: Schema, output: boolean, depth = 0): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || (output && key === "description")) continue;
    // An answer may grow keys (additionalProperties: false is the input's guard).
    if (output && key === "additionalProperties" && value === false) continue;
    if (key === "pattern" && "format" in node) continue;
    // Length bounds a sensible value never meets (non-empty; ids' 100, titles' 500, texts' 100,000): the tool's zod check
    // still holds them, and answers a value out of bounds with REST's 422.
    if ((key === "maxLength" && (value as number) >= 100) || (key === "minLength" && value === 1)) continue;
    if ((key === "minimum" || key === "maximum") && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) continue;
    if (ONE.includes(key) && isSchema(value)) {
      if (!isEmpty(value)) out[key] = compact(value, output, depth);
    } else if (LIST.includes(key) && Array.isArray(value)) {
      // A union of unions is one union: `[{anyOf: [a, b]}, c]` is `[a, b, c]`.
      out[key] = value.flatMap((item) => {
        if (!isSchema(item)) return [item];
        const one = compact(item, output, depth);
        return key === "anyOf" && Object.keys(one).join() === "anyOf" ? (one.anyOf as Schema[]) : [one];
      });
    } else if (key === "properties" && output && depth + 1 >= RECORD_DEPTH && isSchema(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, isEmpty(sub) ? ANY_JSON : shallow(sub as Schema)]));
    } else if (MAP.includes(key) && isSchema(value)) {
      const inner = key === "properties" ? depth + 1 : depth;
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, isEmpty(sub) ? ANY_JSON : compact(sub as Schema, output, inner)]),
      );
    } else {
      out[key] = value;
    }
  }
  // Property names are strings in JSON anyway.
  if (isSchema(out.propertyNames) && Object.keys(out.propertyNames).join() === "type") delete out.propertyNames;
  // Every object of an answer says which keys it always has (strict hosts warn otherwise).
  if (output && "properties" in out && !("required" in out)) out.required = [];
  if (!Array.isArray(out.type)) return out;
  // The keywords of the non-null type stay with it; a description stays on top.
  const { type, description, ...rest } = out as { type: string[]; description?: string };
  const anyOf = type.map((one) => (one === "null" ? { type: one } : { type: one, ...rest }));
  return description === undefined ? { anyOf } : { description, anyOf };
}

/**
 * How deep an answer's schema goes: its envelope (`{task}`, `{tasks, pagination}`, `{deleted}`) with its required keys.
 * The records in it are said to be objects (and their lists arrays), no more: their fields are the REST API's,
 * documented once in the OpenAPI document (and named by each list tool's filters). Spelling them in every tool cost an
 * agent more than half of tools/list (kept within 20 KB: docs/clients.md).
 */
const RECORD_DEPTH = 1;

/** A value inside the envelope: its type (object or array, nullable or not), or the scalar's own schema. */
function shallow(node: Schema): Schema {
  if (Array.isArray(node.anyOf)) return { anyOf: node.anyOf.map((branch) => shallow(branch as Schema)) };
  if (Array.isArray(node.type)) return { anyOf: node.type.map((type) => shallow({ ...node, type })) };
  if (node.type === "object" || node.type === "array") return { type: node.type };
  return compact(node, true, RECORD_DEPTH);
}

/** A tool's inputSchema or outputSchema: its zod schema's JSON Schema, compacted (see compact). */
export function toolSchema(schema: z.ZodType, io: "input" | "output"): Schema {
  const json = z.toJSONSchema(schema, {
    io,
    override({ zodSchema, jsonSchema }) {
      if (!isLoose(zodSchema)) return;
      for (const key of Object.keys(jsonSchema)) if (key !== "type" && key !== "description") delete jsonSchema[key];
    },
  });
  return compact(json as Schema, io === "output");
}
