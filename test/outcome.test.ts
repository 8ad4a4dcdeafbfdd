// A 503 tells the truth (docs/security.md): a write whose connection is lost after it went out is settled on a
// connection of its own, and answered with what really happened. The fault is real: a one-shot write goes over the
// HTTP query, whose local endpoint (scripts/lib/sql-over-http.mjs) runs a statement carrying a marker (here, in a title
// or name) to its end and then cuts the connection or answers 502; a transaction goes over the WebSocket, whose test
// proxy (scripts/lib/ws-proxy.mjs) cuts the client's connection after passing the marked statement (or its COMMIT) on.
// Either way the database runs it to its end while its answer is lost.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, api, get, patch, post } from "./helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, whileLocked, withDb } from "./helpers/fixtures";
import { call, connect } from "./mcp-client";

const DROP_ANSWER = "pm-fault:drop-answer";
const DROP_COMMIT = "pm-fault:drop-commit";
const FAIL_ANSWER = "pm-fault:fail-answer";

let t: Tenant;
let team: TeamFixture;
beforeAll(async () => {
  t = await newTenant("Outcome");
  team = await newTeam(t);
});

const count = (sqlText: ReturnType<typeof sql>) => withDb(async (db) => (await db.execute<{ n: number }>(sqlText)).rows[0].n);
/** The tasks whose title holds `title`'s unique part (the marker itself must not go out: it would cut this query too). */
const tasksTitled = (title: string) => count(sql`select count(*)::int as n from tasks where position(${title.split(" ")[1]} in title) > 0`);
/** Whatever of a write could still land has landed by now (the server's side of a cut connection runs to its end). */
const settleDown = () => new Promise((r) => setTimeout(r, 500));

const fences = () => count(sql`select count(*)::int as n from write_fences`);
/** `write`'s answer, once it is sure the fault struck: the request was settled (it set a fence). */
async function settled<T>(write: () => Promise<T>): Promise<T> {
  const before = await fences();
  const res = await write();
  expect(await fences(), "the request was settled").toBeGreaterThan(before);
  return res;
}

function expectNoteOf(res: ApiResponse, code: string, message: RegExp) {
  expect([res.status, res.body.error?.code], JSON.stringify(res.body)).toEqual([503, code]);
  expect(res.body.error.message).toMatch(message);
  expect(res.body.error.details.requestId).toBe(res.headers.get("x-request-id"));
}

/** Holds a lock on the fences that settling a request needs (not one a write needs), while `during` runs. */
const withFencesLocked = <T>(during: () => Promise<T>) => whileLocked(sql`lock table write_fences in share mode`, during);

