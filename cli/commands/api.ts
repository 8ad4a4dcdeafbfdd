// `pm api METHOD PATH [-f key=value]… [--input FILE]`: any request of the API with the login's credential and base URL,
// as `gh api` does. Fields are the query of a GET or DELETE and the JSON body's top-level fields otherwise (`-F` takes
// JSON values: numbers, true, false, null, arrays); `--input` sends a file (or `-`, standard input) as the body.
// The answer is printed as it comes: JSON pretty-printed (and through --jq), an error answer also on stdout, exit 1.
import { defineCommand } from "citty";
import { commonArgs, repeated } from "../argv";
import { ApiError, UsageError } from "../errors";
import { fileText } from "../input";
import { printJson } from "../output";
import { openSession } from "../session";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

const apiArgs = {
  method: { type: "positional", valueHint: METHODS.join("|"), description: "The HTTP method", required: true },
  path: { type: "positional", valueHint: "/tasks?limit=5", description: "The API path (with a query, if any)", required: true },
  field: { type: "string", alias: "f", valueHint: "key=value", description: "Repeatable; a string field (a GET's query)" },
  "typed-field": { type: "string", alias: "F", valueHint: "key=json", description: 'Repeatable; a JSON value: 3, true, null, ["a"]' },
  input: { type: "string", valueHint: "file|-", description: "The request body, from a file or standard input" },
  include: { type: "boolean", alias: "i", description: "Print the answer's status line and headers first" },
  json: commonArgs.json,
  jq: commonArgs.jq,
  "base-url": commonArgs["base-url"],
  workspace: commonArgs.workspace,
} as const;

/** `key=value` split at its first `=`. */
function pair(option: string, term: string): [string, string] {
  const at = term.indexOf("=");
  if (at < 1) throw new UsageError(`--${option} takes key=value (got '${term}')`);
  return [term.slice(0, at), term.slice(at + 1)];
}

function typed(key: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new UsageError(`-F ${key}: '${value}' is not a JSON value (use -f for a string)`);
  }
}

export const api = defineCommand({
  meta: { name: "pm api", description: "Send any API request with your credential (as `gh api`)" },
  args: apiArgs,
  async run({ args, rawArgs }) {
    const method = args.method.toUpperCase() as (typeof METHODS)[number];
    if (!METHODS.includes(method)) throw new UsageError(`the method must be one of ${METHODS.join(", ")} (got '${args.method}')`);
    const url = new URL(args.path.replace(/^\/?/, "/"), "http://pm.invalid");
    const fields: Record<string, unknown> = {};
    for (const term of repeated(rawArgs, apiArgs, "field")) {
      const [key, value] = pair("field", term);
      fields[key] = value;
    }
    for (const term of repeated(rawArgs, apiArgs, "typed-field")) {
      const [key, value] = pair("typed-field", term);
      fields[key] = typed(key, value);
    }
    const inQuery = method === "GET" || method === "DELETE";
    if (args.input !== undefined && inQuery) throw new UsageError(`--input sends a body, which ${method} has not`);
    if (args.input !== undefined && Object.keys(fields).length > 0) {
      throw new UsageError("--input is the whole body: give it or -f/-F fields, not both");
    }
    const query: Record<string, unknown> = Object.fromEntries(url.searchParams);
    if (inQuery) Object.assign(query, fields);
    const body =
      args.input !== undefined ? await fileText(args.input) : !inQuery && Object.keys(fields).length ? JSON.stringify(fields) : undefined;

    const { client } = openSession(args);
    // Any path, so not the typed one: the client's own request, for its credential (and a login's renewal).
    const request = client.request as unknown as (method: string, path: string, init: object) => Promise<Answer>;
    const { response, data, error } = await request(method.toLowerCase(), url.pathname, {
      params: { query },
      parseAs: "text",
      ...(body === undefined ? {} : { body, bodySerializer: (b: string) => b, headers: { "content-type": "application/json" } }),
    });
    if (args.include) {
      console.log(`HTTP ${response.status} ${response.statusText}`);
      for (const [name, value] of response.headers) console.log(`${name}: ${value}`);
      console.log();
    }
    // openapi-fetch parses an error answer as JSON when it is.
    const answer = response.ok ? parsed(data) : error;
    if (typeof answer === "string") {
      if (answer) process.stdout.write(answer.endsWith("\n") ? answer : `${answer}\n`);
    } else if (answer !== undefined) await printJson(answer);
    if (!response.ok) throw ApiError.fromBody(response.status, answer);
  },
});

interface Answer {
  response: Response;
  data?: string;
  error?: unknown;
}

/** A JSON answer's value; any other text as it is. */
function parsed(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
