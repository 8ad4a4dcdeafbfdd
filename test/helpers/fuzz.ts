// Property-based fuzz of every operation in the served OpenAPI document (docs/security.md, hostile input; run by
// test/fuzz-reads.test.ts and test/fuzz-writes.test.ts): generated bodies (from the request schema, and junk: wrong
// types, extra keys, huge or empty strings, Unicode, nulls, deep nesting), path ids (real, of another kind, references, junk segments), query strings (limit, cursor, fields,
// filter, sort, junk) and credentials (valid, none, junk). Each answer must be documented for its operation
// (status, body schema and headers: fetchApp throws otherwise), never a 5xx, an error in the documented error
// shape, and a rejected request must leave every row of the tenant's workspace as it was.
import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { RequestDb } from "../../src/db/client";
import { fetchApp, get, post } from "./api";
import { addMember, type Member, newTenant, type Tenant, withDb } from "./fixtures";
import { fromSchema, hostileString, junkBody, junkText } from "./openapi-arbitraries";
import { type Operation, servedOpenApi } from "./openapi-conformance";
import { OAUTH_TOKEN_PATHS } from "./policies";

/** Fixed (plus the operation's index), so a failure replays; fast-check prints the seed with the counterexample. */
const SEED = 20261123;
/** Requests per operation: ~90 operations × 8 stay within seconds on 2 cores. */
const RUNS = 8;

type Json = Record<string, any>;
const OAUTH_PROTOCOL = /^\/oauth\/(register|token)$/;
const openApi = await servedOpenApi();

let t: Tenant;
let member: Member;
/** Real identifiers by the path's first segment (`tasks`, `team-members`, …). */
const ids: Record<string, string[]> = {};
let cursor = "";
let workspaceTables: string[] = [];

