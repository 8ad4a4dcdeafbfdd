import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { ERROR_STATUS, type ErrorCode } from "../core/errors";
import { SCOPE_WORDS, type Scope } from "../core/scopes";
import { oauthErrorOf } from "./oauth-error-body";
import { documentGenericFailures } from "./openapi-failures";
import { documentRateLimits, RATE_LIMIT_HEADERS } from "./openapi-rate-limit";
import type { RoutePolicy } from "./policy";

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "NOT_FOUND" }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi("Error", { description: "Every error but validation: a stable `code`, a human `message`, optional `details`." });

export const ValidationErrorBody = z.object({ errors: z.record(z.string(), z.array(z.string())) }).openapi("ValidationError", {
  description: "422: the messages per invalid field (dotted path; `body` for the body as a whole).",
  example: { errors: { code: ["Must be exactly 6 characters"] } },
});

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

const errorResponsesMade = new Map<string, Record<number, ReturnType<typeof json>>>();

/**
 * Documented error responses for a route: one entry per status, plus 422 when `validation` is set. Made once per list
 * and shared by the routes that spread it: an object keyed by statuses holds an array as long as the largest, and every
 * route makes one as the Worker loads (docs/performance.md, "Cold start").
 */
export function errorResponses(codes: ErrorCode[], opts: { validation?: boolean } = {}) {
  const key = `${codes.join()}${opts.validation ? ",422" : ""}`;
  let out = errorResponsesMade.get(key);
  if (!out) {
    out = {};
    for (const code of codes) out[ERROR_STATUS[code]] = json(ErrorBody, code);
    if (opts.validation) out[422] = json(ValidationErrorBody, "Validation failed");
    errorResponsesMade.set(key, out);
  }
  return out;
}

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { "application/json": { schema } } },
});
export const jsonResponse = json;

/** 201 of a POST that creates a resource: `created()` (http/schemas) sets `Location` to the new resource's path. */
export const createdResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  ...json(schema, `${description}; \`Location\` is the new resource's path`),
  headers: { Location: ref("headers", "Location") },
});

export const security: Array<Record<string, string[]>> = [{ ApiKey: [] }, { Bearer: [] }];

// ---- the document as a whole ----