describe("a write whose answer is lost after it went out", () => {
  it("committed (one statement, the HTTP query), its connection cut: 201 with the record, as its read renders it, and Location; stored once", async () => {
    const title = `${DROP_COMMIT} ${crypto.randomUUID()}`;
    const res = await settled(() => post("/tasks", { teamId: team.id, title }, t.owner.key));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.task.title).toBe(title);
    expect(res.headers.get("location")).toBe(`/tasks/${res.body.task.id}`);
    expect(res.body).toEqual((await get(`/tasks/${res.body.task.id}`, t.owner.key)).body);
    await settleDown();
    expect(await tasksTitled(title)).toBe(1);
  });

  it("committed (one statement), the HTTP endpoint answering 502: 201 with the record; stored once", async () => {
    const title = `${FAIL_ANSWER} ${crypto.randomUUID()}`;
    const res = await settled(() => post("/tasks", { teamId: team.id, title }, t.owner.key));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual((await get(`/tasks/${res.body.task.id}`, t.owner.key)).body);
    expect(await tasksTitled(title)).toBe(1);
  });

  it("cut before its transaction's COMMIT: 503 UNAVAILABLE, nothing was written, and nothing lands", async () => {
    const title = `${DROP_ANSWER} ${crypto.randomUUID()}`;
    // A create that names an assignee runs as a transaction: the marked INSERT goes out, its COMMIT never does.
    const res = await settled(() => post("/tasks", { teamId: team.id, title, assigneeId: t.owner.userId }, t.owner.key));
    expectNoteOf(res, "UNAVAILABLE", /nothing was written/);
    await settleDown();
    expect(await tasksTitled(title)).toBe(0);
    // The team is unharmed: the next create takes the next number.
    expect((await post("/tasks", { teamId: team.id, title: "after the cut" }, t.owner.key)).status).toBe(201);
  });

  it("committed (a transaction, with Idempotency-Key), its COMMIT's answer lost: 201 with the record; a retry replays it", async () => {
    const title = `${DROP_COMMIT} ${crypto.randomUUID()}`;
    const headers = { "idempotency-key": crypto.randomUUID() };
    const body = { teamId: team.id, title };
    const res = await settled(() => api("POST", "/tasks", { key: t.owner.key, body, headers }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual((await get(`/tasks/${res.body.task.id}`, t.owner.key)).body);
    const again = await api("POST", "/tasks", { key: t.owner.key, body, headers });
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    expect(again.body).toEqual(res.body);
    expect(await tasksTitled(title)).toBe(1);
  });

  it("not settled in time: 503 OUTCOME_UNKNOWN; the retry with the same Idempotency-Key answers the committed write, no duplicate", async () => {
    const title = `${DROP_COMMIT} ${crypto.randomUUID()}`;
    const headers = { "idempotency-key": crypto.randomUUID() };
    const body = { teamId: team.id, title };
    const res = await withFencesLocked(() => api("POST", "/tasks", { key: t.owner.key, body, headers }));
    expectNoteOf(res, "OUTCOME_UNKNOWN", /retry with the same Idempotency-Key/);
    await settleDown();
    const retry = await api("POST", "/tasks", { key: t.owner.key, body, headers });
    expect([retry.status, retry.headers.get("idempotent-replayed")], JSON.stringify(retry.body)).toEqual([201, "true"]);
    expect(retry.body.task.title).toBe(title);
    expect(await tasksTitled(title)).toBe(1);
  });

  it("an update committed: 200 with the record as its read renders it", async () => {
    const task = (await post("/tasks", { teamId: team.id, title: "to rename" }, t.owner.key)).body.task;
    const title = `${DROP_COMMIT} ${crypto.randomUUID()}`;
    const res = await settled(() => patch(`/tasks/${task.reference}`, { title }, t.owner.key));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.task.title).toBe(title);
    expect(res.body).toEqual((await get(`/tasks/${task.id}`, t.owner.key)).body);
  });

  it("a write whose answer its read cannot give (an API key's, shown once): OUTCOME_UNKNOWN, and its key's retry replays it", async () => {
    const name = `${DROP_COMMIT} ${crypto.randomUUID()}`;
    const headers = { "idempotency-key": crypto.randomUUID() };
    const res = await settled(() => api("POST", "/api-keys", { key: t.owner.key, body: { name }, headers }));
    expectNoteOf(res, "OUTCOME_UNKNOWN", /was applied but its answer was lost/);
    const retry = await api("POST", "/api-keys", { key: t.owner.key, body: { name }, headers });
    expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    expect(retry.body.key).toMatch(/.{20,}/);
    expect(await count(sql`select count(*)::int as n from api_keys where position(${name.split(" ")[1]} in name) > 0`)).toBe(1);
  });

  it.each([
    ["projects", "project", () => ({ teamId: team.id, name: `${DROP_COMMIT} ${crypto.randomUUID()}` })],
    ["labels", "label", () => ({ name: `${DROP_COMMIT} ${crypto.randomUUID()}`, color: "#123456" })],
    ["teams", "team", () => ({ name: `${DROP_COMMIT} ${crypto.randomUUID()}`, prefix: `O${Math.floor(Math.random() * 1e8)}` })],
    [
      "fields",
      "field",
      () => ({
        key: `o_${crypto.randomUUID().slice(0, 8)}`,
        name: `${DROP_COMMIT} ${crypto.randomUUID()}`,
        type: "text",
        recordTypes: ["task"],
      }),
    ],
  ])("%s: a create committed answers 201 exactly as its read", async (path, key, body) => {
    const res = await settled(() => post(`/${path}`, body(), t.owner.key));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get("location")).toBe(`/${path}/${res.body[key].id}`);
    expect(res.body).toEqual((await get(`/${path}/${res.body[key].id}`, t.owner.key)).body);
  });

  it("milestones and comments: a create committed answers 201 exactly as its read", async () => {
    const project = (await post("/projects", { teamId: team.id, name: "Outcome plan" }, t.owner.key)).body.project;
    const task = (await post("/tasks", { teamId: team.id, title: "Outcome task" }, t.owner.key)).body.task;
    for (const [path, key, body] of [
      ["milestones", "milestone", { projectId: project.id, name: `${DROP_COMMIT} ${crypto.randomUUID()}` }],
      ["comments", "comment", { taskId: task.id, content: `${DROP_COMMIT} ${crypto.randomUUID()}` }],
    ] as const) {
      const res = await settled(() => post(`/${path}`, body, t.owner.key));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual((await get(`/${path}/${res.body[key].id}`, t.owner.key)).body);
    }
  });
});

