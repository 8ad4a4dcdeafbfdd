// The CLI session of docs/clients.md, run as written against the real `npm start`: its `pm keys create` line makes a
// CI key with only tasks:write and comments:write, and the task and comment lines then run with that key (PM_API_KEY),
// labels by name, the team by prefix. A `<records>:write` scope reads those records (docs/api.md, "Least privilege"),
// so the key lists and gets the tasks it writes; what it may not read stays 403.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli, pmRunner } from "./lib/pm.mjs";
import { root, STARTUP_MS, sharedStack, signUp } from "./lib/stack.mjs";

/** The `$ npx pm …` lines of docs/clients.md, in order, as argument lists (single or double quotes kept together), with what they redirect. */
function documentedSession() {
  const doc = readFileSync(path.join(root, "docs/clients.md"), "utf8");
  return [...doc.matchAll(/^\$ npx pm (.+)$/gm)].map(([, line]) => {
    const [command, redirect] = line.replace(/\s+#.*$/, "").split(/\s+[<>]\s+/);
    const args = [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map(([, quoted, single, bare]) => quoted ?? single ?? bare);
    return { line, args, redirect };
  });
}

let stack;
let owner;
let configHome;
const { pm: runPm } = pmRunner(() => configHome);
/** `pm` against the stack (PM_BASE_URL), with `env` added and `input` on its standard input. */
const pm = (args, env, input) => runPm(args, { PM_BASE_URL: stack.base, ...env }, input ?? "");

beforeAll(async () => {
  buildCli();
  configHome = mkdtempSync(path.join(tmpdir(), "pm-readme-config-"));
  stack = await sharedStack();
  owner = await signUp(stack, "readme");
  const team = await stack.call("POST", "/teams", { key: owner.key, body: { name: "Engines", prefix: "ENG" } });
  expect(team.status, team.text).toBe(201);
  const label = await stack.call("POST", "/labels", { key: owner.key, body: { name: "bug", color: "#D73A4A" } });
  expect(label.status, label.text).toBe(201);
}, STARTUP_MS + 60_000);

afterAll(async () => {
  await stack?.stop();
  if (configHome) rmSync(configHome, { recursive: true, force: true });
}, 40_000);

describe("the least-privilege CI key of docs/clients.md", () => {
  it("runs the session's task and comment lines with a key of only tasks:write and comments:write", async () => {
    const session = documentedSession();
    const keyLine = session.find(({ args }) => args[0] === "keys" && args[1] === "create");
    expect(keyLine?.args).toEqual([
      "keys",
      "create",
      "--name",
      "ci",
      "--scope",
      "tasks:write",
      "--scope",
      "comments:write",
      "--team",
      "ENG",
    ]);
    const made = await pm(keyLine.args, { PM_API_KEY: owner.key });
    expect(made.code, made.stderr).toBe(0);
    const ci = { PM_API_KEY: made.stdout.trim() };
    const me = await stack.call("GET", "/me", { key: ci.PM_API_KEY });
    expect(me.body).toMatchObject({
      scopes: ["tasks:write", "comments:write"],
      reads: [
        "activities",
        "agent-sessions",
        "attachments",
        "comments",
        "links",
        "milestones",
        "projects",
        "relations",
        "states",
        "tasks",
        "worklogs",
      ],
    });

    // From the first task line to `pm tasks get`: every line the session runs on tasks and comments, with the CI key.
    const from = session.findIndex(({ args }) => args[0] === "tasks" && args[1] === "create");
    const to = session.findIndex(({ args }) => args[0] === "tasks" && args[1] === "get");
    const lines = session.slice(from, to + 1).filter(({ args }) => args[0] === "tasks" || args[0] === "comment");
    expect(lines.map(({ args }) => args.slice(0, 2).join(" "))).toEqual(
      expect.arrayContaining(["tasks create", "tasks list", "tasks get", "comment ENG-1"]),
    );
    for (const { line, args, redirect } of lines) {
      const run = await pm(args, ci, redirect ? "Notes from a file" : undefined);
      if (args[1] === "get") {
        // The session's `pm tasks get ENG-99` is its example of an unknown task.
        expect([run.code, run.stderr.trim()], line).toEqual([1, "error: NOT_FOUND: Task not found"]);
      } else {
        expect(run.code, `${line}: ${run.stderr}`).toBe(0);
      }
    }
    const task = await pm(["tasks", "get", "ENG-1", "--json"], ci);
    expect(task.code, task.stderr).toBe(0);
    expect(JSON.parse(task.stdout).task).toMatchObject({ reference: "ENG-1", status: "DONE", labels: [{ name: "bug" }] });
    const listed = await pm(["tasks", "list", "--team", "eng", "--json"], ci);
    expect(JSON.parse(listed.stdout).tasks.map((t) => t.reference)).toEqual(["ENG-1"]);
    // What the key neither writes nor reads through its records stays out of reach.
    const labels = await pm(["labels", "list"], ci);
    expect([labels.code, labels.stderr]).toEqual([1, expect.stringMatching(/^error: FORBIDDEN: .*scope read/m)]);
  }, 120_000);
});