type Document = ReturnType<OpenAPIHono["getOpenAPI31Document"]>;
type Json = Record<string, unknown>;
const ref = (kind: "headers" | "parameters" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Headers every response carries, whatever the route (request id, timing: docs/api.md, conventions). */
const COMMON_HEADERS = ["x-request-id", "Server-Timing"];

const HEADERS: Record<string, Json> = {
  "x-request-id": {
    required: true,
    description: "The request's id: the client's `x-request-id` when it sent one, else a new one.",
    schema: { type: "string" },
  },
  "Server-Timing": {
    required: true,
    description: 'Database time and round trips (`db;dur=<ms>;desc="<n> queries"`), transactions opened, and `total;dur=<ms>`.',
    schema: { type: "string" },
  },
  ETag: {
    required: true,
    description: 'Weak entity tag of the body (`W/"…"`); send it back in `If-None-Match` to get 304 while it is unchanged.',
    schema: { type: "string" },
  },
  Location: { required: true, description: "Path of the created resource, e.g. `/tasks/task_…`.", schema: { type: "string" } },
  "PM-Position": {
    required: false,
    description:
      "The write's position: the id of the last event its transaction wrote (or, when it wrote none, the workspace's latest event at its commit), the value `GET /events?after=` takes. Send it as `PM-Min-Position` on a later GET to read nothing older, through any location. On every successful write of a workspace (`POST /batch` reads only).",
    schema: { type: "string", pattern: "^evt_[0-9a-z]{26}$" },
  },
  "Idempotent-Replayed": {
    required: false,
    description: "`true` on an answer replayed for a repeated `Idempotency-Key` (the work was not done again).",
    schema: { type: "string", enum: ["true"] },
  },
};

/**
 * Registers what the document's operations refer to: the two credentials and the shared headers, parameters and
 * responses. Call once per app, before the first document is generated.
 */
export function registerOpenApiComponents(registry: OpenAPIHono["openAPIRegistry"]) {
  registry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "svc-api-key",
    description: "An API key (sign-up, login, invites, POST /api-keys, agents).",
  });
  registry.registerComponent("securitySchemes", "Bearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "An ES256 JWT from the device flow (POST /auth/device/token).",
  });
  for (const [name, header] of Object.entries({ ...HEADERS, ...RATE_LIMIT_HEADERS })) registry.registerComponent("headers", name, header);
  registry.registerComponent("parameters", "IfNoneMatch", {
    name: "If-None-Match",
    in: "header",
    required: false,
    description: "An `ETag` of an earlier answer: 304 without a body while the answer is unchanged.",
    schema: { type: "string" },
  });
  registry.registerComponent("parameters", "MinPosition", {
    name: "PM-Min-Position",
    in: "header",
    required: false,
    description:
      "A write's `PM-Position`: the answer is no older than that position. An answer stored at the edge (asked for with `Cache-Control: max-age`) is served only if it was fetched at that position; otherwise the origin answers (docs/edge.md). A value that is not an event of the caller's workspace is 400 naming this header.",
    schema: { type: "string" },
  });
  registry.registerComponent("parameters", "IdempotencyKey", {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      "1 to 255 characters, e.g. a UUID: a repeat of this request with the same key within 24 h answers what the first answered (status, body, `Location`, with `Idempotent-Replayed: true`) without doing the work again; the same key with a different request is 422, and a repeat while the first is still running is 409. Kept per user and workspace (per client address on the public routes); only successes are kept.",
    schema: { type: "string", minLength: 1, maxLength: 255 },
  });
  registry.registerComponent("parameters", "IfMatch", {
    name: "If-Match",
    in: "header",
    required: false,
    description:
      "The `ETag` of your last read (or `*`): the write happens only if the resource still has it, checked under the row's lock in the write's transaction; otherwise 412 PRECONDITION_FAILED and nothing is written. Without it the write is unconditional.",
    schema: { type: "string" },
  });
  registry.registerComponent("responses", "WriteUnavailable", {
    description: WRITE_UNAVAILABLE,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    headers: commonHeaders(),
  });
  registry.registerComponent("responses", "NotModified", {
    description: "Unchanged since the `If-None-Match` ETag",
    // The etag middleware's 304 keeps ETag and the request id of the headers set before it; Server-Timing comes after it.
    headers: { ETag: ref("headers", "ETag"), ...commonHeaders() },
  });
}

