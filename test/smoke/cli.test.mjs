// The `pm` CLI against the real `npm start`: built as `npm run build:cli` builds it, run as the `bin` of package.json
// in child processes with their own config directory, as a person (device-flow login approved on the /device page)
// and as a script (PM_API_KEY).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveOnDevicePage, root, STARTUP_MS, signUp, startStack } from "./lib/stack.mjs";

const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const bin = path.join(root, pkg.bin.pm);

let stack;
let owner;
let configHome;

/** Starts `pm` with `args`; `env` adds to a hermetic environment (no PM_* of the caller's, its own config directory). */
function startPm(args, env = {}) {
  const { PM_API_KEY, PM_BASE_URL, ...inherited } = process.env;
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...inherited, XDG_CONFIG_HOME: configHome, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run = { child, stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => {
    run.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    run.stderr += chunk;
  });
  run.done = new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout: run.stdout, stderr: run.stderr })));
  return run;
}

const pm = (args, env) => startPm(args, env).done;
const pmJson = async (args, env) => {
  const result = await pm([...args, "--json"], env);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
};

async function waitFor(run, pattern, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const match = pattern.exec(run.stdout);
    if (match) return match;
    if (run.child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in: ${run.stdout}${run.stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  const [command, ...args] = pkg.scripts["build:cli"].split(/\s+/);
  expect(command).toBe("node");
  const build = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
  configHome = mkdtempSync(path.join(tmpdir(), "pm-cli-config-"));
  stack = await startStack();
  owner = await signUp(stack, "cli");
  const team = await stack.call("POST", "/teams", { key: owner.key, body: { name: "Engineering", prefix: "ENG" } });
  expect(team.status, team.text).toBe(201);
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await stack?.stop();
  if (configHome) rmSync(configHome, { recursive: true, force: true });
}, 40_000);

describe("pm, as a person who logged in", () => {
  it("logs in with the device flow approved on the /device page and stores the token for the owner only", async () => {
    const login = startPm(["login", "--base-url", stack.base]);
    const [, userCode] = await waitFor(login, /enter the code: (\S+)/);
    expect(login.stdout).toContain(`${stack.base}/device?user_code=`);
    const { confirm } = await approveOnDevicePage(stack, { userCode, email: owner.email, mailNumber: ++owner.mails });
    expect(confirm?.text).toContain("Device approved");
    const { code, stdout, stderr } = await login.done;
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`Logged in as Smoke cli <${owner.email}>`);

    const file = path.join(configHome, "pm", "config.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ baseUrl: stack.base, token: expect.any(String) });
    // The stored login names its API: no --base-url from here on.
    expect((await pmJson(["whoami"])).user.email).toBe(owner.email);
  }, 40_000);

  it("creates, lists, shows and updates tasks; comments", async () => {
    const first = await pmJson(["tasks", "create", "--team", "eng", "--title", "Write the engine", "--priority", "high"]);
    expect(first.task).toMatchObject({ reference: "ENG-1", priority: "HIGH", team: { prefix: "ENG" } });
    const created = await pm([
      "tasks",
      "create",
      "--team",
      first.task.teamId,
      "--title",
      "Sub step",
      "--parent",
      "ENG-1",
      "--due",
      "2026-12-24",
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^reference: +ENG-2$/m);
    expect(created.stdout).toMatch(/^due: +2026-12-24$/m);

    // A table for people: a header, one aligned line per task, newest first as sorted.
    const table = await pm(["tasks", "list", "--team", "ENG", "--sort", "createdAt:desc"]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^REF +STATUS +PRIORITY +ASSIGNEE +TITLE$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ENG-2 +TODO +NONE +- +Sub step$/),
      expect.stringMatching(/^ENG-1 +TODO +HIGH +- +Write the engine$/),
    ]);
    expect(new Set(lines.map((line) => line.search(/TITLE|Sub step|Write the engine/))).size).toBe(1);

    const high = await pmJson(["tasks", "list", "--filter", "in:priority=HIGH,URGENT", "--fields", "reference,priority"]);
    expect(high.tasks).toEqual([{ reference: "ENG-1", priority: "HIGH" }]);

    const updated = await pmJson(["tasks", "update", "eng-1", "--status", "done", "--assignee", "me"]);
    expect(updated.task).toMatchObject({ reference: "ENG-1", status: "DONE", assignee: { email: owner.email } });
    expect((await pmJson(["tasks", "get", "ENG-1"])).task.status).toBe("DONE");
    const done = await pmJson(["tasks", "list", "--status", "done", "--assignee", "me", "--fields", "reference"]);
    expect(done.tasks).toEqual([{ reference: "ENG-1" }]);

    const comment = await pmJson(["comment", "ENG-1", "Looks **good**"]);
    expect(comment.comment).toMatchObject({ content: "Looks **good**", author: { email: owner.email } });
    const comments = await stack.call("GET", "/tasks/ENG-1/comments", { key: owner.key });
    expect(comments.body.comments.map((c) => c.id)).toEqual([comment.comment.id]);

    // Search: JSON for scripts, a table for people; an exact reference comes first.
    const found = await pmJson(["search", "engine", "--types", "task"]);
    expect(found.results).toEqual([expect.objectContaining({ type: "task", reference: "ENG-1", title: "Write the engine" })]);
    const byRef = await pm(["search", "eng-2"]);
    expect(byRef.code, byRef.stderr).toBe(0);
    expect(byRef.stdout.split("\n")[0]).toMatch(/^TYPE +REF +TITLE +SNIPPET$/);
    expect(byRef.stdout.split("\n")[1]).toMatch(/^task +ENG-2 +Sub step/);
  });

  it("reports API errors (exit 1) with the code, message and each invalid field, never a stack trace", async () => {
    const missing = await pm(["tasks", "get", "ENG-999"]);
    expect(missing).toMatchObject({ code: 1, stdout: "" });
    expect(missing.stderr).toMatch(/^error: NOT_FOUND: .+$/m);
    const invalid = await pm(["tasks", "update", "ENG-1", "--due", "2026-13-45"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error: VALIDATION_FAILED: .+\n {2}dueDate: .+$/m);
    for (const { stderr } of [missing, invalid]) expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("rejects a wrong command line (exit 2) before calling the API", async () => {
    for (const args of [
      ["tasks", "list", "--bogus"],
      ["tasks", "create", "--title", "no team"],
      ["tasks", "update", "ENG-1", "--status", "SOON"],
      ["tasks"],
    ]) {
      const result = await pm(args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(/^error: .+\nRun `pm.* --help` for usage\.$/m);
    }
  });

  it("logs out (exit 3 afterwards)", async () => {
    expect((await pm(["logout"])).code).toBe(0);
    const after = await pm(["whoami"]);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain("pm login");
    // The command line is checked before the credential.
    expect((await pm(["tasks", "list", "--limit", "many"])).code).toBe(2);
  });
});

describe("pm, as a script with PM_API_KEY", () => {
  it("works without a login; a bad key is exit 3", async () => {
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const teams = await pm(["teams", "list"], env);
    expect(teams.code, teams.stderr).toBe(0);
    expect(teams.stdout).toMatch(/^PREFIX +NAME +PARENT +ID\nENG +Engineering +- +team_\w+\n$/);
    // A field selection chooses the table's columns (top-level names).
    const selected = await pm(["tasks", "list", "--fields", "reference,team{prefix},dueDate"], env);
    expect(selected.stdout).toMatch(/^REFERENCE +TEAM +DUE_DATE\nENG-1 +ENG +-\nENG-2 +ENG +2026-12-24\n$/);
    const bad = await pm(["whoami"], { ...env, PM_API_KEY: "not-a-key" });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/^error: UNAUTHORIZED: /);
  });
});

describe("pm, reading the change feed", () => {
  it("shows a task's history, lists the stream as JSON lines after an event, and follows what is written next", async () => {
    const env = { PM_API_KEY: owner.key, PM_BASE_URL: stack.base };
    const updated = await pm(["tasks", "update", "ENG-2", "--title", "Sub step, refined"], env);
    expect(updated.code, updated.stderr).toBe(0);

    // History for people: newest first, who and how, each change as `field: from → to`.
    const history = await pm(["tasks", "history", "eng-2"], env);
    expect(history.code, history.stderr).toBe(0);
    const lines = history.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^WHEN \(UTC\) +WHO +VIA +TYPE +CHANGES$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +Smoke cli +api_key +task\.updated +title: Sub step → Sub step, refined$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +Smoke cli +jwt +task\.created +-$/),
    ]);
    const json = await pmJson(["tasks", "history", "ENG-2"], env);
    expect(json.events[0].changes).toEqual({ title: { from: "Sub step", to: "Sub step, refined" } });

    // The stream for scripts: one JSON event per line, oldest first; --after gives exactly what came later.
    const listed = await pm(["events", "--json", "--resource", "ENG-2"], env);
    expect(listed.code, listed.stderr).toBe(0);
    const [created, update, ...more] = listed.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(more).toEqual([]);
    expect(created).toMatchObject({ type: "task.created", reference: "ENG-2", actor: { email: owner.email, via: "jwt" } });
    expect(update).toMatchObject({ id: json.events[0].id, type: "task.updated", actor: { via: "api_key" } });
    const after = await pm(["events", "--json", "--after", created.id, "--types", "task.*", "--resource", "eng-2"], env);
    expect(
      after.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).id),
    ).toEqual([update.id]);
    const readable = await pm(["events", "--after", created.id, "--types", "task.*", "--resource", "ENG-2"], env);
    expect(readable.stdout).toMatch(/^\S+ \S+ +task\.updated +ENG-2 +Smoke cli \(api_key\) +title: Sub step → Sub step, refined\n$/);
    expect(readable.stderr).toBe(`resume: --after ${update.id}\n`);

    // --follow: started at the newest event, it prints what is committed afterwards, each once, until interrupted.
    const everything = (await pm(["events", "--json"], env)).stdout.trimEnd().split("\n");
    const newest = JSON.parse(everything.at(-1)).id;
    const follow = startPm(["events", "--follow", "--interval", "0.2", "--after", newest, "--json"], env);
    const comment = await stack.call("POST", "/comments", { key: owner.key, body: { taskId: "ENG-2", content: "Followed" } });
    expect(comment.status, comment.text).toBe(201);
    await waitFor(follow, /"type":"comment\.created"/);
    expect((await pm(["tasks", "update", "ENG-2", "--priority", "low"], env)).code).toBe(0);
    await waitFor(follow, /"type":"task\.updated"/);
    follow.child.kill("SIGINT");
    const followed = await follow.done;
    expect(followed.code, followed.stderr).toBe(0);
    const printed = followed.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(printed.map((e) => [e.type, e.resourceId])).toEqual([
      ["comment.created", comment.body.comment.id],
      ["task.updated", created.resourceId],
    ]);
    expect(printed[1].changes).toEqual({ priority: { from: "NONE", to: "LOW" } });

    // Resuming past the 30 days kept is 410: said plainly, exit 1.
    const gone = await pm(["events", "--after", "evt_01jz8x4q0be0sv3c5kq9v1y2ab"], env);
    expect(gone).toMatchObject({ code: 1, stdout: "" });
    expect(gone.stderr).toMatch(/^error: GONE: events are kept 30 days .* without --after/);
  }, 40_000);
});
