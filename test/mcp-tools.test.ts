// The MCP tools as agents use them: each answers what its outputSchema says (the REST answer's schema), checked here with
// ajv for every tool and against the REST operation it stands for; milestones, a task's comments and labels by name.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceTools } from "../src/mcp/tools";

const TOOLS = serviceTools();

import { api, get, post } from "./helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";
import { servedOpenApi } from "./helpers/openapi-conformance";
import { scopeOf } from "./helpers/policies";
import { call, connect } from "./mcp-client";

let t: Tenant;
let team: TeamFixture;
let agent: Client;
let listed: McpTool[];
let viewer: Member;
let project: { id: string; reference: string };
let task: { id: string; reference: string };
let blocker: { id: string; reference: string };
let relationId: string;
let agentKey: string;
let sessionId: string;
let notificationId: string;
/** What the write tools of the schema walk delete: a task, the agent's own comment and its own label. */
let doomed: { task: string; comment: string; label: string };
const labels: Record<string, string> = {};
const clients: Client[] = [];
const open = async (key: string) => {
  const client = await connect({ "svc-api-key": key });
  clients.push(client);
  return client;
};

beforeAll(async () => {
  t = await newTenant("MCP tools");
  team = await newTeam(t, { prefix: "MCT", name: "Tools" });
  const created = await post("/agents", { name: "Planner bot" }, t.owner.key);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await post(`/teams/${team.id}/members`, { userId: created.body.agent.id, role: "MEMBER" }, t.owner.key);
  agentKey = created.body.agent.apiKey;
  agent = await open(agentKey);
  listed = (await agent.listTools()).tools;
  viewer = await addMember(t);
  await joinTeam(team, viewer, "VIEWER");
  for (const [name, color] of [
    ["Bug", "#FF0000"],
    ["Needs Design", "#00FF00"],
    ["bugfix", "#0000FF"],
  ]) {
    labels[name] = (await post("/labels", { name, color }, t.owner.key)).body.label.id;
  }
  project = (await post("/projects", { name: "Launch", teamId: team.id }, t.owner.key)).body.project;
  const week = { startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 7 * 86_400_000).toISOString() };
  expect((await post("/cycles", { teamId: team.id, ...week }, t.owner.key)).status).toBe(201);
  task = (await post("/tasks", { title: "Write the engine", teamId: team.id, projectId: project.id }, t.owner.key)).body.task;
  blocker = (await post("/tasks", { title: "Design the engine", teamId: team.id }, t.owner.key)).body.task;
  relationId = (await post(`/tasks/${blocker.id}/relations`, { type: "related", taskId: task.id }, t.owner.key)).body.relation.id;
  sessionId = (await api("PATCH", `/tasks/${blocker.id}`, { body: { delegateId: created.body.agent.id }, key: t.owner.key })).body.task
    .session.id;
  // The delegation is the agent's notification.
  notificationId = (await get("/notifications", agentKey)).body.notifications[0].id;
  // A label's creator may change and delete it: the agent's own.
  for (const name of ["Agent label", "Doomed label"]) await post("/labels", { name, color: "#333333" }, agentKey);
  doomed = {
    task: (await post("/tasks", { title: "Doomed", teamId: team.id }, t.owner.key)).body.task.reference,
    comment: (await post("/comments", { taskId: task.id, content: "Doomed" }, agentKey)).body.comment.id,
    label: "doomed label",
  };
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

describe("every tool answers what its outputSchema says", () => {
  /** Arguments that make each tool answer (not refuse), given the fixtures. */
  const ARGS: Record<string, () => Record<string, unknown>> = {
    get_task: () => ({ id: task.reference }),
    list_tasks: () => ({ sort: { number: "desc" } }),
    create_task: () => ({ teamId: team.id, title: "Schema check", labelIds: ["bug"], dueDate: "2026-12-24" }),
    update_task: () => ({ id: task.reference, priority: "HIGH", labelIds: ["needs design"] }),
    delete_task: () => ({ id: doomed.task }),
    bulk_update_tasks: () => ({ ids: [task.reference], set: { priority: "LOW" }, dryRun: true }),
    claim_task: () => ({ filter: { eq: { teamId: "MCT" } }, sort: { createdAt: "asc" } }),
    release_task: () => ({ id: task.reference }),
    link_tasks: () => ({ id: task.reference, type: "blocked_by", taskId: blocker.reference }),
    unlink_tasks: () => ({ id: task.reference, relationId }),
    add_link: () => ({ id: task.reference, url: "https://example.com/pr/1", title: "The PR" }),
    add_comment: () => ({ taskId: task.reference, content: "Schema **check**" }),
    list_task_comments: () => ({ id: task.reference }),
    list_attachments: () => ({ id: task.reference }),
    log_time: () => ({ id: task.reference, duration: "1h 30m", note: "Schema check" }),
    list_worklogs: () => ({ filter: { eq: { taskId: task.reference } } }),
    delete_comment: () => ({ id: doomed.comment }),
    list_users: () => ({ filter: { contains: { name: "planner" } } }),
    create_project: () => ({ teamId: "mct", name: "Schema check", labelIds: ["bug"] }),
    update_project: () => ({ id: project.reference, status: "ACTIVE" }),
    create_label: () => ({ name: "Schema check", color: "#abcdef" }),
    update_label: () => ({ id: "agent label", color: "#444444" }),
    delete_label: () => ({ id: doomed.label }),
    search: () => ({ q: "engine" }),
    list_teams: () => ({}),
    list_states: () => ({ id: "mct" }),
    list_projects: () => ({}),
    list_milestones: () => ({}),
    create_milestone: () => ({ projectId: project.reference, name: "Beta", targetDate: "2026-06-30" }),
    list_labels: () => ({}),
    get_task_history: () => ({ id: task.reference }),
    list_events: () => ({}),
    list_sessions: () => ({ filter: { eq: { state: "pending" } } }),
    get_session: () => ({ id: sessionId }),
    post_activity: () => ({ id: sessionId, type: "thought", body: "Checking the **schema**" }),
    list_notifications: () => ({ unread: true }),
    mark_read: () => ({ id: notificationId }),
    list_cycles: () => ({}),
    get_cycle: () => ({ id: "MCT-C1" }),
  };

  it("each tool is in the table, declares an object outputSchema and stands for a documented REST operation with its scope", async () => {
    expect(Object.keys(ARGS).sort()).toEqual(listed.map((tool) => tool.name).sort());
    const openapi = await servedOpenApi();
    for (const tool of TOOLS) {
      const mcp = listed.find((l) => l.name === tool.name);
      expect(mcp?.outputSchema?.type, tool.name).toBe("object");
      const [method, path] = tool.rest.split(" ");
      const operation = openapi.operation(method, path);
      expect(operation?.path, `${tool.name}: ${tool.rest}`).toBe(path);
      expect(tool.scope).toBe(scopeOf(method, path));
      expect(operation?.op["x-required-scope"], tool.name).toBe(tool.scope);
      expect(mcp?.annotations?.readOnlyHint, tool.name).toBe(method === "GET");
    }
  });

  it("structuredContent validates against the listed outputSchema (ajv) and the REST operation's documented answer", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const openapi = await servedOpenApi();
    for (const tool of listed) {
      const result = (await agent.callTool({ name: tool.name, arguments: ARGS[tool.name]() })) as any;
      expect(result.isError, `${tool.name}: ${result.content[0].text}`).toBeUndefined();
      const validate = ajv.compile(tool.outputSchema as object);
      expect(validate(result.structuredContent), `${tool.name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      expect(result.structuredContent).toEqual(JSON.parse(result.content[0].text));
      // What the REST route answers: the document's schema of its success response (its headers are HTTP's, not the tool's).
      const [method, path] = (TOOLS.find((t) => t.name === tool.name)?.rest ?? "").split(" ");
      const status = Number(Object.keys(openapi.operation(method, path)?.op.responses ?? {}).find((s) => s.startsWith("2")));
      // A 204 has no body to compare: the tool says {deleted: true}, which its outputSchema checked above.
      if (status === 204) continue;
      const headers = new Headers({ "content-type": "application/json" });
      const problems = openapi.problems(method, `http://api.test${path}`, status, headers, JSON.stringify(result.structuredContent));
      expect(
        problems.filter((problem) => !problem.startsWith("documented header")),
        tool.name,
      ).toEqual([]);
    }
    // A narrowed answer (`fields`) is what the schema admits too; the SDK client checked each answer as well.
    const narrowed = await call(agent, "get_task", { id: task.reference, fields: "reference,team{prefix},labels{name}" });
    expect(ajv.validate(listed.find((l) => l.name === "get_task")?.outputSchema as object, narrowed.body)).toBe(true);
  });

  it("a tool error carries the REST error body as text and no structuredContent", async () => {
    const result = (await agent.callTool({ name: "get_task", arguments: { id: "MCT-999" } })) as any;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(JSON.parse(result.content[0].text)).toEqual({ error: { code: "NOT_FOUND", message: "Task not found" } });
  });
});

describe("milestones", () => {
  it("creates one in a project (by reference) and lists a project's, as the REST routes answer them", async () => {
    const created = await call(agent, "create_milestone", { projectId: project.reference, name: "GA", description: "Ship **it**" });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    const milestone = created.body.milestone;
    expect(milestone).toMatchObject({ projectId: project.id, name: "GA", status: "PLANNED", targetDate: null, description: "Ship **it**" });
    expect((await get(`/milestones/${milestone.id}`, t.owner.key)).body.milestone).toEqual(milestone);
    const args = { filter: { eq: { projectId: project.id } }, sort: { name: "asc" }, fields: "name,status" };
    const mine = await call(agent, "list_milestones", args);
    expect(mine.body.milestones).toContainEqual({ name: "GA", status: "PLANNED" });
    const rest = await get(`/milestones?filter[eq][projectId]=${project.id}&sort[name]=asc&fields=name,status`, t.owner.key);
    expect(mine.body).toEqual(rest.body);
    // A task joins it by id, with update_task.
    const joined = await call(agent, "update_task", { id: task.reference, milestoneId: milestone.id });
    expect(joined.body.task.milestoneId).toBe(milestone.id);
  });

  it("refuses as POST /milestones does: a team VIEWER (403), an unknown project (404), a bad status (422)", async () => {
    const client = await open(viewer.key);
    expect((await call(client, "create_milestone", { projectId: project.id, name: "Nope" })).body.error.code).toBe("FORBIDDEN");
    expect(await call(agent, "create_milestone", { projectId: "MCT-P99", name: "Nope" })).toEqual({
      isError: true,
      body: { error: { code: "NOT_FOUND", message: "Project not found" } },
    });
    const bad = await call(agent, "create_milestone", { projectId: project.id, name: "Nope", status: "SOMEDAY" });
    expect(bad).toEqual({ isError: true, body: { errors: { status: [expect.stringContaining("PLANNED")] } } });
  });
});

describe("a task's comments", () => {
  it("lists them oldest first with the brief author, paged, as GET /tasks/{id}/comments answers", async () => {
    const own = (await call(agent, "create_task", { teamId: team.id, title: "Discussed" })).body.task;
    const first = (await call(agent, "add_comment", { taskId: own.reference, content: "First" })).body.comment;
    await post("/comments", { taskId: own.id, content: "Second, by the owner" }, t.owner.key);
    const all = await call(agent, "list_task_comments", { id: own.reference.toLowerCase() });
    expect(all.body).toEqual((await get(`/tasks/${own.reference}/comments`, t.owner.key)).body);
    expect(all.body.comments.map((c: any) => c.content)).toEqual(["First", "Second, by the owner"]);
    expect(Object.keys(all.body.comments[0].author).sort()).toEqual(["email", "id", "name"]);
    const page = await call(agent, "list_task_comments", { id: own.id, limit: 1, fields: "id" });
    expect(page.body.comments).toEqual([{ id: first.id }]);
    const next = await call(agent, "list_task_comments", {
      id: own.id,
      limit: 1,
      fields: "content",
      cursor: page.body.pagination.nextCursor,
    });
    expect(next.body).toEqual({ comments: [{ content: "Second, by the owner" }], pagination: { limit: 1, nextCursor: null } });
  });

  it("an unknown or foreign task is NOT_FOUND", async () => {
    expect((await call(agent, "list_task_comments", { id: "MCT-999" })).body).toEqual({
      error: { code: "NOT_FOUND", message: "Task not found" },
    });
    const other = await newTenant("Comments elsewhere");
    const stranger = await open(other.owner.key);
    expect((await call(stranger, "list_task_comments", { id: task.id })).body.error.code).toBe("NOT_FOUND");
  });
});

describe("names passed through", () => {
  const labelNames = (t: any) => t.labels.map((l: any) => l.name).sort();

  it("create_task and update_task take labelIds by name in any case, a team prefix, a reference and an email", async () => {
    const created = await call(agent, "create_task", {
      teamId: team.prefix.toLowerCase(),
      title: "Labelled",
      labelIds: ["BUG", "needs design", "Bug"],
      assigneeId: t.owner.email,
    });
    expect(created.isError, JSON.stringify(created.body)).toBe(false);
    expect(labelNames(created.body.task)).toEqual(["Bug", "Needs Design"]);
    expect([created.body.task.teamId, created.body.task.assigneeId]).toEqual([team.id, t.owner.userId]);
    const id = created.body.task.reference;
    expect(labelNames((await call(agent, "update_task", { id, labelIds: ["bugfix"], parentId: task.reference })).body.task)).toEqual([
      "bugfix",
    ]);
    expect((await call(agent, "update_task", { id, labelIds: [] })).body.task.labels).toEqual([]);
    const byId = await call(agent, "update_task", { id, labelIds: [labels.Bug] });
    expect(labelNames(byId.body.task)).toEqual(["Bug"]);
  });

  it("an unknown name (or another workspace's) is the 404 POST /tasks answers, and nothing is written", async () => {
    const other = await newTenant("Labels elsewhere");
    await post("/labels", { name: "Secret", color: "#123456" }, other.owner.key);
    const before = (await get(`/tasks?filter[eq][teamId]=${team.id}&limit=250&fields=id`, t.owner.key)).body.tasks.length;
    const body = { teamId: team.id, title: "Never", labelIds: ["bug", "Secret"] };
    const rest = await api("POST", "/tasks", { key: t.owner.key, body });
    expect(rest.status).toBe(404);
    expect(await call(agent, "create_task", body)).toEqual({ isError: true, body: rest.body });
    expect((await get(`/tasks?filter[eq][teamId]=${team.id}&limit=250&fields=id`, t.owner.key)).body.tasks).toHaveLength(before);
  });

  it("the tools' schemas say which names they take", () => {
    for (const name of ["create_task", "update_task"]) {
      const tool = listed.find((l) => l.name === name) as any;
      expect(tool.inputSchema.properties.labels).toBeUndefined();
      expect(JSON.stringify(tool.inputSchema.properties.assigneeId)).toContain("email");
      expect(JSON.stringify(tool.inputSchema.properties.labelIds)).toContain("name");
    }
  });
});

describe("REST and MCP agree on refusals of a write", () => {
  it("a VIEWER's create_task is the 403 POST /tasks answers", async () => {
    const client = await open(viewer.key);
    const rest = await api("POST", "/tasks", { key: viewer.key, body: { teamId: team.id, title: "x" } });
    expect((await call(client, "create_task", { teamId: team.id, title: "x", labelIds: ["bug"] })).body).toEqual(rest.body);
  });
});

describe("relations through MCP", () => {
  it("link_tasks relates (as POST /tasks/{id}/relations), get_task shows the blockers with their status, unlink_tasks removes", async () => {
    const [a, b] = await Promise.all(
      ["Blocked by MCP", "Blocking via MCP"].map(
        async (title) => (await post("/tasks", { title, teamId: team.id }, t.owner.key)).body.task,
      ),
    );
    const linked = await call(agent, "link_tasks", { id: a.reference, type: "blocked_by", taskId: b.reference });
    expect(linked.body.relation).toMatchObject({ type: "blocked_by", task: { reference: b.reference, status: "TODO" } });
    const read = (await call(agent, "get_task", { id: a.reference })).body.task;
    expect(read.blockedByCount).toBe(1);
    expect(read.relations).toEqual([
      expect.objectContaining({ type: "blocked_by", task: expect.objectContaining({ reference: b.reference, status: "TODO" }) }),
    ]);
    // A cycle is refused as REST refuses it.
    const cycle = await call(agent, "link_tasks", { id: a.reference, type: "blocks", taskId: b.reference });
    expect(JSON.stringify(cycle.body)).toContain("cycle");
    expect((await call(agent, "unlink_tasks", { id: b.reference, relationId: linked.body.relation.id })).body).toEqual({
      deleted: true,
      position: expect.stringMatching(/^evt_/),
    });
    expect((await call(agent, "get_task", { id: a.reference })).body.task).toMatchObject({ blockedByCount: 0, relations: [] });
    // list_tasks filters by isBlocked and relatedTo as GET /tasks does.
    await call(agent, "link_tasks", { id: b.reference, type: "blocks", taskId: a.reference });
    const blocked = await call(agent, "list_tasks", { filter: { eq: { isBlocked: true, relatedTo: b.reference } } });
    expect(blocked.body.tasks.map((x: { reference: string }) => x.reference)).toEqual([a.reference]);
  });
});

describe("links through MCP", () => {
  it("add_link adds as POST /tasks/{id}/links (the same URL again: the same link), get_task lists the links", async () => {
    const a = (await post("/tasks", { title: "Linked by MCP", teamId: team.id }, t.owner.key)).body.task;
    const added = await call(agent, "add_link", { id: a.reference, url: "https://github.com/acme/api/pull/7", title: "PR 7" });
    expect(added.isError).toBe(false);
    expect(added.body.link).toMatchObject({ taskId: a.id, url: "https://github.com/acme/api/pull/7", title: "PR 7" });
    expect((await call(agent, "add_link", { id: a.reference, url: "https://github.com/acme/api/pull/7" })).body).toEqual(added.body);
    expect((await call(agent, "get_task", { id: a.reference })).body.task.links).toEqual([added.body.link]);
    expect((await get(`/tasks/${a.id}/links`, t.owner.key)).body.links).toEqual([added.body.link]);
    const refused = await call(agent, "add_link", { id: a.reference, url: "javascript:alert(1)" });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.body)).toContain("http or https");
  });
});

