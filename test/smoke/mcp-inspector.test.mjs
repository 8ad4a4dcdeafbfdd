// The MCP endpoint driven by the official MCP Inspector's CLI mode (`npx @modelcontextprotocol/inspector --cli`) against
// the real `npm start`, as docs/clients.md shows it: an agent with its own key lists its tools and calls them.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newEngineeringTeam, root, STARTUP_MS, sharedStack, signUp } from "./lib/stack.mjs";

const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
// The first run may download the Inspector into npx's cache.
const INSPECTOR_MS = 120_000;

let stack;
let owner;
let team;
let agentKey;

/** Runs the Inspector's CLI on the stack's /mcp with `args`; resolves with its exit code and output. */
function inspector(args, { key = agentKey } = {}) {
  const child = spawn("npx", ["-y", INSPECTOR, "--cli", `${stack.base}/mcp`, "--header", `svc-api-key: ${key}`, ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  stack = await sharedStack();
  owner = await signUp(stack, "mcp");
  team = await newEngineeringTeam(stack, owner);
  const agent = await stack.call("POST", "/agents", { key: owner.key, body: { name: "Triage bot" } });
  expect(agent.status, agent.text).toBe(201);
  agentKey = agent.body.agent.apiKey;
  const joined = await stack.call("POST", `/teams/${team.id}/members`, {
    key: owner.key,
    body: { userId: agent.body.agent.id, role: "MEMBER" },
  });
  expect(joined.status, joined.text).toBe(201);
  const label = await stack.call("POST", "/labels", { key: owner.key, body: { name: "Bug", color: "#FF0000" } });
  expect(label.status, label.text).toBe(201);
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await stack?.stop();
}, 40_000);

const TOOLS = [
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

describe("the MCP Inspector CLI against npm start", () => {
  it(
    "lists the tools, as docs/clients.md runs it: each with an input and an output schema",
    async () => {
      const run = await inspector(["--method", "tools/list"]);
      expect(run.code, run.stderr).toBe(0);
      const { tools } = JSON.parse(run.stdout);
      expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
      for (const tool of tools) {
        expect(tool.inputSchema.type, tool.name).toBe("object");
        expect(tool.outputSchema.type, tool.name).toBe("object");
      }
    },
    INSPECTOR_MS,
  );

  it(
    "calls list_teams and create_task (arguments as --tool-arg, a label by name, as docs/clients.md does)",
    async () => {
      const teams = await inspector(["--method", "tools/call", "--tool-name", "list_teams", "--format", "json"]);
      expect(teams.code, teams.stderr).toBe(0);
      const { result } = JSON.parse(teams.stdout);
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent.teams.map((t) => [t.prefix, t.name])).toEqual([["ENG", "Engineering"]]);
      expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);

      const created = await inspector([
        "--method",
        "tools/call",
        "--tool-name",
        "create_task",
        "--tool-arg",
        `teamId=${team.id}`,
        "--tool-arg",
        "title=Triage the inbox",
        "--tool-arg",
        'labelIds=["bug"]',
      ]);
      expect(created.code, created.stderr).toBe(0);
      const { structuredContent } = JSON.parse(created.stdout);
      expect(structuredContent.task).toMatchObject({ reference: "ENG-1", title: "Triage the inbox", teamId: team.id });
      expect(structuredContent.task.labels.map((l) => l.name)).toEqual(["Bug"]);
      const rest = await stack.call("GET", "/tasks/ENG-1", { key: owner.key });
      expect(rest.body.task).toEqual(structuredContent.task);
    },
    INSPECTOR_MS,
  );

  it(
    "finds no portability problem in the tools' schemas, error or warning (--strict)",
    async () => {
      const run = await inspector(["--method", "tools/list", "--strict", "--format", "json"]);
      expect(run.code, run.stderr.slice(-3000)).toBe(0);
      expect(run.stderr).not.toMatch(/^Error: /m);
      // The JSON envelope carries schemaFindings only when there are some (there were 90 warnings once).
      const listed = JSON.parse(run.stdout);
      expect(listed.schemaFindings, run.stderr.slice(-3000)).toBeUndefined();
      expect(listed.result.tools).toHaveLength(TOOLS.length);
    },
    INSPECTOR_MS,
  );

  it(
    "a bad key is the 401 an MCP client starts a login on: without a stored login, auth_required, reported as a bad key",
    async () => {
      const run = await inspector(["--method", "tools/list", "--stored-auth-only"], {
        key: "pmk_not-a-real-key-at-all-0000000000000000000",
      });
      expect(run.code).not.toBe(0);
      expect(`${run.stdout}${run.stderr}`).toContain('"code":"auth_required"');
      // The Inspector prints the 401's body: it names the key as what is wrong, not a missing login.
      expect(`${run.stdout}${run.stderr}`).toContain("the svc-api-key header holds no valid API key");
    },
    INSPECTOR_MS,
  );
});

describe("login discovery against npm start", () => {
  it("a 401 names the resource metadata at the stack's own address, which names the MCP endpoint", async () => {
    const refused = await stack.call("POST", "/mcp", { body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(refused.status).toBe(401);
    const metadataUrl = `${stack.base}/.well-known/oauth-protected-resource`;
    expect(refused.headers.get("www-authenticate")).toBe(`Bearer realm="pm", resource_metadata="${metadataUrl}"`);
    const metadata = await stack.call("GET", "/.well-known/oauth-protected-resource");
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({
      resource: `${stack.base}/mcp`,
      authorization_servers: [stack.base],
      bearer_methods_supported: ["header"],
    });
    expect(metadata.body.scopes_supported).toContain("tasks:write");
  });
});
