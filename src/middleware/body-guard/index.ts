// What a JSON body may carry but the API cannot keep as sent: a NUL character (PostgreSQL text refuses it), a lone
// surrogate (`\ud800`: UTF-16 half that UTF-8 cannot encode, which would be stored as U+FFFD), bytes that are not
// UTF-8 (decoded as U+FFFD), and a key named `__proto__` (a JavaScript object takes it as its prototype, so the key
// would vanish). Each is a 422 naming the field, never a silent change (nothing a user sent may change unseen).
import { createMiddleware } from "hono/factory";
import { ValidationError } from "../../core/errors";
import type { AppEnv } from "../../http/context";
import { routePolicy } from "../../http/policy";

const NUL = "Must not contain NUL (\\u0000) characters";
const LONE_SURROGATE = "Must be valid Unicode text (a lone surrogate such as \\ud800 has no character)";
const NOT_UTF8 = "Must be valid UTF-8 (the request had bytes that are not)";
const PROTO_KEY = "A key must not be named __proto__";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
export const isUtf8 = (bytes: ArrayBuffer) => {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** The problems of one string (a value, or a key) of a body whose raw bytes were (or were not) valid UTF-8. */
function problemsOf(text: string, validUtf8: boolean): string[] {
  const out: string[] = [];
  if (text.includes("\u0000")) out.push(NUL);
  if (!text.isWellFormed()) out.push(LONE_SURROGATE);
  // Invalid bytes were decoded as U+FFFD: the strings that hold one are where they were.
  if (!validUtf8 && text.includes("\uFFFD")) out.push(NOT_UTF8);
  return out;
}

/** `{<dotted path>: [message]}` for every string and key of `value` the API cannot keep as sent (empty when none). */
export function unkeepableText(value: unknown, validUtf8 = true): Record<string, string[]> {
  const errors = new Map<string, string[]>();
  const add = (path: string, messages: string[]) => {
    if (messages.length) errors.set(path || "body", [...(errors.get(path || "body") ?? []), ...messages]);
  };
  // Iterative, not recursive: a hostile body nested thousands deep must not overflow the stack (a 500). Children are
  // pushed last first, so fields are reported in the body's order.
  const pending: [unknown, string][] = [[value, ""]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [v, path] = next;
    const join = (k: string | number) => (path ? `${path}.${k}` : String(k));
    if (typeof v === "string") add(path, problemsOf(v, validUtf8));
    else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) pending.push([v[i], join(i)]);
    else if (v && typeof v === "object") {
      const entries = Object.entries(v);
      for (const [k] of entries) add(join(k), [...problemsOf(k, validUtf8), ...(k === "__proto__" ? [PROTO_KEY] : [])]);
      for (let i = entries.length - 1; i >= 0; i--) pending.push([entries[i][1], join(entries[i][0])]);
    }
  }
  // fromEntries defines own properties, so `__proto__` is a key like any other.
  return Object.fromEntries(errors);
}

/**
 * A body that may hold any of them, judged from its text without parsing, so the common body is only scanned: a NUL or
 * a surrogate arrives as a `\u` escape, and so may any letter of a `__proto__` key.
 */
const SUSPECT = /\\u|__proto__/;

/**
 * Refuses a JSON body that holds what unkeepableText finds, with a 422 naming the fields, before any handler parses
 * it. A JSON-RPC body (POST /mcp) is left to its tools: their arguments are checked by the same function, and a refusal
 * is a tool error; an upload's bytes are no JSON.
 */
export const rejectUnkeepableText = createMiddleware<AppEnv>(async (c, next) => {
  if (
    c.req.method === "GET" ||
    c.req.method === "HEAD" ||
    ["upload", "rpc"].includes(routePolicy(c).body ?? "json") ||
    !/json/i.test(c.req.header("content-type") ?? "")
  )
    return next();
  const validUtf8 = isUtf8(await c.req.arrayBuffer());
  const text = await c.req.text();
  if (validUtf8 && !SUSPECT.test(text)) return next();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return next(); // malformed JSON: the validator answers 400
  }
  const errors = unkeepableText(parsed, validUtf8);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  await next();
});