describe("finding users, projects and labels, and deleting, through MCP", () => {
  it("list_users finds a member by name or email, as GET /users with the same filter answers", async () => {
    const byName = await call(agent, "list_users", { filter: { contains: { name: "PLANNER" } }, fields: "name,type" });
    expect(byName.body.users).toEqual([{ name: "Planner bot", type: "AGENT" }]);
    expect(byName.body).toEqual((await get("/users?filter[contains][name]=PLANNER&fields=name,type", t.owner.key)).body);
    const byEmail = await call(agent, "list_users", { filter: { eq: { email: viewer.email } }, fields: "id" });
    expect(byEmail.body.users).toEqual([{ id: viewer.userId }]);
  });

  it("create_project and update_project take a team prefix, a lead's email and label names; the answer is GET /projects/{id}'s", async () => {
    const made = await call(agent, "create_project", { teamId: "MCT", name: "Roadmap", leadId: t.owner.email, labelIds: ["BUG"] });
    expect(made.isError, JSON.stringify(made.body)).toBe(false);
    expect(made.body.project).toMatchObject({ name: "Roadmap", teamId: team.id, leadId: t.owner.userId });
    expect(made.body.project.labels.map((l: any) => l.name)).toEqual(["Bug"]);
    const changed = await call(agent, "update_project", { id: made.body.project.reference.toLowerCase(), leadId: null, status: "ACTIVE" });
    expect(changed.body.project).toMatchObject({ leadId: null, status: "ACTIVE" });
    expect((await get(`/projects/${made.body.project.id}`, t.owner.key)).body.project).toEqual(changed.body.project);
    // A team VIEWER is refused as POST /projects refuses it.
    const rest = await api("POST", "/projects", { key: viewer.key, body: { teamId: team.id, name: "Nope" } });
    expect(rest.status).toBe(403);
    expect(await call(await open(viewer.key), "create_project", { teamId: team.id, name: "Nope" })).toEqual({
      isError: true,
      body: rest.body,
    });
  });

  it("create_label, update_label and delete_label take a label by name; a taken name is REST's 409", async () => {
    const made = await call(agent, "create_label", { name: "Ops", color: "#00ff00" });
    expect(made.body.label).toMatchObject({ name: "Ops", color: "#00FF00" });
    const taken = await call(agent, "create_label", { name: "OPS", color: "#00ff00" });
    const rest = await api("POST", "/labels", { key: agentKey, body: { name: "OPS", color: "#00ff00" } });
    expect(rest.status).toBe(409);
    expect(taken).toEqual({ isError: true, body: rest.body });
    expect((await call(agent, "update_label", { id: "ops", name: "Operations" })).body.label).toMatchObject({
      id: made.body.label.id,
      name: "Operations",
    });
    expect((await call(agent, "delete_label", { id: "OPERATIONS" })).body).toEqual({
      deleted: true,
      position: expect.stringMatching(/^evt_/),
    });
    expect((await api("GET", `/labels/${made.body.label.id}`, { key: t.owner.key })).status).toBe(404);
    // Another's label: REST's 403 (its creator or an ADMIN), and it stays.
    const refused = await call(agent, "delete_label", { id: "bug" });
    expect(refused).toEqual({ isError: true, body: (await api("DELETE", `/labels/${labels.Bug}`, { key: agentKey })).body });
    expect(refused.body.error.code).toBe("FORBIDDEN");
  });

  it("delete_task takes a reference and its subtasks go with it; delete_comment refuses another's comment as REST does", async () => {
    const parent = (await post("/tasks", { title: "Going", teamId: team.id }, t.owner.key)).body.task;
    const sub = (await post("/tasks", { title: "Going too", teamId: team.id, parentId: parent.id }, t.owner.key)).body.task;
    expect((await call(agent, "delete_task", { id: parent.reference.toLowerCase() })).body).toEqual({
      deleted: true,
      position: expect.stringMatching(/^evt_/),
    });
    for (const gone of [parent, sub]) expect((await api("GET", `/tasks/${gone.id}`, { key: t.owner.key })).status).toBe(404);
    expect((await call(agent, "delete_task", { id: parent.reference })).body).toEqual({
      error: { code: "NOT_FOUND", message: "Task not found" },
    });
    const owners = (await post("/comments", { taskId: task.id, content: "The owner's" }, t.owner.key)).body.comment;
    const refused = await call(agent, "delete_comment", { id: owners.id });
    const rest = await api("DELETE", `/comments/${owners.id}`, { key: agentKey });
    expect(rest.status).toBe(403);
    expect(refused).toEqual({ isError: true, body: rest.body });
    expect((await get(`/comments/${owners.id}`, t.owner.key)).status).toBe(200);
  });

  it("annotations: deletes are destructive, other writes are not, reads are read-only", () => {
    const hints = Object.fromEntries(listed.map((tool) => [tool.name, tool.annotations]));
    expect(hints.delete_task).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(hints.create_label).toEqual({ readOnlyHint: false, destructiveHint: false });
    expect(hints.list_users).toEqual({ readOnlyHint: true });
  });
});
