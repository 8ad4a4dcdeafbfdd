import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src/index";
import { assertConforms } from "./openapi-conformance";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** Round trips the request made, read from its Server-Timing header. */
  queries: number;
  /** Explicit transactions (BEGIN) the request opened. */
  transactions: number;
}

export interface CallOptions {
  body?: unknown;
  key?: string;
  bearer?: string;
  headers?: Record<string, string>;
  rawBody?: string;
}

/**
 * The worker's answer to `request`, checked against the served OpenAPI document: throws, naming the call, when the
 * status is undocumented for the operation, the body fails its schema or a documented header is missing. The request
 * goes to the Worker's own fetch handler (src/index.ts) with the test worker's bindings, and the work it leaves after
 * the response (waitUntil: closing the connection, email relay, lastUsedAt) is done before this returns. Not through
 * `exports.default.fetch`: the test harness makes each such call slower than the one before (workers-sdk#15446), which
 * made a file of a few thousand requests take minutes. `bindings`: the test worker's, or a copy with a setting changed.
 */
export async function fetchApp(request: Request, bindings: typeof env = env): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, bindings, ctx);
  const text = await res.clone().text();
  await waitOnExecutionContext(ctx);
  await assertConforms(request.method, request.url, res.status, res.headers, text);
  return res;
}

/** Drives the real worker over HTTP (inside workerd), against the real database. */
export async function api<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers = new Headers(opts.headers);
  if (opts.key) headers.set("svc-api-key", opts.key);
  if (opts.bearer) headers.set("authorization", `Bearer ${opts.bearer}`);
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers.set("content-type", "application/json");
  }
  const res = await fetchApp(new Request(`http://api.test${path}`, { method, headers, body }));
  const text = await res.text();
  const timing = res.headers.get("server-timing") ?? "";
  const match = /desc="(\d+) queries"/.exec(timing);
  return {
    status: res.status,
    headers: res.headers,
    // Bytes that are not JSON (an attachment's content) as text.
    // JSON (`application/json`, `…+json`), not JSON lines (`application/x-ndjson`: a sync snapshot), which stay text.
    body: text ? (/[/+]json\b/.test(res.headers.get("content-type") ?? "application/json") ? JSON.parse(text) : text) : null,
    queries: match ? Number(match[1]) : Number.NaN,
    transactions: Number(/tx;desc="(\d+) transactions"/.exec(timing)?.[1] ?? Number.NaN),
  };
}

export const get = <T = any>(path: string, key?: string) => api<T>("GET", path, { key });
export const post = <T = any>(path: string, body: unknown, key?: string) => api<T>("POST", path, { body, key });
export const patch = <T = any>(path: string, body: unknown, key?: string) => api<T>("PATCH", path, { body, key });
export const del = <T = any>(path: string, key?: string) => api<T>("DELETE", path, { key });

export const testEnv = env;

/**
 * Whether a write was atomic: one explicit transaction, or a single statement after the authentication query
 * (Postgres runs every statement as its own transaction, data-modifying CTEs included).
 */
export function expectAtomicWrite(res: Pick<ApiResponse, "transactions" | "queries">, what = "") {
  const atomic = res.transactions === 1 || (res.transactions === 0 && res.queries <= 2);
  if (!atomic) throw new Error(`${what} not one write: ${res.transactions} transactions, ${res.queries} queries`.trim());
}

/**
 * Polls until `check` returns a value (the queue consumer delivers asynchronously). It returns as soon as it holds, so
 * the default wait is most of a test's 30 s budget: a loaded machine delivers late, a broken one never.
 */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 25_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

let counter = 0;
/** A unique email address per call, so test files never collide. */
export const uniqueEmail = (tag = "user") =>
  `${tag}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 6)}@example.com`;