describe("an MCP tool whose write's answer is lost: the same rule, as a tool result or a tool error", () => {
  const tool = async (name: string, args: Record<string, unknown>) => call(await connect({ "svc-api-key": t.owner.key }), name, args);

  it("committed (one statement): the tool's answer, the record as its read renders it", async () => {
    const title = `${DROP_COMMIT} ${crypto.randomUUID()}`;
    const res = await settled(() => tool("create_task", { teamId: team.id, title }));
    expect(res.isError, JSON.stringify(res.body)).toBe(false);
    expect(res.body).toEqual((await get(`/tasks/${res.body.task.id}`, t.owner.key)).body);
    expect(await tasksTitled(title)).toBe(1);
  });

  it("an update committed, the endpoint answering 502: the tool's answer", async () => {
    const task = (await post("/tasks", { teamId: team.id, title: "to rename by a tool" }, t.owner.key)).body.task;
    const title = `${FAIL_ANSWER} ${crypto.randomUUID()}`;
    const res = await settled(() => tool("update_task", { id: task.reference, title }));
    expect(res.isError, JSON.stringify(res.body)).toBe(false);
    expect(res.body).toEqual((await get(`/tasks/${task.id}`, t.owner.key)).body);
  });

  it("cut before its transaction's COMMIT: the tool error UNAVAILABLE, nothing was written", async () => {
    const title = `${DROP_ANSWER} ${crypto.randomUUID()}`;
    const res = await settled(() => tool("create_task", { teamId: team.id, title, assigneeId: t.owner.userId }));
    expect([res.isError, res.body.error?.code], JSON.stringify(res.body)).toEqual([true, "UNAVAILABLE"]);
    expect(res.body.error.message).toMatch(/nothing was written/);
    await settleDown();
    expect(await tasksTitled(title)).toBe(0);
  });

  it("not settled in time: the tool error OUTCOME_UNKNOWN", async () => {
    const title = `${DROP_COMMIT} ${crypto.randomUUID()}`;
    const res = await withFencesLocked(() => tool("create_task", { teamId: team.id, title }));
    expect([res.isError, res.body.error?.code], JSON.stringify(res.body)).toEqual([true, "OUTCOME_UNKNOWN"]);
  });
});

describe("a burst", () => {
  it("50 concurrent creates into one team, a quarter of them committed with their answers lost and a quarter cut before their COMMIT: no answer denies a stored write, none acknowledges a lost one", async () => {
    const tag = crypto.randomUUID();
    const fault = (i: number) => (i % 4 === 0 ? `${DROP_COMMIT} ` : i % 4 === 1 ? `${DROP_ANSWER} ` : "");
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post(
          "/tasks",
          { teamId: team.id, title: `${fault(i)}${tag} ${i}`, ...(i % 4 === 1 && { assigneeId: t.owner.userId }) },
          t.owner.key,
        ),
      ),
    );
    await settleDown();
    const stored = new Set(
      (await withDb((db) => db.execute<{ title: string }>(sql`select title from tasks where position(${tag} in title) > 0`))).rows.map(
        (r) => Number(r.title.split(" ").at(-1)),
      ),
    );
    const tally: Record<string, number> = {};
    let deniedButStored = 0;
    let acknowledgedButLost = 0;
    answers.forEach((res, i) => {
      const what = res.status === 201 ? "201" : `${res.status} ${res.body.error?.code}`;
      tally[what] = (tally[what] ?? 0) + 1;
      if (res.status === 201 && !stored.has(i)) acknowledgedButLost++;
      if (res.status !== 201 && res.body.error?.code !== "OUTCOME_UNKNOWN" && stored.has(i)) deniedButStored++;
    });
    console.log(`burst: answers ${JSON.stringify(tally)}, stored ${stored.size}, denied but stored ${deniedButStored}`);
    expect([deniedButStored, acknowledgedButLost]).toEqual([0, 0]);
    // Every answer is one of the three truths.
    expect(Object.keys(tally).every((k) => ["201", "503 UNAVAILABLE", "503 OUTCOME_UNKNOWN"].includes(k))).toBe(true);
  }, 120_000);
});

describe("the fence", () => {
  it("a write of a request already settled writes nothing, however late it arrives", async () => {
    const attempt = crypto.randomUUID();
    await withDb((db) => db.execute(sql`select * from pm_settle(${attempt}, ${"r-fence"}, ${"evt_0"})`));
    const late = await withDb((db) => db.execute(sql`select pm_fence(${attempt})`).catch((e: unknown) => e));
    expect(late).toBeInstanceOf(Error);
    expect(await withDb(async (db) => (await db.execute(sql`select pm_fence(${crypto.randomUUID()}) as ok`)).rows[0].ok)).toBe(true);
  });
});
