// Every MCP tool takes hostile arguments as its REST operation takes a hostile body: a value nested thousands deep, a
// `__proto__` key, `constructor`-style keys and unknown keys are a tool error with the 422 body, never INTERNAL (a
// stack overflow) and never dropped unseen (a task created without the key). The walk reads the tool list, so a new
// tool is walked too.
import { beforeAll, describe, expect, it } from "vitest";
import { api, get } from "./helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";
import { postMcp } from "./mcp-client";

/** `levels` objects nested in one another as JSON text, the innermost holding a `\u` escape (what the body guard walks). */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"b":"\\u0041"}${"}".repeat(levels - 1)}`;
const DEEP = nested(5000);

let t: Tenant;
let team: TeamFixture;
let tools: { name: string; inputSchema: { properties?: Record<string, unknown> } }[];

const rpc = (method: string, params: string, id: number | string = 1) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}","params":${params}}`;
/** A tools/call with raw argument text; the answer's tool result and its body (the REST body, as text). */
async function callRaw(name: string, args: string) {
  const res = await postMcp(rpc("tools/call", `{"name":"${name}","arguments":${args}}`), { "svc-api-key": t.owner.key });
  expect(res.status, name).toBe(200);
  const result = res.body.result;
  expect(result, `${name}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeDefined();
  return { isError: result.isError === true, body: JSON.parse(result.content[0].text) };
}
const taskCount = async () => (await get(`/tasks?filter[eq][teamId]=${team.id}&limit=250&fields=id`, t.owner.key)).body.tasks.length;

beforeAll(async () => {
  t = await newTenant("MCP hostile");
  team = await newTeam(t);
  const listed = await postMcp(rpc("tools/list", "{}"), { "svc-api-key": t.owner.key });
  tools = listed.body.result.tools;
  expect(tools.length).toBeGreaterThanOrEqual(14);
});

describe("hostile tool arguments, on every tool", () => {
  it("a value nested 5,000 deep, under every argument and under an unknown one, is a 422 tool error (it was INTERNAL: a stack overflow)", async () => {
    // A tool's arguments side by side (each call is independent; one by one they outlasted a loaded machine's budget).
    for (const tool of tools) {
      const keys = [...Object.keys(tool.inputSchema.properties ?? {}), "deep"];
      const answers = await Promise.all(keys.map((key) => callRaw(tool.name, `{"${key}":${DEEP}}`)));
      for (const [i, { isError, body }] of answers.entries()) {
        const key = keys[i];
        expect(isError, `${tool.name}.${key}`).toBe(true);
        // The REST answers for such a body: 422 at the fields, or 400 for a missing team (docs/api.md, decisions).
        expect(body.errors ?? body.error.code, `${tool.name}.${key}: ${JSON.stringify(body)}`).not.toBe("INTERNAL");
        if (!body.errors) expect(body.error.code, `${tool.name}.${key}`).toBe("BAD_REQUEST");
      }
      expect(answers.at(-1)?.body.errors?.deep, tool.name).toEqual(["Unknown field"]);
    }
    // Every tool's every argument parses 5,000 levels (CPU in the one workerd): 37 tools took 45 s beside a busy suite.
  }, 90_000);

  it("a top-level __proto__ key is 422 at __proto__ on every tool, as REST answers it (create_task dropped it and created the task)", async () => {
    const before = await taskCount();
    const answers = await Promise.all(tools.map((tool) => callRaw(tool.name, `{"__proto__":{"polluted":true}}`)));
    for (const [i, { isError, body }] of answers.entries()) {
      expect(isError, tools[i].name).toBe(true);
      expect(body, tools[i].name).toEqual({ errors: Object.fromEntries([["__proto__", ["A key must not be named __proto__"]]]) });
    }
    const args = `{"teamId":"${team.id}","title":"proto","__proto__":{"polluted":true}}`;
    const tool = await callRaw("create_task", args);
    const rest = await api("POST", "/tasks", { rawBody: args, headers: { "content-type": "application/json" }, key: t.owner.key });
    expect(rest.status).toBe(422);
    expect(tool).toEqual({ isError: true, body: rest.body });
    // Nested too, as in a REST body.
    const inner = await callRaw("create_task", `{"teamId":"${team.id}","title":"proto","customFields":{"__proto__":"x"}}`);
    expect(inner.body).toEqual({ errors: { "customFields.__proto__": ["A key must not be named __proto__"] } });
    expect(await taskCount()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("constructor-style and unknown keys are 422 Unknown field on every tool, as REST answers them", async () => {
    const before = await taskCount();
    const hostile = `{"constructor":{"x":1},"toString":"x","hasOwnProperty":1,"unknownKey":2}`;
    const answers = await Promise.all(tools.map((tool) => callRaw(tool.name, hostile)));
    for (const [i, { isError, body }] of answers.entries()) {
      expect(isError, tools[i].name).toBe(true);
      for (const key of ["constructor", "toString", "hasOwnProperty", "unknownKey"]) {
        expect(body.errors?.[key], `${tools[i].name}.${key}: ${JSON.stringify(body)}`).toEqual(["Unknown field"]);
      }
    }
    const args = `{"teamId":"${team.id}","title":"ctor","constructor":{"x":1},"toString":"x"}`;
    const rest = await api("POST", "/tasks", { rawBody: args, headers: { "content-type": "application/json" }, key: t.owner.key });
    expect(rest.status).toBe(422);
    expect(await callRaw("create_task", args)).toEqual({ isError: true, body: rest.body });
    expect(await taskCount()).toBe(before);
  });

  it("a well-formed call still works (the arguments as sent are the ones used)", async () => {
    const made = await callRaw("create_task", `{"teamId":"${team.id}","title":"as sent"}`);
    expect(made.isError).toBe(false);
    expect(made.body.task.title).toBe("as sent");
  });

  it("a batch whose requests share an id is −32600 (the SDK answers a batch by id: their arguments would mix)", async () => {
    const call = (title: string) => rpc("tools/call", `{"name":"create_task","arguments":{"teamId":"${team.id}","title":"${title}"}}`, 7);
    const before = await taskCount();
    const res = await postMcp(`[${call("one")},${call("two")}]`, { "svc-api-key": t.owner.key });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect(await taskCount()).toBe(before);
  });
});

describe("the REST body guard on a deep body", () => {
  it("a body 5,000 deep with a \\u escape is answered 422 by the schema, not 500 (the guard's walk overflowed the stack)", async () => {
    const res = await api("POST", "/tasks", {
      rawBody: `{"teamId":"${team.id}","title":"x","customFields":${DEEP}}`,
      headers: { "content-type": "application/json" },
      key: t.owner.key,
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ "customFields.a": ["Unknown custom field for a task"] });
  });
});
