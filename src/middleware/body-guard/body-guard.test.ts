// The body guard (index.ts): what a JSON body may carry but the API cannot keep as sent is 422 at its field, on every
// route (test/hostile-input.test.ts sweeps every operation for `__proto__`), and a tool error through MCP
// (test/mcp.test.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { api, fetchApp, get, post } from "../../../test/helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "../../../test/helpers/fixtures";

/** A request sent with raw bytes, its answer checked against the document like api()'s. */
async function raw(method: string, path: string, init: { headers?: Record<string, string>; body?: BodyInit } = {}) {
  const url = `http://api.test${path}`;
  const res = await fetchApp(new Request(url, { method, headers: init.headers, body: init.body }));
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) };
}

let tenant: Tenant;
let team: TeamFixture;
beforeAll(async () => {
  tenant = await newTenant("Body guard");
  team = await newTeam(tenant);
});

describe("text the API cannot keep as sent", () => {
  it("a NUL is 422 at its field", async () => {
    const res = await post("/tasks", { teamId: team.id, title: "a\u0000b" }, tenant.owner.key);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ title: ["Must not contain NUL (\\u0000) characters"] });
  });

  it("a lone surrogate (JSON can carry it, UTF-8 cannot) is 422 at its field, never stored changed (it was stored as U+FFFD)", async () => {
    const res = await post("/tasks", { teamId: team.id, title: "lone \uD800 surrogate", description: "\uDFFF" }, tenant.owner.key);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(["description", "title"]);
    expect(res.body.errors.title[0]).toMatch(/lone surrogate/);
    // A pair is a character like any other.
    const pair = await post("/tasks", { teamId: team.id, title: "pair \uD83D\uDE80" }, tenant.owner.key);
    expect(pair.status).toBe(201);
    expect(pair.body.task.title).toBe("pair 🚀");
  });

  it("bytes that are not UTF-8 are 422 at the field that holds them (they were stored as U+FFFD); a real U+FFFD is kept", async () => {
    const bytes = (...parts: (string | number[])[]) =>
      new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)));
    const send = (body: Uint8Array) =>
      raw("POST", "/tasks", { headers: { "svc-api-key": tenant.owner.key, "content-type": "application/json" }, body });
    const bad = await send(bytes(`{"teamId":"${team.id}","title":"caf`, [0xe9], `","description":"ok"}`));
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ title: ["Must be valid UTF-8 (the request had bytes that are not)"] });
    const replacement = await send(bytes(`{"teamId":"${team.id}","title":"real \uFFFD and caf\u00e9"}`));
    expect(replacement.status).toBe(201);
    expect(replacement.body.task.title).toBe("real \uFFFD and café");
  });
});

describe("__proto__ keys", () => {
  it("in free-form objects (custom fields) __proto__ is 422 at its path (it was silently dropped), other keys are checked, and keys are bounded", async () => {
    await post("/fields", { key: "proto_probe", name: "n", type: "text", recordTypes: ["task", "project", "milestone"] }, tenant.owner.key);
    const send = (customFields: string) =>
      api("POST", "/tasks", {
        rawBody: `{"teamId":"${team.id}","title":"proto","customFields":${customFields}}`,
        headers: { "content-type": "application/json" },
        key: tenant.owner.key,
      });
    const refused = await send(`{"__proto__":{"polluted":true},"proto_probe":"kept"}`);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual(Object.fromEntries([["customFields.__proto__", ["A key must not be named __proto__"]]]));
    // The same on updates, projects and milestones.
    const task = (await send(`{"proto_probe":"kept"}`)).body.task;
    const project = (await post("/projects", { teamId: team.id, name: "Proto" }, tenant.owner.key)).body.project;
    const milestone = (await post("/milestones", { projectId: project.id, name: "Proto" }, tenant.owner.key)).body.milestone;
    for (const [method, path, extra] of [
      ["PATCH", `/tasks/${task.id}`, ""],
      ["POST", "/projects", `"teamId":"${team.id}","name":"p",`],
      ["PATCH", `/projects/${project.id}`, ""],
      ["POST", "/milestones", `"projectId":"${project.id}","name":"m",`],
      ["PATCH", `/milestones/${milestone.id}`, ""],
    ]) {
      const res = await api(method, path, {
        rawBody: `{${extra}"customFields":{"__proto__":"x"}}`,
        headers: { "content-type": "application/json" },
        key: tenant.owner.key,
      });
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(Object.keys(res.body.errors), `${method} ${path}`).toEqual(["customFields.__proto__"]);
    }
    expect((await get(`/tasks/${task.id}`, tenant.owner.key)).body.task.customFields).toEqual({ proto_probe: "kept" });
    expect((await send(`{"constructor":"x"}`)).body.errors).toEqual({ "customFields.constructor": ["Unknown custom field for a task"] });
    expect((await send(`{"${"k".repeat(101)}":"x"}`)).status).toBe(422);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