const commonHeaders = () => Object.fromEntries(COMMON_HEADERS.map((name) => [name, ref("headers", name)]));
// Plain JSON here: the document is already generated, and the routes have made `Error` a component.
const errorResponse = (code: ErrorCode) => ({
  description: code,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

/** The 503 of a write: what each of its codes says about the write, and what to do. */
const WRITE_UNAVAILABLE =
  "UNAVAILABLE: the database could not be reached, or the write's connection failed and it is proven that nothing was " +
  "written; retry shortly. OUTCOME_UNKNOWN: the connection failed after the write was sent and whether it was applied " +
  "could not be checked (or it was applied and its answer was lost); retry with the same `Idempotency-Key`, which " +
  "answers the write if it was applied and applies it once if not. `details.requestId` names the request";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

/**
 * What holds for every operation because of the app's middleware and auth, stated once here instead of on each
 * route: request id and timing headers on every response; weak ETag, If-None-Match and 304 on every GET whose
 * route does not decline it (etag middleware; an export does); 400 (malformed JSON) on every JSON body and 413 (1 MiB body limit) on every operation but a
 * GET; 401 and 503 on every
 * authenticated operation (the credential is looked up in the database), 409 on its writes. Routes declare the rest.
 * Later cross-cutting behaviour (rate-limit headers and 429, If-Match and 412, Idempotency-Key) belongs here too.
 */
function applyConventions(method: string, op: Json, policy: RoutePolicy) {
  const responses = op.responses as Record<string, Json>;
  const add = (status: string, response: Json) => {
    responses[status] ??= response;
  };
  if (method === "get") op.parameters = [...((op.parameters as Json[] | undefined) ?? []), ref("parameters", "MinPosition")];
  if (method === "get" && policy.etag !== false) {
    op.parameters = [...((op.parameters as Json[] | undefined) ?? []), ref("parameters", "IfNoneMatch")];
    for (const [status, response] of Object.entries(responses)) {
      if (status.startsWith("2")) response.headers = { ...(response.headers as Json | undefined), ETag: ref("headers", "ETag") };
    }
    add("304", ref("responses", "NotModified"));
  }
  const body = op.requestBody as { content?: Json } | undefined;
  if (body?.content && "application/json" in body.content) add("400", errorResponse("BAD_REQUEST"));
  // The body limit reads every request that carries a body, whether the operation takes one or not (a ping, a redeliver).
  if (method !== "get") add("413", errorResponse("PAYLOAD_TOO_LARGE"));
  if (Array.isArray(op.security) && op.security.length > 0) {
    add("401", errorResponse("UNAUTHORIZED"));
    add("503", errorResponse("UNAVAILABLE"));
    // The error mapper's 409s: a deadlock or serialization failure, or a linked row deleted meanwhile (retry).
    if (method !== "get") add("409", errorResponse("CONFLICT"));
  }
  // A write's position (src/db/position.ts), on its successes.
  if (method !== "get")
    for (const [status, response] of Object.entries(responses))
      if (status.startsWith("2") && !("$ref" in response))
        response.headers = { ...(response.headers as Json | undefined), "PM-Position": ref("headers", "PM-Position") };
  // A write's 503 has two codes (docs/api.md, conventions; src/http/settled-write.ts), described once.
  if (method !== "get" && responses["503"]) responses["503"] = ref("responses", "WriteUnavailable");
  documentGenericFailures(op);
  for (const response of Object.values(responses)) {
    if (!("$ref" in response)) response.headers = { ...(response.headers as Json | undefined), ...commonHeaders() };
  }
}

export interface DocumentOptions {
  /** The deployment's public base URL (the only `servers` entry). */
  serverUrl: string;
  /** Tag name -> description; every operation's tag must be one of them (the lint test checks it). */
  tags: Record<string, string>;
  /** Path prefix -> whether the routes under it are switched on (dev-only routes answer 404 when off). */
  switchedPaths: Record<string, boolean>;
  /**
   * What each operation declares or its resource gives it (src/http/policy.ts), by method and documented path: its
   * policy and whether it honours If-Match.
   */
  rulesOf: (method: string, path: string) => { policy: RoutePolicy; conditional: boolean };
  /** The scopes that allow an authenticated operation (null: none; src/http/policy.ts, routeScopes). */
  scopesOf: (method: string, path: string) => Scope[] | null;
}

/** Idempotency-Key on a POST: the header, the replay marker on its successes, 409 (in progress) and 422 (reused). */
function documentIdempotencyKey(op: Json) {
  op.parameters = [...((op.parameters as Json[] | undefined) ?? []), ref("parameters", "IdempotencyKey")];
  const responses = op.responses as Record<string, Json>;
  for (const [status, response] of Object.entries(responses))
    if (status.startsWith("2") && !("$ref" in response))
      response.headers = { ...(response.headers as Json | undefined), "Idempotent-Replayed": ref("headers", "Idempotent-Replayed") };
  responses["409"] ??= { ...errorResponse("CONFLICT"), headers: commonHeaders() };
  responses["422"] ??= {
    description: "Validation failed (also: this Idempotency-Key was used with another request)",
    content: { "application/json": { schema: { $ref: "#/components/schemas/ValidationError" } } },
    headers: commonHeaders(),
  };
}

/** If-Match on a conditional write: the header, and 412 when it is stale. */
function documentIfMatch(op: Json) {
  op.parameters = [...((op.parameters as Json[] | undefined) ?? []), ref("parameters", "IfMatch")];
  const responses = op.responses as Record<string, Json>;
  responses["412"] ??= { ...errorResponse("PRECONDITION_FAILED"), headers: commonHeaders() };
}

/**
 * The scope an authenticated operation needs (its route's, src/http/policy.ts): as `x-required-scope`, in words, and
 * its 403. Not in the security requirements' role lists, which OpenAPI 3.1 allows but common linters and generators
 * refuse for non-OAuth schemes.
 */
function documentScope(method: string, scopesOf: () => Scope[] | null, op: Json) {
  if (!Array.isArray(op.security) || op.security.length === 0) return;
  const scopes = scopesOf();
  const scope = scopes?.[0] ?? null;
  op["x-required-scope"] = scope;
  if (!scope) return;
  // A read is also allowed by the write scopes that read its records (docs/api.md, least privilege); a write whose
  // records need one scope or another by what they hang on, by each (its description says which).
  const also = (scopes ?? []).slice(1);
  if (also.length) op["x-accepted-scopes"] = [scope, ...also];
  const why = method.toUpperCase() === "GET" ? "which read these records" : "as the record needs";
  const alternatives = also.length ? `, or one of ${also.map((s) => `\`${s}\``).join(", ")}, ${why}` : "";
  op.description = `${op.description ? `${op.description}\n\n` : ""}Requires the scope \`${scope}\` (${SCOPE_WORDS[scope]})${alternatives}.`;
  const responses = op.responses as Record<string, Json>;
  responses["403"] ??= { ...errorResponse("FORBIDDEN"), headers: commonHeaders() };
}

