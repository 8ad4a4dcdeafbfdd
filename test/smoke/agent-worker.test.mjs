// examples/agent-worker.ts against the real `npm start`, as its README says to run it (docs/agents.md): a person
// delegates a task to an agent; the worker, with the agent's key, finds the pending session, claims the task, posts a
// thought and an action, answers, and releases the task. The session ends `complete` with its activities in order, the
// task is free again, and the person's prompt makes it pending for the next round. The example is bundled for Node as
// the generated-clients smoke test bundles its scripts (types erased, the typed client inlined).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, pmRunner } from "./lib/pm.mjs";
import { root, STARTUP_MS, sharedStack, signUp } from "./lib/stack.mjs";

let stack;
let dir;
let owner;
let agent;
let runWorker;
const { pm, pmJson } = pmRunner(() => dir);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "pm-agent-worker-"));
  const outfile = path.join(dir, "agent-worker.mjs");
  await build({
    entryPoints: [path.join(root, "examples/agent-worker.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile,
    logLevel: "warning",
  });
  ({ runWorker } = await import(pathToFileURL(outfile).href));
  stack = await sharedStack();
  owner = await signUp(stack, "agent-worker");
  const created = await stack.call("POST", "/agents", { key: owner.key, body: { name: "Word counter" } });
  expect(created.status, created.text).toBe(201);
  agent = created.body.agent;
}, STARTUP_MS + 60_000);

afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 40_000);

describe("the example agent worker", () => {
  it("takes a delegated task: claims it, thinks, acts, answers and releases it", async () => {
    const call = async (method, pathname, body, key = owner.key) => {
      const res = await stack.call(method, pathname, { key, body });
      expect(res.status, `${method} ${pathname}: ${res.text}`).toBeLessThan(300);
      return res.body;
    };
    const { team } = await call("POST", "/teams", { name: "Engineering", prefix: "ENG" });
    // A claim is a write of the task: the agent works in the team as a MEMBER.
    await call("POST", `/teams/${team.id}/members`, { userId: agent.id, role: "MEMBER" });
    const { task } = await call("POST", "/tasks", { teamId: team.id, title: "Count the words", description: "one two three four" });
    const delegated = await call("PATCH", `/tasks/${task.reference}`, { delegateId: agent.id });
    const sessionId = delegated.task.session.id;
    expect(delegated.task.session.state).toBe("pending");

    const lines = [];
    const answered = await runWorker({ baseUrl: stack.base, apiKey: agent.apiKey, once: true, pollMs: 200, log: (l) => lines.push(l) });
    expect(answered).toBe(1);
    expect(lines).toEqual([`${task.reference}: claimed for session ${sessionId}`, `${task.reference}: answered`]);

    const { session } = await call("GET", `/agent-sessions/${sessionId}`);
    expect(session.state).toBe("complete");
    const { activities } = await call("GET", `/agent-sessions/${sessionId}/activities`);
    expect(activities.map((a) => a.type)).toEqual(["thought", "action", "response"]);
    expect(activities.map((a) => a.createdBy)).toEqual([agent.id, agent.id, agent.id]);
    expect(activities[1].action).toEqual({ name: "count_words", parameter: task.reference, result: "4" });
    // Released: the task is free, and its open session is gone (complete).
    const after = await call("GET", `/tasks/${task.reference}`);
    expect(after.task.claim).toBeNull();
    expect(after.task.session).toBeNull();

    // A person's prompt makes the session pending; the next round answers it.
    await call("POST", `/agent-sessions/${sessionId}/activities`, { type: "prompt", body: "And the title?" });
    expect(await runWorker({ baseUrl: stack.base, apiKey: agent.apiKey, once: true, pollMs: 200, log: () => {} })).toBe(1);
    const again = await call("GET", `/agent-sessions/${sessionId}/activities`);
    expect(again.activities.map((a) => a.type)).toEqual(["thought", "action", "response", "prompt", "thought", "action", "response"]);
    expect(again.activities[4].body).toContain("And the title?");
  });

  it("pm tasks delegate, pm sessions and pm sessions view, as a script runs them (PM_API_KEY)", async () => {
    buildCli();
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const { team } = (await stack.call("POST", "/teams", { key: owner.key, body: { name: "Operations", prefix: "OPS" } })).body;
    const { task } = (await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: team.id, title: "Rotate the keys" } })).body;
    const delegated = await pmJson(["tasks", "delegate", task.reference, "--to", agent.id], env);
    expect(delegated.task).toMatchObject({ delegateId: agent.id, session: { state: "pending" } });
    const printed = await pm(["tasks", "delegate", task.reference, "--to", agent.id], env);
    expect(printed.stdout).toContain(`session:   ${delegated.task.session.id} (pending)`);
    const listed = await pmJson(["sessions", "--task", task.reference], env);
    expect(listed.sessions.map((s) => s.id)).toEqual([delegated.task.session.id]);
    const viewed = await pmJson(["sessions", "view", delegated.task.session.id], env);
    expect(viewed).toMatchObject({ session: { id: delegated.task.session.id, state: "pending" }, activities: [] });
    const cleared = await pm(["tasks", "delegate", task.reference, "--to", "none"], env);
    expect(cleared.stdout).toContain(`${task.reference} has no delegate`);
  }, 120_000);
});
