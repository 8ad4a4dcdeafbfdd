// Least privilege through MCP (docs/api.md, least privilege): a tool needs the scope of the REST operation it stands for
// (core/scopes.ts), tools/list shows a caller only the tools its scopes allow, a tools/call outside them is the 403 REST
// answers (details.requiredScope), and a team-bound key reaches only its teams' records, as through REST.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceTools } from "../src/mcp/tools";

const TOOLS = serviceTools();

import { api, get, post } from "./helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";
import { call, connect } from "./mcp-client";

const METADATA = "http://api.test/.well-known/oauth-protected-resource";
const toolsFor = (...scopes: string[]) =>
  TOOLS.filter((tool) => tool.scopes === null || tool.scopes.some((scope) => scopes.includes(scope))).map((t) => t.name);

let t: Tenant;
let teamA: TeamFixture;
let teamB: TeamFixture;
let taskA: any;
let taskB: any;
/** A triage agent: reads and comments, in team A only. */
let triageKey: string;
/** The owner's key that may only write tasks (not even read). */
let writerKey: string;
const clients: Client[] = [];
const open = async (key: string) => {
  const client = await connect({ "svc-api-key": key });
  clients.push(client);
  return client;
};
const teamTasks = async (team: TeamFixture) =>
  (await get(`/tasks?filter[eq][teamId]=${team.id}&limit=250&fields=id`, t.owner.key)).body.tasks.length;

