// `pm api <path> [-X METHOD] [-f key=value]… [-F key=value]… [-H key:value]… [--input FILE] [--paginate] [-q jq]`: any
// request of the API with the login's credential and base URL, as `gh api` takes it. GET unless -X says otherwise or
// parameters or --input are given (then POST). Parameters are a GET's query and otherwise the JSON body, where
// `key[]=v` builds an array and `key[sub]=v` an object; with --input (the body, bytes as they are) they are the query.
// The answer is printed as it comes: JSON pretty-printed (and through --jq), other bytes as they are; an error answer
// also on stdout, exit 1.
import { readFileSync } from "node:fs";
import { buffer } from "node:stream/consumers";
import { defineCommand } from "citty";
import { commonArgs, repeated } from "../argv";
import { ApiError, UsageError } from "../errors";
import { everyPage, type Page } from "../list";
import { printJson } from "../output";
import { openSession } from "../session";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const apiArgs = {
  path: { type: "positional", valueHint: "/tasks?limit=5", description: "The API path (with a query, if any)", required: true },
  method: { type: "string", alias: "X", valueHint: METHODS.join("|"), description: "The HTTP method (default GET; POST with parameters)" },
  "raw-field": { type: "string", alias: "f", valueHint: "key=value", description: "Repeatable; a string parameter" },
  field: {
    type: "string",
    alias: "F",
    valueHint: "key=value",
    description: "Repeatable; a typed parameter: true, false, null and numbers as JSON, @file (@-: standard input) the file's text",
  },
  header: { type: "string", alias: "H", valueHint: "key:value", description: "Repeatable; a request header" },
  input: {
    type: "string",
    valueHint: "file|-",
    description: "The request body, from a file or standard input (parameters go to the query)",
  },
  paginate: { type: "boolean", description: "Every page of a list (following pagination.nextCursor), as one answer" },
  include: { type: "boolean", alias: "i", description: "Print the answer's status line and headers first" },
  silent: { type: "boolean", description: "Do not print the answer's body" },
  json: commonArgs.json,
  jq: commonArgs.jq,
  "base-url": commonArgs["base-url"],
  workspace: commonArgs.workspace,
} as const;

type Value = string | number | boolean | null;

/** `key=value` split at its first `=`. */
function pair(option: string, term: string): [string, string] {
  const at = term.indexOf("=");
  if (at < 1) throw new UsageError(`-${option} takes key=value (got '${term}')`);
  return [term.slice(0, at), term.slice(at + 1)];
}

/** A file's bytes, or standard input's with `-`. */
async function bytesOf(file: string): Promise<Buffer> {
  if (file === "-") return buffer(process.stdin);
  try {
    return readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** A `-F` value as gh reads it: true, false, null and numbers as themselves, `@file` the file's text, else the string. */
async function typed(value: string): Promise<Value> {
  if (value.startsWith("@")) return (await bytesOf(value.slice(1))).toString("utf8");
  if (value === "true" || value === "false" || value === "null") return JSON.parse(value);
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

/** The words of a parameter's key: `a[b][]` is a, b and an array's end (""). */
function keyPath(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!match) throw new UsageError(`'${key}' is not a parameter name (name, name[key] or name[])`);
  return [match[1], ...[...match[2].matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1])];
}

/** The JSON body of `params`: `a[b]=1` is `{a: {b: 1}}`, `a[]=1 a[]=2` is `{a: [1, 2]}`. */
function bodyOf(params: [string, Value][]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of params) {
    const words = keyPath(key);
    let node: Record<string, unknown> | unknown[] = body;
    words.forEach((word, i) => {
      const last = i === words.length - 1;
      const next = words[i + 1];
      const child = last ? value : next === "" ? [] : {};
      if (Array.isArray(node)) {
        if (word !== "") throw new UsageError(`'${key}': an array's items are added with []`);
        node.push(child);
        node = child as typeof node;
        return;
      }
      if (word === "") throw new UsageError(`'${key}': [] follows a name`);
      if (last) node[word] = value;
      else {
        const existing = node[word];
        const fits = next === "" ? Array.isArray(existing) : typeof existing === "object" && existing !== null && !Array.isArray(existing);
        if (existing !== undefined && !fits) throw new UsageError(`'${key}' conflicts with another parameter of that name`);
        node[word] ??= child;
        node = node[word] as typeof node;
      }
    });
  }
  return body;
}

