// Hostile input (issue 9): what an attacker or a broken client sends, through HTTP against the real database.
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, patch, post } from "./helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "./helpers/fixtures";
import { assertConforms, type Operation, servedOpenApi } from "./helpers/openapi-conformance";

type Json = Record<string, any>;

/** A request sent as given (streamed bodies, odd methods), its answer checked against the document like api()'s. */
async function raw(method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit } = {}) {
  const url = `http://api.test${path}`;
  const res: Response = await (exports as any).default.fetch(
    new Request(url, { method, headers: init.headers, body: init.body, duplex: "half" } as RequestInit),
  );
  const text = await res.text();
  await assertConforms(method, url, res.status, res.headers, text);
  const json = res.headers.get("content-type")?.includes("application/json");
  return { status: res.status, headers: res.headers, text, body: json ? JSON.parse(text) : null };
}

/** The document's schema at a `$ref` (or the schema itself). */
function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  if (!schema?.$ref) return schema;
  return resolve(
    doc,
    schema.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: Json, part: string) => node?.[part], doc),
  );
}

/** Every string schema under `schema` (properties, items, unions), with its JSON path. */
function* strings(doc: Json, schema: Json | undefined, path: string): Generator<[string, Json]> {
  const s = resolve(doc, schema);
  if (!s) return;
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes("string")) yield [path, s];
  for (const [name, sub] of Object.entries((s.properties ?? {}) as Json)) yield* strings(doc, sub, path ? `${path}.${name}` : name);
  if (s.items) yield* strings(doc, s.items, `${path}.0`);
  for (const key of ["anyOf", "oneOf", "allOf"]) for (const sub of (s[key] ?? []) as Json[]) yield* strings(doc, sub, path);
}

/** Formats whose syntax fixes the length. */
const FIXED_FORMATS = ["date", "date-time"];
const bodySchema = (doc: Json, op: Operation) => resolve(doc, op.op.requestBody?.content?.["application/json"]?.schema);
/**
 * The import routes take a whole export document (up to 32 MiB); its bounds are the import planner's, not these
 * per-field ones.
 */
const IMPORT = /\/import$/;
const checked = () => ops.filter((op) => !IMPORT.test(op.path));

/** A concrete path for a template: every `{param}` an id that exists nowhere. */
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, "x_nothing");

let tenant: Tenant;
let team: TeamFixture;
let ops: Operation[];
let doc: Json;

beforeAll(async () => {
  tenant = await newTenant("Hostile");
  team = await newTeam(tenant);
  const openapi = await servedOpenApi();
  doc = openapi.doc;
  ops = openapi.operations();
});

describe("the document bounds every string a request carries", () => {
  it("every string in every JSON request body has a maxLength (or is an enum)", () => {
    const unbounded = checked().flatMap((op) =>
      [...strings(doc, bodySchema(doc, op), "")]
        .filter(([, s]) => s.maxLength === undefined && s.enum === undefined && s.const === undefined && !FIXED_FORMATS.includes(s.format))
        .map(([path]) => `${op.method.toUpperCase()} ${op.path} ${path}`),
    );
    expect(unbounded).toEqual([]);
  });

  it("every string query parameter has a maxLength (or is an enum)", () => {
    const unbounded = checked().flatMap((op) =>
      ((op.op.parameters ?? []) as Json[])
        .map((p) => resolve(doc, p)!)
        .filter((p) => p.in === "query" && p.schema?.type === "string" && p.schema.maxLength === undefined && !p.schema.enum)
        .map((p) => `${op.method.toUpperCase()} ${op.path} ?${p.name}`),
    );
    expect(unbounded).toEqual([]);
  });
});

/** A body with every required string of `schema` set to "x" (so a route's 400 for a missing id does not hide the 422). */
function required(schema: Json | undefined): Json {
  const s = resolve(doc, schema);
  const body: Json = {};
  for (const name of (s?.required ?? []) as string[]) if (resolve(doc, s!.properties[name])?.type === "string") body[name] = "x";
  return body;
}