beforeAll(async () => {
  t = await newTenant("MCP scopes");
  teamA = await newTeam(t, { prefix: "MSA" });
  teamB = await newTeam(t, { prefix: "MSB" });
  const agent = await post("/agents", { name: "Triage", scopes: ["read", "comments:write"], teamIds: [teamA.id] }, t.owner.key);
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  triageKey = agent.body.agent.apiKey;
  for (const team of [teamA, teamB]) {
    const joined = await post(`/teams/${team.id}/members`, { userId: agent.body.agent.id, role: "MEMBER" }, t.owner.key);
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
  }
  const writer = await post("/api-keys", { name: "writer", scopes: ["tasks:write"] }, t.owner.key);
  expect(writer.status, JSON.stringify(writer.body)).toBe(201);
  writerKey = writer.body.key;
  await post("/labels", { name: "Bug", color: "#FF0000" }, t.owner.key);
  taskA = (await post("/tasks", { title: "In A", teamId: teamA.id }, t.owner.key)).body.task;
  taskB = (await post("/tasks", { title: "In B", teamId: teamB.id }, t.owner.key)).body.task;
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

describe("tools/list shows the tools the caller's scopes allow", () => {
  it("every scope: every tool; read and comments:write: the reads and add_comment; tasks:write alone: the task tools", async () => {
    expect((await (await open(t.owner.key)).listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    const triage = (await (await open(triageKey)).listTools()).tools.map((tool) => tool.name);
    expect(triage).toEqual(toolsFor("read", "comments:write"));
    expect(triage).toContain("add_comment");
    expect(triage).not.toContain("create_task");
    // tasks:write reads tasks too: the task tools (agent sessions among them) and the teams' workflow states a task moves
    // through, none of the other reads.
    expect((await (await open(writerKey)).listTools()).tools.map((tool) => tool.name)).toEqual([
      "get_task",
      "list_tasks",
      "create_task",
      "update_task",
      "delete_task",
      "bulk_update_tasks",
      "link_tasks",
      "unlink_tasks",
      "add_link",
      "list_attachments",
      "list_states",
      "get_task_history",
      "log_time",
      "list_worklogs",
      "claim_task",
      "release_task",
      "list_sessions",
      "get_session",
      "post_activity",
    ]);
  });
});

describe("the tools an agent lacked need the scopes of their REST operations", () => {
  it("labels:write: the label tools; projects:write: the project and milestone tools; comments:write: delete_comment; read: list_users", async () => {
    const keyWith = async (...scopes: string[]) => {
      const made = await post("/api-keys", { name: scopes.join(" "), scopes }, t.owner.key);
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.key as string;
    };
    const names = async (key: string) => (await (await open(key)).listTools()).tools.map((tool) => tool.name);
    expect(await names(await keyWith("labels:write"))).toEqual(["list_labels", "create_label", "update_label", "delete_label"]);
    expect(await names(await keyWith("projects:write"))).toEqual([
      "list_projects",
      "create_project",
      "update_project",
      "list_milestones",
      "create_milestone",
      "list_cycles",
      "get_cycle",
    ]);
    const commenter = await names(await keyWith("comments:write"));
    expect(commenter).toContain("delete_comment");
    expect(commenter).not.toContain("delete_task");
    const reader = await keyWith("read");
    expect(await names(reader)).toContain("list_users");
    // A write outside the key's scopes is REST's 403, before the arguments are looked at.
    const client = await open(reader);
    for (const [name, scope] of [
      ["delete_task", "tasks:write"],
      ["delete_comment", "comments:write"],
      ["create_project", "projects:write"],
      ["delete_label", "labels:write"],
    ]) {
      expect((await call(client, name, {})).body.error, name).toMatchObject({ code: "FORBIDDEN", details: { requiredScope: scope } });
    }
  });
});

describe("tools/call outside the caller's scopes is REST's 403 with details.requiredScope", () => {
  it("create_task without tasks:write: the answer of POST /tasks with the same key, nothing written, before the arguments", async () => {
    const client = await open(triageKey);
    const before = await teamTasks(teamA);
    const res = await call(client, "create_task", { teamId: teamA.id, title: "Not allowed" });
    const rest = await api("POST", "/tasks", { key: triageKey, body: { teamId: teamA.id, title: "Not allowed" } });
    expect(rest.status).toBe(403);
    expect(res).toEqual({ isError: true, body: rest.body });
    expect(res.body.error).toMatchObject({ code: "FORBIDDEN", details: { requiredScope: "tasks:write" } });
    expect(await teamTasks(teamA)).toBe(before);
    // The scope comes before the arguments, as REST's order of checks has it.
    expect((await call(client, "create_milestone", { bogus: true })).body.error.details).toEqual({ requiredScope: "projects:write" });
  });

  it("a key that only writes tasks reads tasks, no other records (403 requiredScope read); labels by name", async () => {
    const client = await open(writerKey);
    expect((await call(client, "get_task", { id: taskA.reference })).body.task.id).toBe(taskA.id);
    expect((await call(client, "list_projects", {})).body.error).toMatchObject({
      code: "FORBIDDEN",
      details: { requiredScope: "read" },
    });
    const created = await call(client, "create_task", { teamId: teamB.id, title: "Written, not read", labelIds: ["bug"] });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    expect(created.body.task.labels.map((l: any) => l.name)).toEqual(["Bug"]);
    expect((await call(client, "update_task", { id: created.body.task.id, status: "DONE" })).body.task.status).toBe("DONE");
  });

  it("REST's 403 for a missing scope carries the insufficient_scope challenge (RFC 6750 §3.1)", async () => {
    const rest = await api("DELETE", `/tasks/${taskA.id}`, { key: triageKey });
    expect(rest.status).toBe(403);
    expect(rest.headers.get("www-authenticate")).toBe(
      `Bearer realm="pm", error="insufficient_scope", scope="tasks:write", resource_metadata="${METADATA}"`,
    );
    // A 403 of a rule (deleting another member's comment) is no scope problem: no challenge.
    const comment = (await post("/comments", { taskId: taskA.id, content: "The owner's" }, t.owner.key)).body.comment;
    const rule = await api("DELETE", `/comments/${comment.id}`, { key: triageKey });
    expect(rule.status).toBe(403);
    expect(rule.body.error.details).toBeUndefined();
    expect(rule.headers.get("www-authenticate")).toBeNull();
  });
});

describe("a team-bound key reaches only its teams' records through MCP, as through REST", () => {
  it("lists and reads team A's tasks; team B's are NOT_FOUND to get_task, add_comment, list_task_comments and history", async () => {
    const client = await open(triageKey);
    const listed = await call(client, "list_tasks", { fields: "reference" });
    expect(listed.body.tasks).toEqual([{ reference: taskA.reference }]);
    expect(listed.body).toEqual((await get("/tasks?fields=reference", triageKey)).body);
    expect((await call(client, "add_comment", { taskId: taskA.reference, content: "Seen" })).isError).toBe(false);
    for (const [name, args] of [
      ["get_task", { id: taskB.reference }],
      ["add_comment", { taskId: taskB.reference, content: "Seen?" }],
      ["list_task_comments", { id: taskB.id }],
      ["get_task_history", { id: taskB.id }],
    ] as const) {
      const res = await call(client, name, args);
      expect(res, name).toEqual({ isError: true, body: { error: { code: "NOT_FOUND", message: "Task not found" } } });
    }
    expect((await call(client, "search", { q: "In" })).body.results.map((r: any) => r.reference)).not.toContain(taskB.reference);
  });
});