/** The query of `params` beside the path's own: a key given twice (as `filter[in][status]` takes it) is repeated. */
function queryOf(url: URL, params: [string, Value][]): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const add = (key: string, value: string) => {
    const had = query[key];
    query[key] = had === undefined ? value : [had, value].flat();
  };
  for (const [key, value] of url.searchParams) add(key, value);
  for (const [key, value] of params) add(key, String(value));
  return query;
}

function headersOf(terms: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const term of terms) {
    const at = term.indexOf(":");
    if (at < 1) throw new UsageError(`-H takes key:value (got '${term}')`);
    headers[term.slice(0, at).trim().toLowerCase()] = term.slice(at + 1).trim();
  }
  return headers;
}

interface Answer {
  response: Response;
  data?: ArrayBuffer;
  error?: unknown;
}

export const api = defineCommand({
  meta: { name: "pm api", description: "Send any API request with your credential (as `gh api`)" },
  args: apiArgs,
  async run({ args, rawArgs }) {
    const params: [string, Value][] = repeated(rawArgs, apiArgs, "raw-field").map((term) => pair("f", term));
    for (const term of repeated(rawArgs, apiArgs, "field")) {
      const [key, value] = pair("F", term);
      params.push([key, await typed(value)]);
    }
    const given = args.method?.toUpperCase();
    if (given !== undefined && !(METHODS as readonly string[]).includes(given)) {
      throw new UsageError(`-X must be one of ${METHODS.join(", ")} (got '${args.method}')`);
    }
    const method = given ?? (params.length || args.input !== undefined ? "POST" : "GET");
    const url = new URL(args.path.replace(/^\/?/, "/"), "http://pm.invalid");
    const paramsInQuery = method === "GET" || args.input !== undefined;
    if (args.paginate && method !== "GET") throw new UsageError("--paginate reads a list: it goes with GET");
    const query = queryOf(url, paramsInQuery ? params : []);
    const body = args.input !== undefined ? await bytesOf(args.input) : paramsInQuery ? undefined : JSON.stringify(bodyOf(params));
    if (body !== undefined && method === "GET")
      throw new UsageError("--input sends a body, which GET has not: add -X POST (or PUT, PATCH)");
    const headers = headersOf(repeated(rawArgs, apiArgs, "header"));
    if (body !== undefined) headers["content-type"] ??= "application/json";

    const { client } = openSession(args);
    // Any path, so not the typed one: the client's own request, for its credential (and a login's renewal).
    const request = client.request as unknown as (method: string, path: string, init: object) => Promise<Answer>;
    const send = (q: Record<string, string | string[]>) =>
      request(method.toLowerCase(), url.pathname, {
        params: { query: q },
        headers,
        parseAs: "arrayBuffer",
        ...(body === undefined ? {} : { body, bodySerializer: (b: unknown) => b }),
      });
    const { response, data, error } = await send(query);
    if (args.include) {
      console.log(`HTTP ${response.status} ${response.statusText}`);
      for (const [name, value] of response.headers) console.log(`${name}: ${value}`);
      console.log();
    }
    // openapi-fetch parses an error answer as JSON when it is; a 304 has no body.
    let answer = response.ok ? parsed(response, data) : error === "" ? undefined : error;
    if (response.status >= 400) {
      if (!args.silent) await print(answer);
      throw ApiError.fromBody(response.status, answer);
    }
    if (args.paginate) {
      answer = await everyPage(answer as Page<string, unknown>, async (cursor) => {
        const next = await send({ ...query, cursor });
        if (!next.response.ok) throw ApiError.fromBody(next.response.status, next.error);
        return parsed(next.response, next.data) as Page<string, unknown>;
      });
    }
    if (!args.silent) await print(answer);
  },
});

/** A JSON answer's value; any other answer's bytes as they are. */
function parsed(response: Response, data: ArrayBuffer | undefined): unknown {
  if (!data || data.byteLength === 0) return undefined;
  const bytes = Buffer.from(data);
  return /[/+]json\b/.test(response.headers.get("content-type") ?? "") ? JSON.parse(bytes.toString("utf8")) : bytes;
}

async function print(answer: unknown): Promise<void> {
  if (answer === undefined) return;
  if (Buffer.isBuffer(answer)) return void process.stdout.write(answer);
  if (typeof answer === "string") return void process.stdout.write(answer.endsWith("\n") ? answer : `${answer}\n`);
  await printJson(answer);
}
