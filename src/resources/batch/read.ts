// A batch item that is one record's GET (`/<resource>/{id}`, at most `?fields=`) runs as a call of the resource's read,
// the function its GET route answers with, with the batch's own caller: no request through the app. It keeps the route's
// rules: the route's own query and path schemas (query first, as the route validates), the scope the item's GET needs,
// the order of checks (401/403 before an input refusal), and the one error mapper for a failure's slot.
import type { z } from "@hono/zod-openapi";
import type { Caller } from "../../auth/caller";
import { ValidationError } from "../../core/errors";
import { scopeOf } from "../../core/scopes";
import type { AppHandle } from "../../http/dispatch";
import { type ErrorAnswer, errorAnswer } from "../../http/error-mapper";
import { getOperation } from "../../http/get-reads";
import { zodErrors } from "../../http/validation";
import type { Readers } from "../../middleware/if-match";
import { isInputRefusal } from "../../middleware/order-of-checks";

type Schema = z.ZodType | undefined;

/** A registered one-record read and the schemas of the GET route it stands for. */
interface RecordRoute {
  read: NonNullable<Readers[string]>;
  query: Schema;
  params: Schema;
  scope: ReturnType<typeof scopeOf>;
}

const routes = new WeakMap<AppHandle, Map<string, RecordRoute | null>>();

/** The GET `/<name>/{id}` route of a resource with a registered read, as the app documents it (null: none). */
function recordRoute(app: AppHandle, readers: Readers, name: string): RecordRoute | null {
  let known = routes.get(app);
  if (!known) {
    known = new Map();
    routes.set(app, known);
  }
  let route = known.get(name);
  if (route === undefined) {
    const read = Object.hasOwn(readers, name) ? readers[name] : undefined;
    const template = `/${name}/{id}`;
    const definition = app.openAPIRegistry.definitions.find(
      (d) => d.type === "route" && d.route.method === "get" && d.route.path === template,
    );
    const request = definition?.type === "route" ? definition.route.request : undefined;
    route = read && definition ? { read, query: request?.query, params: request?.params, scope: scopeOf("GET", template) } : null;
    known.set(name, route);
  }
  return route;
}

/** The direct read of `url` when it is a one-record GET the app routes to `/<name>/{id}` and only `fields` in its query. */
export function directRead(app: AppHandle, readers: Readers, url: URL) {
  const [, name, id, ...more] = url.pathname.split("/");
  // Percent-encoded ids and repeated or other parameters take the app's path, which decodes and parses them.
  if (!name || !id || more.length > 0 || id.includes("%")) return undefined;
  const keys = [...url.searchParams.keys()];
  if (keys.some((key) => key !== "fields") || keys.length > 1) return undefined;
  // The route the app would run (a fixed path such as `/users/me` is another route, served by the app).
  const [handlers] = app.router.match("GET", url.pathname);
  const first = handlers.find(([[, r]]) => r.method === "GET")?.[0][1];
  if (first?.path !== `/${name}/:id`) return undefined;
  const route = recordRoute(app, readers, name);
  return route ? { route, id, query: Object.fromEntries(url.searchParams) } : undefined;
}

function parsed(schema: Schema, value: Record<string, string>): Record<string, string> {
  if (!schema) return value;
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(zodErrors(result.error));
  return result.data as Record<string, string>;
}

/**
 * The item's answer: the read's body, or the error its GET would answer, as a status and body (`requestId`: the item's,
 * named in a 5xx as its GET would name it).
 */
export async function readDirectly(
  { route, id, query }: NonNullable<ReturnType<typeof directRead>>,
  batchCaller: Caller,
  requestId: string,
): Promise<{ ok: true; body: Record<string, unknown> } | ({ ok: false } & ErrorAnswer)> {
  // A batch item needs its own operation's scope (a read: `read`), as its GET run through the app would.
  const caller = batchCaller.requiring(route.scope === null ? null : [route.scope]);
  try {
    const { fields } = parsed(route.query, query);
    const params = parsed(route.params, { id });
    return { ok: true, body: await route.read(caller, params.id, fields) };
  } catch (err) {
    const refusal = isInputRefusal(err) ? await caller.refusal() : null;
    return { ok: false, ...errorAnswer(refusal ?? err, requestId) };
  }
}

/** Hono's query object: a key once is a string, a repeated key an array (as the route's query validator sees it). */
function queryObject(searchParams: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(searchParams.keys())) {
    const values = searchParams.getAll(key);
    out[key] = values.length === 1 ? values[0] : values;
  }
  return out;
}

/** The registered GET operation (src/http/get-reads.ts) the app routes `url` to, with its raw path parameters. */
export function registeredRead(app: AppHandle, url: URL) {
  // Percent-encoded segments take the app's path, which decodes them.
  if (url.pathname.includes("%")) return undefined;
  const [handlers] = app.router.match("GET", url.pathname);
  const path = handlers.find(([[, r]]) => r.method === "GET")?.[0][1].path;
  if (!path) return undefined;
  const operation = getOperation(path.replace(/:([A-Za-z_]+)/g, "{$1}"));
  if (!operation) return undefined;
  const names = [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  const pattern = new RegExp(`^${path.replace(/:[A-Za-z_]+/g, "([^/]+)")}$`);
  const values = pattern.exec(url.pathname)?.slice(1) ?? [];
  return { operation, param: Object.fromEntries(names.map((n, i) => [n, values[i]])), searchParams: url.searchParams };
}

/** A registered GET's answer as its route would give it: the route's schemas (query first), its scope, its errors. */
export async function readRegistered(
  { operation, param, searchParams }: NonNullable<ReturnType<typeof registeredRead>>,
  batchCaller: Caller,
  requestId: string,
): Promise<{ ok: true; body: Record<string, unknown> } | ({ ok: false } & ErrorAnswer)> {
  const scope = scopeOf("GET", operation.template);
  const caller = batchCaller.requiring(scope === null ? null : [scope]);
  try {
    const query = parsed(operation.query, queryObject(searchParams) as Record<string, string>);
    const params = parsed(operation.params, param);
    return { ok: true, body: (await operation.read(caller, { param: params, query, searchParams })) as Record<string, unknown> };
  } catch (err) {
    const refusal = isInputRefusal(err) ? await caller.refusal() : null;
    return { ok: false, ...errorAnswer(refusal ?? err, requestId) };
  }
}