/**
 * A token endpoint's refusals are OAuth's (http/oauth-error-body.ts), whatever answers them: every error response of its
 * operation, the conventions' included, has the OAuthError body, and validation is a 400 `invalid_request`, not a 422.
 */
function documentOAuthErrors(op: Json) {
  const responses = op.responses as Record<string, Json>;
  delete responses["422"];
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) < 400 || "$ref" in response) continue;
    if (status !== "400") response.description = oauthErrorOf(Number(status), {}).body.error;
    response.content = { "application/json": { schema: { $ref: "#/components/schemas/OAuthError" } } };
  }
}

/** The subschemas of a JSON Schema node (the keywords zod's generator writes), to walk all of it. */
function subschemas(schema: Json): Json[] {
  const out: unknown[] = [schema.items, schema.additionalProperties, schema.not, ...((schema.prefixItems as unknown[]) ?? [])];
  for (const key of ["properties", "patternProperties"]) out.push(...Object.values((schema[key] as Json | undefined) ?? {}));
  for (const key of ["allOf", "anyOf", "oneOf"]) out.push(...((schema[key] as unknown[]) ?? []));
  return out.filter((s): s is Json => typeof s === "object" && s !== null);
}

/**
 * A value the API fills in for a field left out is said in the field's description, not as JSON Schema's `default`:
 * openapi-typescript (with its defaults) types a property that has a `default` as required, so a generated client would
 * demand what the API defaults (a task's `description`). Defaults are only ever inputs' (a response has every field), so
 * this is every schema of the document. A query parameter keeps its `default`: its optionality is its own `required`.
 */
function defaultsInWords(schema: Json) {
  for (const pending = [schema]; pending.length; ) {
    const node = pending.pop() as Json;
    if ("default" in node) {
      const words = `Default: \`${JSON.stringify(node.default)}\`.`;
      node.description = node.description ? `${String(node.description).replace(/[.\s]*$/, "")}. ${words}` : words;
      delete node.default;
    }
    pending.push(...subschemas(node));
  }
}

/** The served document: the routes' generated document plus servers, tags, the conventions above, minus switched-off routes. */
export function finishDocument(doc: Document, opts: DocumentOptions): Document {
  const paths: Document["paths"] = {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (Object.entries(opts.switchedPaths).some(([prefix, on]) => path.startsWith(prefix) && !on)) continue;
    const operations: Json = { ...item };
    for (const method of METHODS) {
      const op = operations[method] as Json | undefined;
      if (!op) continue;
      for (const media of Object.values(((op.requestBody as Json | undefined)?.content as Record<string, Json>) ?? {})) {
        if (media.schema) defaultsInWords(media.schema as Json);
      }
      const { policy, conditional } = opts.rulesOf(method, path);
      applyConventions(method, op, policy);
      documentScope(method, () => opts.scopesOf(method, path), op);
      documentRateLimits(policy, op);
      if (method === "post" && path !== "/mcp") documentIdempotencyKey(op);
      if (conditional) documentIfMatch(op);
      if (policy.errors === "oauth") documentOAuthErrors(op);
    }
    paths[path] = item;
  }
  for (const schema of Object.values(doc.components?.schemas ?? {})) defaultsInWords(schema as Json);
  return {
    ...doc,
    // Who answers for this deployment: its own index (GET /), which links the reference and this document.
    info: { ...doc.info, contact: { name: doc.info.title, url: `${opts.serverUrl}/` } },
    servers: [{ url: opts.serverUrl, description: "This deployment" }],
    tags: Object.entries(opts.tags).map(([name, description]) => ({ name, description })),
    paths,
  };
}
