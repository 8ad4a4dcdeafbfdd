// Every response the workers suite receives is checked against the document the app serves (/openapi.json):
// the request's operation (path template and method), a response documented for the status, the body valid
// against that response's JSON schema (2020-12, as OpenAPI 3.1 uses) and the documented required headers present.

import { exports } from "cloudflare:workers";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

type Json = Record<string, any>;

export interface Operation {
  method: string;
  /** The document's path template, e.g. `/tasks/{id}`. */
  path: string;
  op: Json;
}

export interface OpenApi {
  doc: Json;
  /** The operation serving `method` on `pathname`, or null when the document has none. */
  operation(method: string, pathname: string): Operation | null;
  /** Every operation of the document. */
  operations(): Operation[];
  /** `value`, or what its `$ref` points at. */
  resolve(value: Json): Json;
  /** What is wrong with a response to `method url` (empty when it conforms). */
  problems(method: string, url: string, status: number, headers: Headers, text: string): string[];
}

let loading: Promise<OpenApi> | undefined;

/** The served document, fetched once per test file (isolate) and compiled lazily per schema. */
export function servedOpenApi(): Promise<OpenApi> {
  loading ??= (async () => {
    const res = await (exports as any).default.fetch(new Request("http://api.test/openapi.json"));
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    return openApi(await res.json());
  })();
  return loading;
}

const METHODS = ["get", "put", "post", "delete", "patch"];
const pointer = (parts: string[]) => parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

function openApi(doc: Json): OpenApi {
  // OpenAPI's own keywords (example, …) are not JSON Schema's: not strict about them.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi");
  const validators = new Map<string, ValidateFunction>();
  const validator = (at: string) => {
    let validate = validators.get(at);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi#/${at}` });
      validators.set(at, validate);
    }
    return validate;
  };

  // Literal paths before templates, so `/invites/redeem` is not taken for `/invites/{id}`.
  const templates = Object.keys(doc.paths)
    .map((path) => ({
      path,
      params: (path.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`),
    }))
    .sort((a, b) => a.params - b.params);

  const resolve = (value: Json) => resolveRef(doc, value);

  const operation = (method: string, pathname: string): Operation | null => {
    const verb = method.toLowerCase();
    for (const { path, pattern } of templates) {
      if (pattern.test(pathname) && doc.paths[path][verb]) return { method: verb, path, op: doc.paths[path][verb] };
    }
    return null;
  };

  const problems = (method: string, url: string, status: number, headers: Headers, text: string): string[] => {
    const found = operation(method, new URL(url).pathname);
    // Outside the document (unknown routes, the MCP endpoint, a method a path does not serve): only the error
    // shape is checked, which every JSON error of the app shares.
    if (!found) {
      if (status < 400 || !headers.get("content-type")?.includes("application/json")) return [];
      const schema = status === 422 ? "ValidationError" : "Error";
      return schemaProblems(validator(`components/schemas/${schema}`), text, `undocumented route, ${schema}`);
    }
    const { path, method: verb, op } = found;
    const statuses = op.responses as Json;
    const key = [String(status), `${String(status)[0]}XX`, "default"].find((candidate) => candidate in statuses);
    if (!key) return [`status ${status} is not documented (documented: ${Object.keys(statuses).join(", ")})`];
    const response = resolve(statuses[key]);
    const out: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      if (resolve(header).required && !headers.has(name)) out.push(`documented header ${name} is missing`);
    }
    const content = (response.content ?? {}) as Json;
    const type = headers.get("content-type")?.split(";")[0].trim() ?? "";
    if (Object.keys(content).length === 0) {
      if (text !== "") out.push(`the ${status} documents no body, got ${JSON.stringify(text.slice(0, 200))}`);
      return out;
    }
    // `*/*`: any type (an attachment's bytes keep the type they were uploaded with).
    if (!(type in content) && !("*/*" in content)) {
      out.push(`content-type ${JSON.stringify(type)} is not documented (${Object.keys(content).join(", ")})`);
      return out;
    }
    if (type !== "application/json" || !content[type].schema) return out;
    // A shared response ($ref to components/responses) holds its schema there: ajv follows $refs, not pointers through them.
    const responseAt = statuses[key].$ref?.replace(/^#\//, "") ?? pointer(["paths", path, verb, "responses", key]);
    return [...out, ...schemaProblems(validator(`${responseAt}/${pointer(["content", type, "schema"])}`), text, `${key} schema`)];
  };

  const operations = () =>
    Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ method, path, op: item[method] as Json })),
    );

  return { doc, operation, operations, problems, resolve };
}

/** `value`, or what its local `$ref` points at in `doc` (followed until it is no reference). */
export function resolveRef(doc: Json, value: Json): Json {
  if (typeof value?.$ref !== "string") return value;
  const parts = value.$ref.replace(/^#\//, "").split("/");
  return resolveRef(
    doc,
    parts.reduce((node: Json, part: string) => node?.[part.replaceAll("~1", "/").replaceAll("~0", "~")], doc),
  );
}

function schemaProblems(validate: ValidateFunction, text: string, what: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${what}: the body is not JSON: ${JSON.stringify(text.slice(0, 200))}`];
  }
  if (validate(body)) return [];
  return (validate.errors ?? [])
    .slice(0, 8)
    .map((error) => `${what}: ${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`);
}

/**
 * Throws when a response does not match the served document, naming the request and what differs, so the failing
 * test points at the call that received it.
 */
export async function assertConforms(method: string, url: string, status: number, headers: Headers, text: string) {
  const found = (await servedOpenApi()).problems(method, url, status, headers, text);
  if (found.length === 0) return;
  const path = new URL(url);
  throw new Error(
    `${method} ${path.pathname}${path.search} → ${status} does not match /openapi.json:\n  ${found.join("\n  ")}\n  body: ${text.slice(0, 500)}`,
  );
}