/** The fixtures every fuzzed operation meets (a tenant with a member, one record of each kind): made before the file's tests. */
export function fuzzFixtures() {
  beforeAll(async () => {
    t = await newTenant("Fuzz");
    member = await addMember(t, "MEMBER");
    const key = t.owner.key;
    const created = async (path: string, body: Json) => {
      const res = await post(path, body, key);
      if (res.status !== 201) throw new Error(`fixture ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return Object.values(res.body as Json)[0] as Json;
    };
    const team = await created("/teams", { name: "Fuzz", prefix: "FZ" });
    const label = await created("/labels", { name: "Bug", color: "#ff0000" });
    const field = await created("/fields", { key: "size", name: "Size", type: "number", recordTypes: ["task", "project"] });
    const project = await created("/projects", { name: "Launch", teamId: team.id, labelIds: [label.id] });
    const milestone = await created("/milestones", { name: "Beta", projectId: project.id });
    const tasks = [
      await created("/tasks", { title: "One", teamId: team.id, projectId: project.id, labelIds: [label.id] }),
      await created("/tasks", { title: "Two", teamId: team.id, assigneeId: member.userId }),
    ];
    const comment = await created("/comments", { content: "First", taskId: tasks[0].id });
    const teamMember = await created(`/teams/${team.id}/members`, { userId: member.userId, role: "MEMBER" });
    const invite = await created("/invites", { email: "fuzz-invitee@example.com" });
    const apiKey = await created("/api-keys", { name: "spare" });
    Object.assign(ids, {
      tasks: [...tasks.map((task) => task.id), tasks[0].reference, tasks[1].reference.toLowerCase()],
      projects: [project.id, project.reference],
      milestones: [milestone.id],
      comments: [comment.id],
      labels: [label.id],
      fields: [field.id],
      teams: [team.id],
      "team-members": [teamMember.id],
      users: [member.userId, t.owner.userId],
      workspaces: [t.workspaceId],
      invites: [invite.id],
      "api-keys": [apiKey.id],
    });
    cursor = (await get("/tasks?limit=1", key)).body.pagination.nextCursor;
    workspaceTables = await withDb(async (db) => {
      const rows = await db.execute<{ table_name: string }>(
        sql`select table_name from information_schema.columns where table_schema = 'public' and column_name = 'workspace_id' order by table_name`,
      );
      return rows.rows.map((row) => row.table_name);
    });
  }, 60_000);
}

/**
 * A digest of every row of the tenant's workspace (its own row, its members' users, every table with a
 * workspace_id), so a rejected request that inserted, updated or deleted anything shows. `last_used_at` of API
 * keys moves on every authenticated request by design.
 */
async function snapshot(db: RequestDb["db"]): Promise<Record<string, string>> {
  const digest = (from: string) =>
    `md5(coalesce(string_agg((to_jsonb(x) - 'last_used_at')::text, ',' order by (to_jsonb(x) - 'last_used_at')::text), ''))`.concat(
      ` from ${from}`,
    );
  const parts = [
    `select 'workspaces' as name, ${digest("workspaces x where x.id = $1")}`,
    `select 'users', ${digest("users x where x.id in (select user_id from workspace_members where workspace_id = $1)")}`,
    ...workspaceTables.map((table) => `select '${table}', ${digest(`"${table}" x where x.workspace_id = $1`)}`),
  ];
  const query = parts.join(" union all ").replaceAll("$1", `'${t.workspaceId}'`);
  const rows = await db.execute<{ name: string; md5: string }>(sql.raw(query));
  return Object.fromEntries(rows.rows.map((row) => [row.name, row.md5]));
}

/** A connection for the rest of the running test: an operation's snapshots share one (a new one each cost more than the request). */
function testDb(): RequestDb["db"] {
  const held = new RequestDb(env);
  onTestFinished(() => held.close());
  return held.db;
}

// ---- requests ----

interface FuzzRequest {
  path: string;
  query: string;
  credential: "owner" | "member" | "none" | "junk key" | "junk bearer";
  body?: { type: string; text: string };
  headers: Record<string, string>;
}

const allIds = () => Object.values(ids).flat();
const anyId = fc.oneof(
  fc.constant(null).map(() => "task_00000000000000000000000000"),
  fc.nat().map((n) => allIds()[n % Math.max(allIds().length, 1)] ?? "none"),
);

/** A path segment for `{id}` of `segment`'s resource: its real ids, another kind's, references, junk. */
const idSegment = (segment: string) =>
  fc.oneof(
    { weight: 10, arbitrary: fc.nat().map((n) => (ids[segment]?.length ? ids[segment][n % ids[segment].length] : "x")) },
    { weight: 1, arbitrary: anyId },
    { weight: 1, arbitrary: fc.constantFrom("FZ-1", "fz-2", "FZ-P1", "FZ-999999", "FZ-0", "FZ--1", "ENG-1") },
    { weight: 2, arbitrary: hostileString.map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom("%00", "%ZZ", "..", "%2e%2e", "a%2Fb", "%F0%9F%94%A5", "null", "0", "-1") },
  );

const pathOf = (template: string): fc.Arbitrary<string> => {
  const segment = template.split("/")[1];
  const parts = template.split(/(\{[^}]+\})/).map((part) => (part.startsWith("{") ? idSegment(segment) : fc.constant(part)));
  return fc.tuple(...parts).map((values) => values.join(""));
};

const paramsOf = (op: Json) =>
  ((op.parameters ?? []) as Json[]).map((param) => openApi.resolve(param)).filter((param) => param.in === "query");

/** `fields` expressions: the documented names, nested, unknown, too deep, too many, unbalanced. */
const fieldsOf = (description: string) => {
  const names = /Names: ([^.]+)\./.exec(description)?.[1].split(", ") ?? ["id"];
  const name = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: hostileString });
  const expression: fc.Arbitrary<string> = fc.letrec<{ list: string }>((tie) => ({
    list: fc
      .array(
        fc.oneof(
          { weight: 3, arbitrary: name },
          { weight: 1, arbitrary: fc.tuple(name, tie("list")).map(([n, inner]) => `${n}{${inner}}`) },
        ),
        {
          minLength: 1,
          maxLength: 5,
        },
      )
      .map((items) => items.join(",")),
  })).list;
  return fc.oneof(
    { weight: 8, arbitrary: expression },
    {
      weight: 1,
      arbitrary: fc.constantFrom("", ",", "{", "}", "id{", "a{b{c{d{e{f{g{h{i{j{k}}}}}}}}}}", `${"id,".repeat(500)}id`, "team{".repeat(50)),
    },
  );
};

/** The documented `filter[<op>][<field>]` and `sort[<field>]` parameters of a list. */
const LIST_PARAM = /^(?:filter|sort)\[/;

/** A documented list parameter's pairs: a value of its schema (an array repeats the name) or a likely one, a junk name now and then. */
const listTermOf = (param: Json): fc.Arbitrary<[string, string][]> => {
  const values: fc.Arbitrary<string[]> = param.name.startsWith("sort[")
    ? fc.constantFrom("asc", "desc", "desc", "up", "").map((v) => [v])
    : fc.oneof(
        { weight: 4, arbitrary: fromSchema(openApi.doc, param.schema, anyId).map((v) => (Array.isArray(v) ? v : [v]).map(queryValue)) },
        { weight: 1, arbitrary: fc.oneof(fc.constantFrom("null", "TODO", "2026-01-01", "1"), anyId, hostileString).map((v) => [v]) },
      );
  // A hostile operator or field in place of the documented one (the first or the last bracket).
  const name = fc.oneof(
    { weight: 8, arbitrary: fc.constant(param.name as string) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(hostileString, fc.boolean())
        .map(([junk, last]) => param.name.replace(last ? /\[[^[\]]*\]$/ : /\[[^[\]]*\]/, `[${junk}]`)),
    },
  );
  return fc.tuple(name, values).map(([n, vs]) => vs.map((v): [string, string] => [n, v]));
};

/** Filters and sorts of a list: a few of its documented parameters, very many, or malformed names. */
const listTermsOf = (params: Json[]): fc.Arbitrary<[string, string][]> => {
  const term = fc.constantFrom(...params).chain(listTermOf);
  return fc.oneof(
    { weight: 8, arbitrary: fc.array(term, { minLength: 1, maxLength: 3 }).map((terms) => terms.flat()) },
    { weight: 1, arbitrary: fc.array(term, { minLength: 30, maxLength: 80 }).map((terms) => terms.flat()) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<[string, string][]>(
        [["filter[eq][title][x][y]", "1"]],
        [["filter", "x"]],
        [["sort", "x"]],
        [["filter[", "]"]],
        [["sort[", "]"]],
      ),
    },
  );
};

const queryValue = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
/** `arbitrary`'s pairs `present` times in 10, else none. */
const sometimes = (arbitrary: fc.Arbitrary<[string, string][]>, present: number) =>
  fc.oneof({ weight: present, arbitrary }, { weight: 10 - present, arbitrary: fc.constant<[string, string][]>([]) });

const queryOf = (op: Json): fc.Arbitrary<string> => {
  const params = paramsOf(op);
  const listParams = params.filter((param) => LIST_PARAM.test(param.name));
  const pairs = params
    .filter((param) => !LIST_PARAM.test(param.name))
    .map((param): fc.Arbitrary<[string, string][]> => {
      const one = (value: fc.Arbitrary<string>) =>
        sometimes(
          value.map((v): [string, string][] => [[param.name, v]]),
          param.required ? 9 : 4,
        );
      if (param.name === "fields") return one(fieldsOf(param.description ?? ""));
      if (param.name === "cursor")
        return one(
          fc.oneof(
            fc.constant(cursor),
            fc.constant(cursor),
            fc.nat().map((n) => `${cursor.slice(0, n % cursor.length)}A${cursor.slice((n % cursor.length) + 1)}`),
            hostileString,
            fc.base64String(),
          ),
        );
      if (param.name === "limit")
        return one(
          fc.oneof({ weight: 4, arbitrary: fc.integer({ min: -3, max: 300 }).map(String) }, { weight: 1, arbitrary: hostileString }),
        );
      return one(
        fc.oneof(
          { weight: 4, arbitrary: fromSchema(openApi.doc, param.schema, anyId).map(queryValue) },
          { weight: 1, arbitrary: hostileString },
        ),
      );
    });
  if (listParams.length > 0) pairs.push(sometimes(listTermsOf(listParams), 5));
  const junk = sometimes(fc.array(fc.tuple(hostileString, hostileString), { minLength: 1, maxLength: 2 }), 2);
  return fc.tuple(fc.tuple(...pairs), junk, fc.constantFrom("", "", "", "&", "&&=&%zz")).map(([known, extra, tail]) => {
    const params = new URLSearchParams([...known.flat(), ...extra]);
    const text = `${params.toString()}${tail}`;
    return text ? `?${text}` : "";
  });
};

const bodyOf = (method: string, op: Json): fc.Arbitrary<FuzzRequest["body"]> => {
  const content = (op.requestBody?.content ?? {}) as Json;
  const types = Object.keys(content);
  if (types.length === 0)
    return method === "get"
      ? fc.constant(undefined)
      : fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: junkBody.map(jsonBody) });
  const documented = fc
    .constantFrom(...types)
    .chain((type) =>
      fromSchema(openApi.doc, content[type].schema, anyId).map((value) =>
        type === "application/json" ? jsonBody(value) : formBody(value),
      ),
    );
  return fc.oneof(
    { weight: 12, arbitrary: documented },
    { weight: 3, arbitrary: junkBody.map(jsonBody) },
    { weight: 2, arbitrary: junkText.map((text) => ({ type: "application/json", text })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom("text/plain", "application/xml", "multipart/form-data; boundary=x")
        .map((type) => ({ type, text: "title=x" })),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
    // Over the 1 MiB body limit (the imports take more).
    { weight: 1, arbitrary: fc.constant(null).map(() => jsonBody({ title: "z".repeat(1_100_000) })) },
  );
};
const jsonBody = (value: unknown) => ({ type: "application/json", text: JSON.stringify(value) ?? "null" });
const formBody = (value: unknown) => ({
  type: "application/x-www-form-urlencoded",
  text: new URLSearchParams(
    value && typeof value === "object"
      ? Object.entries(value).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)])
      : [["x", String(value)]],
  ).toString(),
});

const headersOf = (method: string) =>
  fc
    .record(
      {
        "if-none-match": fc.oneof(fc.constant("*"), hostileString.map(encodeURIComponent)),
        "if-match": fc.oneof(fc.constant('W/"0"'), hostileString.map(encodeURIComponent)),
        "idempotency-key": fc.oneof(fc.uuid(), hostileString.map(encodeURIComponent)),
        "x-request-id": hostileString.map(encodeURIComponent),
      },
      { requiredKeys: [] },
    )
    .map((headers) => {
      if (method !== "get") delete headers["if-none-match"];
      if (method !== "patch" && method !== "delete") delete headers["if-match"];
      if (method !== "post") delete headers["idempotency-key"];
      return headers as Record<string, string>;
    });

const requestOf = ({ method, path, op }: Operation): fc.Arbitrary<FuzzRequest> => {
  const authenticated = Array.isArray(op.security) && op.security.length > 0;
  const credential = authenticated
    ? fc.oneof(
        { weight: 8, arbitrary: fc.constant("owner" as const) },
        { weight: 2, arbitrary: fc.constant("member" as const) },
        { weight: 1, arbitrary: fc.constantFrom("none" as const, "junk key" as const, "junk bearer" as const) },
      )
    : fc.oneof({ weight: 4, arbitrary: fc.constant("none" as const) }, { weight: 1, arbitrary: fc.constant("owner" as const) });
  return fc.record({ path: pathOf(path), query: queryOf(op), credential, body: bodyOf(method, op), headers: headersOf(method) });
};

export async function send(method: string, req: FuzzRequest) {
  const headers = new Headers(req.headers);
  if (req.credential === "owner") headers.set("svc-api-key", t.owner.key);
  if (req.credential === "member") headers.set("svc-api-key", member.key);
  if (req.credential === "junk key") headers.set("svc-api-key", "pm_live_0000000000000000000000000000");
  if (req.credential === "junk bearer") headers.set("authorization", "Bearer eyJhbGciOiJub25lIn0.e30.");
  if (req.body) headers.set("content-type", req.body.type);
  // fetchApp throws when the answer is not documented for the operation (status, body schema, headers).
  const res = await fetchApp(
    new Request(`http://api.test${req.path}${req.query}`, { method: method.toUpperCase(), headers, body: req.body?.text }),
  );
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type") ?? "", text };
}

/**
 * The operations of /openapi.json, reads (GET) or writes (the others), each fuzzed with its seed in the whole document's
 * order (`SEED + index`), so a file holds half of them and a failure replays as it did in one file.
 */
export function fuzzOperations(which: "reads" | "writes") {
  describe(`fuzz: every ${which === "reads" ? "read" : "write"} operation of /openapi.json`, () => {
    // Deletes last, dependents first (reverse document order), so the other operations meet the fixtures alive.
    const operations = openApi.operations();
    const ordered = [...operations.filter((op) => op.method !== "delete"), ...operations.filter((op) => op.method === "delete").reverse()];
    for (const [index, operation] of ordered.entries()) {
      const { method, path } = operation;
      if ((method === "get") !== (which === "reads")) continue;
      it(`${method.toUpperCase()} ${path}`, async () => {
        const db = testDb();
        let baseline = method === "get" ? {} : await snapshot(db);
        await fc.assert(
          fc.asyncProperty(requestOf(operation), async (req) => {
            const res = await send(method, req);
            expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
            if (res.status >= 400 && res.type.startsWith("application/json")) {
              const body = JSON.parse(res.text);
              // The OAuth endpoints answer OAuth's error body (RFC 6749 §5.2, RFC 7591 §3.2.2), as documented; every other
              // route the API's.
              const oauthShaped = typeof body?.error === "string" && typeof body?.error_description === "string";
              const apiShaped = typeof body?.error?.code === "string" || (res.status === 422 && typeof body?.errors === "object");
              const shaped = OAUTH_TOKEN_PATHS.has(path) ? oauthShaped : (OAUTH_PROTOCOL.test(path) && oauthShaped) || apiShaped;
              expect(shaped, res.text.slice(0, 300)).toBe(true);
            }
            if (method === "get") return;
            const now = await snapshot(db);
            if (res.status >= 400) expect(now, `a rejected ${res.status} wrote rows`).toEqual(baseline);
            baseline = now;
          }),
          { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
        );
      }, 120_000);
    }
  });
}
