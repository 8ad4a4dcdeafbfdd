// POST /mcp driven by the MCP SDK's own client over Streamable HTTP, into the worker: an agent works with its own
// key and permissions, and refusals come back as tool errors in the REST API's error bodies.
import { env } from "cloudflare:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signAccessToken } from "../src/auth/jwt";
import { api, get, post } from "./helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";
import { call, connect } from "./mcp-client";

const TOOL_NAMES = [
  "get_task",
  "list_tasks",
  "create_task",
  "update_task",
  "delete_task",
  "bulk_update_tasks",
  "link_tasks",
  "unlink_tasks",
  "add_link",
  "add_comment",
  "list_task_comments",
  "list_attachments",
  "delete_comment",
  "search",
  "list_users",
  "list_teams",
  "list_states",
  "list_projects",
  "create_project",
  "update_project",
  "list_milestones",
  "create_milestone",
  "list_labels",
  "create_label",
  "update_label",
  "delete_label",
  "get_task_history",
  "list_events",
  "log_time",
  "list_worklogs",
  "claim_task",
  "release_task",
  "list_sessions",
  "get_session",
  "post_activity",
  "list_notifications",
  "mark_read",
  "list_cycles",
  "get_cycle",
];

describe("MCP endpoint", () => {
  let t: Tenant;
  let team: TeamFixture;
  let agent: Client;
  let agentKey: string;
  let viewer: Member;
  let labelId: string;
  const clients: Client[] = [];
  const open = async (headers: Record<string, string>) => {
    const client = await connect(headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    t = await newTenant("MCP Co");
    team = await newTeam(t, { prefix: "MCP", name: "Agents" });
    const created = await post("/agents", { name: "Triage bot" }, t.owner.key);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const joined = await post(`/teams/${team.id}/members`, { userId: created.body.agent.id, role: "MEMBER" }, t.owner.key);
    expect(joined.status, JSON.stringify(joined.body)).toBe(201);
    agentKey = created.body.agent.apiKey;
    agent = await open({ "svc-api-key": agentKey });
    viewer = await addMember(t);
    await joinTeam(team, viewer, "VIEWER");
    labelId = (await post("/labels", { name: "Bug", color: "#FF0000" }, t.owner.key)).body.label.id;
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  it("lists its tools with JSON Schemas derived from the REST schemas", async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description).toBeTruthy();
    }
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    const create = byName.create_task.inputSchema as any;
    expect(create.required).toEqual(["teamId", "title"]);
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.priority.enum).toEqual(["NONE", "LOW", "MEDIUM", "HIGH", "URGENT"]);
    // A status is a key or name of the team's states (no default in the schema: the team's first unstarted state).
    expect(create.properties.status).toMatchObject({ type: "string" });
    expect(create.properties.status.default).toBeUndefined();
    const update = byName.update_task.inputSchema as any;
    expect(update.required).toEqual(["id"]);
    expect(update.properties.status.default).toBeUndefined();
    expect(Object.keys(byName.list_tasks.inputSchema.properties ?? {})).toEqual(["limit", "cursor", "fields", "filter", "sort"]);
    expect(byName.list_tasks.description).toContain("priority");
    expect(byName.get_task.annotations?.readOnlyHint).toBe(true);
    expect(byName.create_task.annotations?.readOnlyHint).toBe(false);
    expect((byName.search.inputSchema as any).required).toEqual(["q"]);
    expect(Object.keys(byName.list_events.inputSchema.properties ?? {})).toEqual(["after", "types", "resourceId", "limit", "cursor"]);
    expect(byName.list_events.description).toMatch(/last event .* as `after`/);
    expect((byName.get_task_history.inputSchema as any).required).toEqual(["id"]);
    // An unknown tool is the protocol's invalid-params error.
    await expect(agent.callTool({ name: "find", arguments: { q: "engine" } })).rejects.toMatchObject({ code: -32602 });
  });

  it("lets an agent create a task, read it by reference, find it in a filtered list, update it and comment on it", async () => {
    const created = await call(agent, "create_task", { teamId: team.id, title: "Triage the inbox", priority: "HIGH", labelIds: [labelId] });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    const task = created.body.task;
    expect(task).toMatchObject({ reference: "MCP-1", title: "Triage the inbox", status: "TODO", priority: "HIGH", teamId: team.id });
    expect(task.labels).toEqual([{ id: labelId, name: "Bug", color: "#FF0000" }]);
    // The same object the REST API answers.
    expect((await get(`/tasks/${task.id}`, t.owner.key)).body.task).toEqual(task);

    const read = await call(agent, "get_task", { id: "mcp-1" });
    // Without fields, get_task also lists the relations and links (none here).
    expect(read).toEqual({ isError: false, body: { task: { ...task, relations: [], links: [] } } });
    const narrowed = await call(agent, "get_task", { id: "MCP-1", fields: "reference,team{prefix}" });
    expect(narrowed.body).toEqual({ task: { reference: "MCP-1", team: { prefix: "MCP" } } });

    await call(agent, "create_task", { teamId: team.id, title: "Low one", priority: "LOW" });
    const high = await call(agent, "list_tasks", {
      filter: { eq: { priority: "HIGH" }, in: { labelId: [labelId] } },
      fields: "reference,title",
    });
    expect(high.body).toEqual({ tasks: [{ reference: "MCP-1", title: "Triage the inbox" }], pagination: { limit: 50, nextCursor: null } });

    const updated = await call(agent, "update_task", { id: "MCP-1", status: "IN_PROGRESS", dueDate: "2026-12-24" });
    expect(updated.body.task).toMatchObject({ id: task.id, status: "IN_PROGRESS", dueDate: "2026-12-24", priority: "HIGH" });

    const commented = await call(agent, "add_comment", { taskId: "MCP-1", content: "Picked up by the **bot**" });
    expect(commented.body.comment).toMatchObject({ taskId: task.id, content: "Picked up by the **bot**" });
    const comments = (await get(`/tasks/${task.id}/comments`, t.owner.key)).body.comments;
    expect(comments.map((c: any) => c.id)).toEqual([commented.body.comment.id]);

    // Search answers what GET /search answers, pages with its cursor, and validates like it.
    const found = await call(agent, "search", { q: "inbox", types: ["task"], limit: 1 });
    expect(found.isError, JSON.stringify(found.body)).toBe(false);
    expect(found.body.results).toEqual([expect.objectContaining({ type: "task", id: task.id, reference: "MCP-1" })]);
    expect(found.body).toEqual((await get("/search?q=inbox&types=task&limit=1", t.owner.key)).body);
    const byReference = await call(agent, "search", { q: "mcp-1" });
    expect(byReference.body.results[0]).toMatchObject({ reference: "MCP-1", score: 1000 });
    const blank = await call(agent, "search", { q: "  " });
    expect(blank).toMatchObject({ isError: true, body: { errors: { q: [expect.any(String)] } } });
  });

  it("pages a list with the list machinery's cursors, and lists teams, projects and labels", async () => {
    const first = await call(agent, "list_tasks", { limit: 1, sort: { number: "desc" }, fields: "reference" });
    expect(first.body.tasks).toHaveLength(1);
    expect(first.body.pagination.nextCursor).toEqual(expect.any(String));
    const second = await call(agent, "list_tasks", {
      limit: 1,
      sort: { number: "desc" },
      fields: "reference",
      cursor: first.body.pagination.nextCursor,
    });
    expect(second.body.tasks[0].reference).not.toBe(first.body.tasks[0].reference);

    await post("/projects", { name: "Launch", teamId: team.id }, t.owner.key);
    expect((await call(agent, "list_teams", { fields: "prefix" })).body.teams).toEqual([{ prefix: "MCP" }]);
    expect((await call(agent, "list_projects", { filter: { eq: { teamId: team.id } } })).body.projects.map((p: any) => p.name)).toEqual([
      "Launch",
    ]);
    expect((await call(agent, "list_labels", {})).body.labels.map((l: any) => l.id)).toEqual([labelId]);
  });

  it("answers a task's history and what changed since an event, as the REST routes do; its own writes are via mcp", async () => {
    const task = (await call(agent, "create_task", { teamId: team.id, title: "Watch me" })).body.task;
    const [created] = (await call(agent, "list_events", { resourceId: task.reference })).body.events;
    expect(created).toMatchObject({
      type: "task.created",
      resourceId: task.id,
      reference: task.reference,
      actor: { type: "AGENT", name: "Triage bot", via: "mcp" },
    });
    await call(agent, "update_task", { id: task.reference, title: "Watch me closely" });
    await call(agent, "update_task", { id: task.id, status: "IN_PROGRESS" });
    expect((await api("PATCH", `/tasks/${task.id}`, { key: t.owner.key, body: { priority: "HIGH" } })).status).toBe(200);

    // History: newest first, each update's changes, who and how; paged with the REST route's cursor.
    const history = await call(agent, "get_task_history", { id: task.reference.toLowerCase() });
    expect(history.isError, JSON.stringify(history.body)).toBe(false);
    expect(history.body).toEqual((await get(`/tasks/${task.reference}/history`, agentKey)).body);
    expect(history.body.events.map((e: any) => [e.type, e.actor.via, e.changes])).toEqual([
      ["task.updated", "api_key", { priority: { from: "NONE", to: "HIGH" } }],
      [
        "task.updated",
        "mcp",
        {
          status: { from: "TODO", to: "IN_PROGRESS" },
          statusCategory: { from: "unstarted", to: "started" },
          startedAt: { from: null, to: expect.any(String) },
        },
      ],
      ["task.updated", "mcp", { title: { from: "Watch me", to: "Watch me closely" } }],
      ["task.created", "mcp", undefined],
    ]);
    expect(history.body.events[0].actor).toMatchObject({ id: t.owner.userId, type: "HUMAN" });
    const first = await call(agent, "get_task_history", { id: task.id, limit: 3 });
    const rest = await call(agent, "get_task_history", { id: task.id, limit: 3, cursor: first.body.pagination.nextCursor });
    expect([...first.body.events, ...rest.body.events].map((e: any) => e.id)).toEqual(history.body.events.map((e: any) => e.id));
    expect(rest.body.pagination.nextCursor).toBeNull();

    // The stream after the creation: exactly the three updates, oldest first; after the last one, nothing (yet).
    const since = await call(agent, "list_events", { after: created.id });
    expect(since.body).toEqual((await get(`/events?after=${created.id}`, agentKey)).body);
    expect(since.body.events.map((e: any) => e.id)).toEqual(
      history.body.events
        .slice(0, 3)
        .reverse()
        .map((e: any) => e.id),
    );
    expect(since.body.pagination.nextCursor).toBeNull();
    const newest = since.body.events.at(-1).id;
    expect((await call(agent, "list_events", { after: newest })).body).toEqual({ events: [], pagination: { limit: 50, nextCursor: null } });
    const commented = await call(agent, "add_comment", { taskId: task.id, content: "On it" });
    const next = await call(agent, "list_events", { after: newest });
    expect(next.body.events).toEqual([
      expect.objectContaining({
        type: "comment.created",
        resourceId: commented.body.comment.id,
        actor: expect.objectContaining({ via: "mcp" }),
      }),
    ]);
    // types and resourceId narrow it as GET's do; a page with a cursor goes on where the first stopped.
    const statusOnly = await call(agent, "list_events", { after: created.id, types: ["task.*"], resourceId: task.id, limit: 2 });
    expect(statusOnly.body.events.map((e: any) => e.id)).toEqual(since.body.events.slice(0, 2).map((e: any) => e.id));
    const page2 = await call(agent, "list_events", {
      types: ["task.*"],
      resourceId: task.id,
      cursor: statusOnly.body.pagination.nextCursor,
    });
    expect(page2.body.events.map((e: any) => e.id)).toEqual([newest]);
    expect((await call(agent, "list_events", { after: created.id, types: ["comment.created"] })).body.events).toHaveLength(1);

    // Refusals come back as the REST route's: an unknown type 422, an expired `after` GONE, another workspace's task 404.
    expect(await call(agent, "list_events", { types: ["task.exploded"] })).toMatchObject({
      isError: true,
      body: { errors: { types: [expect.stringContaining("task.exploded")] } },
    });
    expect(await call(agent, "list_events", { after: "evt_01jz8x4q0be0sv3c5kq9v1y2ab" })).toMatchObject({
      isError: true,
      body: { error: { code: "GONE" } },
    });
    expect((await call(agent, "get_task_history", { id: task.id, limit: 500 })).body).toEqual({ errors: { limit: [expect.any(String)] } });
    const other = await newTenant("History elsewhere");
    const stranger = await open({ "svc-api-key": other.owner.key });
    expect(await call(stranger, "get_task_history", { id: task.id })).toEqual({
      isError: true,
      body: { error: { code: "NOT_FOUND", message: "Task not found" } },
    });
  });

  it("answers invalid arguments as a tool error with the REST validation body", async () => {
    const res = await call(agent, "create_task", { teamId: team.id, title: "", priority: "SOON", bogus: 1 });
    expect(res.isError).toBe(true);
    expect(res.body).toEqual({
      errors: {
        title: [expect.any(String)],
        priority: [expect.stringContaining("URGENT")],
        bogus: ["Unknown field"],
      },
    });
    // What no REST body may carry (a NUL, a lone surrogate, a __proto__ key) is a tool error too, never an HTTP 422.
    expect(await call(agent, "search", { q: "nul\u0000byte" })).toEqual({
      isError: true,
      body: { errors: { q: ["Must not contain NUL (\\u0000) characters"] } },
    });
    const proto = JSON.parse(`{"teamId":"${team.id}","title":"proto","customFields":{"__proto__":"x"}}`);
    expect(await call(agent, "create_task", proto)).toEqual({
      isError: true,
      body: { errors: Object.fromEntries([["customFields.__proto__", ["A key must not be named __proto__"]]]) },
    });
    expect((await call(agent, "update_task", { id: "MCP-1", title: "lone \uD800" })).body.errors.title[0]).toMatch(/lone surrogate/);
    // Rules the list machinery checks come back the same way: a limit out of range is 422, an unknown filter 400.
    expect((await call(agent, "list_tasks", { limit: 500 })).body).toEqual({ errors: { limit: [expect.stringContaining("250")] } });
    const unknown = await call(agent, "list_tasks", { filter: { eq: { nope: "x" } } });
    expect(unknown).toMatchObject({ isError: true, body: { error: { code: "BAD_REQUEST", details: { field: "nope" } } } });
  });

  it("lets a team VIEWER read but not create (FORBIDDEN tool error)", async () => {
    const client = await open({ "svc-api-key": viewer.key });
    expect((await call(client, "get_task", { id: "MCP-1" })).body.task.reference).toBe("MCP-1");
    const res = await call(client, "create_task", { teamId: team.id, title: "Not mine to add" });
    expect(res).toEqual({ isError: true, body: { error: { code: "FORBIDDEN", message: expect.stringContaining("MEMBER") } } });
    expect((await call(client, "add_comment", { taskId: "MCP-1", content: "Hi" })).body.error.code).toBe("FORBIDDEN");
  });

  it("does not reveal another workspace's task (NOT_FOUND) and works with a Bearer token", async () => {
    const other = await newTenant("Elsewhere");
    const { token } = await signAccessToken(env, { sub: other.owner.userId, wid: other.workspaceId });
    const client = await open({ authorization: `Bearer ${token}` });
    for (const [name, args] of [
      ["get_task", { id: "MCP-1" }],
      ["update_task", { id: "MCP-1", title: "Mine now" }],
      ["add_comment", { taskId: "MCP-1", content: "Hello" }],
    ] as const) {
      expect(await call(client, name, args)).toEqual({ isError: true, body: { error: { code: "NOT_FOUND", message: "Task not found" } } });
    }
    expect((await call(client, "create_task", { teamId: team.id, title: "x" })).body.error.code).toBe("NOT_FOUND");
    expect((await call(client, "list_tasks", {})).body.tasks).toEqual([]);
  });

  it("answers a bare tools/call (stateless, no session) with the request's own database round trips", async () => {
    const rpc = (id: number, name: string, args: Record<string, unknown>) =>
      api("POST", "/mcp", {
        key: t.owner.key,
        body: { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
        headers: { accept: "application/json, text/event-stream" },
      });
    // The caller's query, then the same single statement GET /tasks/{id} and an unlinked POST /tasks run.
    const read = await rpc(1, "get_task", { id: "MCP-1", fields: "reference" });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ jsonrpc: "2.0", id: 1, result: { structuredContent: { task: { reference: "MCP-1" } } } });
    expect([read.queries, read.transactions]).toEqual([2, 0]);
    const created = await rpc(2, "create_task", { teamId: team.id, title: "One statement" });
    expect(created.body.result.structuredContent.task.title).toBe("One statement");
    expect([created.queries, created.transactions]).toEqual([2, 0]);
  });

  it("answers 401 in the API's error body without a valid credential, before any MCP message", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    };
    for (const key of [undefined, "pmk_not-a-real-key-at-all-0000000000000000000"]) {
      const res = await api("POST", "/mcp", { body: initialize, key, headers: { accept: "application/json, text/event-stream" } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: "UNAUTHORIZED", message: expect.stringContaining("Authentication required") } });
    }
    // The SDK client sees the status (and would start its OAuth flow if it had one).
    await expect(connect({})).rejects.toMatchObject({ code: 401 });
  });

  it("is stateless: GET and DELETE are 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await api(method, "/mcp", { key: t.owner.key });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(res.body).toEqual({ error: { code: "METHOD_NOT_ALLOWED", message: expect.stringContaining("POST") } });
    }
  });
});