/** The top-level body fields that are strings (or arrays of strings) with a maxLength. */
function boundedFields(schema: Json | undefined): { name: string; max: number; plain: boolean; array: boolean }[] {
  const s = resolve(doc, schema);
  return Object.entries((s?.properties ?? {}) as Json).flatMap(([name, sub]) => {
    const p = resolve(doc, sub)!;
    const options = [p, ...((p.anyOf ?? []) as Json[]).map((x) => resolve(doc, x)!)];
    const string = options.find((o) => o.type === "string" && o.maxLength !== undefined);
    const items = options.map((o) => (o.type === "array" ? resolve(doc, o.items) : undefined)).find((i) => i?.maxLength !== undefined);
    const bound = string ?? items;
    if (!bound) return [];
    // A value of only "x"s breaks nothing but the length of a string without a pattern or format.
    return [{ name, max: bound.maxLength as number, plain: !bound.pattern && !bound.format, array: !string }];
  });
}

const jsonOps = () => checked().filter((op) => bodySchema(doc, op) !== undefined);

describe("strict schemas", () => {
  it("every JSON request body is a closed object", () => {
    const open = jsonOps()
      .filter((op) => bodySchema(doc, op)!.additionalProperties !== false)
      .map((op) => `${op.method.toUpperCase()} ${op.path}`);
    expect(open).toEqual([]);
  });

  it("an unknown field is 422 'Unknown field' on every POST and PATCH", async () => {
    expect(jsonOps().length).toBeGreaterThan(25);
    for (const op of jsonOps()) {
      const body = { ...required(bodySchema(doc, op)), surprise: "<script>" };
      const res = await api(op.method, concrete(op.path), { body, key: tenant.owner.key });
      expect(res.status, `${op.method} ${op.path}`).toBe(422);
      expect(res.body.errors.surprise, `${op.method} ${op.path}`).toEqual(["Unknown field"]);
    }
  });
});

describe("length limits", () => {
  it("a string one character over its bound is 422 on that field, at the bound it is not, in every body", async () => {
    let fields = 0;
    for (const op of jsonOps()) {
      const schema = bodySchema(doc, op);
      for (const { name, max, plain, array } of boundedFields(schema)) {
        fields++;
        const at = array ? `${name}.0` : name;
        const value = (n: number) => (array ? ["x".repeat(n)] : "x".repeat(n));
        const what = `${op.method.toUpperCase()} ${op.path} ${at} (max ${max})`;
        const over = await api(op.method, concrete(op.path), {
          body: { ...required(schema), [name]: value(max + 1) },
          key: tenant.owner.key,
        });
        expect(over.status, what).toBe(422);
        expect(over.body.errors[at], what).toBeDefined();
        if (!plain) continue;
        const atMax = await api(op.method, concrete(op.path), { body: { ...required(schema), [name]: value(max) }, key: tenant.owner.key });
        // The value may still be refused for what it means (an unknown token), never for its length.
        if (atMax.status === 422)
          for (const message of over.body.errors[at]) expect(atMax.body.errors[at] ?? [], what).not.toContain(message);
      }
    }
    expect(fields).toBeGreaterThan(40);
  });

  it("a query parameter over its bound is refused (400 or 422) on every operation", async () => {
    let params = 0;
    for (const op of checked()) {
      for (const p of ((op.op.parameters ?? []) as Json[]).map((x) => resolve(doc, x)!)) {
        if (p.in !== "query" || p.schema?.maxLength === undefined) continue;
        params++;
        const long = "x".repeat(p.schema.maxLength + 1);
        const res = await raw(op.method, `${concrete(op.path)}?${p.name}=${long}`, { headers: { "svc-api-key": tenant.owner.key } });
        const what = `${op.method.toUpperCase()} ${op.path}?${p.name}`;
        // The HTML page for people (GET /device) drops an over-long code and shows the empty form instead.
        if (res.headers.get("content-type")?.startsWith("text/html")) expect(res.text, what).not.toContain(long);
        else expect([400, 422], what).toContain(res.status);
      }
    }
    expect(params).toBeGreaterThan(30);
  });
});
