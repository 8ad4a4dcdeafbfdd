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

describe("a method a path does not serve", () => {
  const VERBS = ["get", "post", "put", "patch", "delete"];
  /** What the document says is served on `path`: the methods of every template that matches it, as Allow lists them. */
  function documentedAllow(path: string): string[] {
    const served = new Set<string>();
    for (const [template, item] of Object.entries(doc.paths as Json)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      if (pattern.test(path)) for (const verb of VERBS) if (item[verb]) served.add(verb.toUpperCase());
    }
    if (served.has("GET")) served.add("HEAD");
    served.add("OPTIONS");
    return ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].filter((m) => served.has(m));
  }

  it("is 405 METHOD_NOT_ALLOWED with Allow on every documented path, as the document lists its methods", async () => {
    let checkedPaths = 0;
    for (const template of Object.keys(doc.paths)) {
      const path = concrete(template);
      // `/invites/redeem` is also `/invites/{id}`: a method either serves is served.
      const allow = documentedAllow(path);
      for (const verb of VERBS.filter((v) => !allow.includes(v.toUpperCase()))) {
        const res = await raw(verb.toUpperCase(), path, { headers: { "svc-api-key": tenant.owner.key } });
        const what = `${verb.toUpperCase()} ${template}`;
        expect(res.status, what).toBe(405);
        expect(res.headers.get("content-type"), what).toMatch(/application\/json/);
        expect(res.headers.get("allow"), what).toBe(allow.join(", "));
        expect(res.body.error, what).toEqual({
          code: "METHOD_NOT_ALLOWED",
          message: `${verb.toUpperCase()} is not allowed on ${path}`,
          details: { allowed: allow },
        });
        checkedPaths++;
      }
    }
    expect(checkedPaths).toBeGreaterThan(40);
  });

  it("PUT /tasks/{ref} is 405 with Allow: GET, HEAD, PATCH, DELETE, OPTIONS, and writes nothing", async () => {
    const task = await post("/tasks", { teamId: team.id, title: "Stays" }, tenant.owner.key);
    const res = await raw("PUT", `/tasks/${task.body.task.reference}`, {
      headers: { "svc-api-key": tenant.owner.key, "content-type": "application/json" },
      body: JSON.stringify({ title: "Replaced" }),
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD, PATCH, DELETE, OPTIONS");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect((await get(`/tasks/${task.body.task.id}`, tenant.owner.key)).body.task.title).toBe("Stays");
  });

  it("an unknown path stays 404 whatever the method", async () => {
    for (const method of ["GET", "PUT", "POST", "DELETE", "PATCH"]) {
      for (const path of ["/nope", "/tasks/x/nope", "/tasksx"]) {
        const res = await raw(method, path);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error, `${method} ${path}`).toEqual({ code: "NOT_FOUND", message: `No route for ${method} ${path}` });
        expect(res.headers.get("allow")).toBeNull();
      }
    }
  });

  it("a CORS preflight still answers 204 with the CORS headers", async () => {
    const res = await raw("OPTIONS", "/tasks/ENG-1", {
      headers: { origin: "https://app.example", "access-control-request-method": "PATCH", "access-control-request-headers": "svc-api-key" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
  });

  it("the document says so once, for every path", () => {
    expect(doc.info.description).toContain("405 `METHOD_NOT_ALLOWED`");
  });
});

describe("body limits", () => {
  const MiB = 1024 * 1024;
  /** A JSON body of exactly `bytes` bytes whose only field is `name`. */
  const bodyOf = (bytes: number, name = "title") => {
    const shell = JSON.stringify({ [name]: "" });
    return `${shell.slice(0, -2)}${"x".repeat(bytes - shell.length)}"}`;
  };
  /** The same bytes as a stream: chunked, no Content-Length, the limit found only while reading. */
  const streamOf = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(at, at + 64 * 1024));
        at += 64 * 1024;
      },
    });
  };
  const ROUTES: [string, string][] = [
    ["POST", "/tasks"],
    ["PATCH", "/tasks/x_nothing"],
    ["POST", "/comments"],
    ["POST", "/labels"],
    ["POST", "/batch"],
    ["POST", "/signup/start"],
  ];

  it.each(ROUTES)("%s %s: over 1 MiB is 413 PAYLOAD_TOO_LARGE, with or without Content-Length; 1 MiB is read", async (method, path) => {
    const headers = { "svc-api-key": tenant.owner.key, "content-type": "application/json" };
    for (const body of [bodyOf(MiB + 1), streamOf(bodyOf(MiB + 1)), streamOf(bodyOf(8 * MiB))]) {
      const res = await raw(method, path, { headers, body });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ error: { code: "PAYLOAD_TOO_LARGE", message: "Request body is larger than 1 MiB" } });
    }
    for (const body of [bodyOf(MiB), streamOf(bodyOf(MiB))]) {
      const res = await raw(method, path, { headers, body });
      expect(res.status).not.toBe(413);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
  });
});
