// `pm` for setting up and looking around, against the real `npm start`: workspaces and their logins (the device flow,
// approved on the /device page), the CLI session docs/clients.md shows, run as written, and completion and help. The
// daily verbs are cli-daily.test.mjs's; login, logout and the rest of the device flow are cli.test.mjs's.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endCliSession, pmRunner, startCliSession } from "./lib/pm.mjs";
import { approveOnDevicePage, newEngineeringTeam, root, STARTUP_MS, signUp } from "./lib/stack.mjs";

let stack;
let owner;
let configHome;
/** The environment of a script: the owner's key. */
let env;

const { startPm, pm, pmJson, waitFor } = pmRunner(() => configHome);
const configPath = () => path.join(configHome, "pm", "config.json");
const storedConfig = () => JSON.parse(readFileSync(configPath(), "utf8"));

beforeAll(async () => {
  ({ stack, owner, env, configHome } = await startCliSession("workspaces"));
  await newEngineeringTeam(stack, owner);
  const task = await stack.call("POST", "/tasks", { key: owner.key, body: { teamId: "ENG", title: "Set up" } });
  expect(task.status, task.text).toBe(201);
}, STARTUP_MS + 30_000);

afterAll(() => endCliSession({ stack, configHome }), 40_000);

describe("pm workspaces", () => {
  /** `pm login` approved on the /device page for the workspace `slug`. */
  async function loginTo(slug) {
    const login = startPm(["login", "--base-url", stack.base]);
    const [, userCode] = await waitFor(login, /enter the code: (\S+)/);
    const { confirm } = await approveOnDevicePage(stack, { userCode, email: owner.email, mailNumber: ++owner.mails, workspaceSlug: slug });
    expect(confirm.text).toContain("Device approved");
    const done = await login.done;
    expect(done.code, done.stderr).toBe(0);
  }

  it("lists yours (current marked), keeps a login per workspace, switches with `use`, and takes --workspace anywhere", async () => {
    // A second workspace with the same name, the owner its OWNER.
    const me = await stack.call("GET", "/me", { key: owner.key });
    const exported = await stack.call("GET", `/workspaces/${me.body.workspace.id}/export`, { key: owner.key });
    const imported = await stack.call("POST", "/workspaces/import", { key: owner.key, body: { data: exported.body } });
    expect(imported.status, imported.text).toBe(201);
    const other = imported.body.workspace;
    expect(other.name).toBe(me.body.workspace.name);

    await loginTo(owner.slug);
    await loginTo(other.slug);
    expect(storedConfig()).toMatchObject({ workspace: other.slug, others: { [owner.slug]: { baseUrl: stack.base } } });

    const listed = await pm(["workspaces", "--sort", "createdAt:asc"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trimEnd().split("\n")).toEqual([
      expect.stringMatching(/^ +NAME +SLUG +ROLE +LOGIN$/),
      // Your role in each workspace with a login kept, read with that login.
      expect.stringMatching(new RegExp(`^ +Smoke Works +${owner.slug} +OWNER +yes$`)),
      expect.stringMatching(new RegExp(`^\\* +Smoke Works +${other.slug} +OWNER +yes$`)),
    ]);
    // The imported workspace has its own ENG-1; --workspace reads the other one without switching.
    expect((await pmJson(["whoami"])).workspace.slug).toBe(other.slug);
    expect((await pmJson(["whoami", "--workspace", owner.slug])).workspace.slug).toBe(owner.slug);
    expect((await pm(["comment", "ENG-1", "In the first", "--workspace", owner.slug])).code).toBe(0);

    expect((await pm(["workspace", "use", owner.slug])).stdout).toBe(`now using ${owner.slug} (${stack.base})\n`);
    expect((await pmJson(["whoami"])).workspace.slug).toBe(owner.slug);
    const unknown = await pm(["workspace", "use", "nowhere"]);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/not logged in to the workspace 'nowhere' \(logged in to: .+\): run `pm login` and choose nowhere/);
    expect((await pm(["whoami", "--workspace", "x"], env)).code).toBe(2);

    // Logout forgets the current login's tokens, keeps its base URL and workspace (and the other login).
    expect((await pm(["logout"])).code).toBe(0);
    const after = storedConfig();
    expect(after).toMatchObject({ baseUrl: stack.base, workspace: owner.slug, others: { [other.slug]: expect.any(Object) } });
    expect(after.token).toBeUndefined();
    expect((await pm(["whoami"])).code).toBe(3);
    expect((await pmJson(["whoami", "--workspace", other.slug])).workspace.slug).toBe(other.slug);
  }, 60_000);
});

describe("the CLI session of docs/clients.md", () => {
  /** The words of a shell command line: quoted strings ('…', "…") or runs without spaces. */
  const words = (line) =>
    [...line.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g)].map((m) => m[1] ?? m[2]?.replace(/\\(.)/g, "$1") ?? m[3]);

  it("runs as written (as a script in a new workspace; login and logout are the device flow's, tested in cli.test.mjs)", async () => {
    const doc = readFileSync(path.join(root, "docs/clients.md"), "utf8");
    const block = /\n```\n(\$ npx pm login[\s\S]*?)```/.exec(doc)[1];
    const steps = block.split(/^\$ /m).filter(Boolean);
    expect(steps.length).toBeGreaterThan(10);
    const reader = await signUp(stack, "readme");
    const team = await stack.call("POST", "/teams", { key: reader.key, body: { name: "Engineering", prefix: "ENG" } });
    expect(team.status, team.text).toBe(201);
    const scriptEnv = { PM_API_KEY: reader.key, PM_BASE_URL: stack.base };
    writeFileSync(path.join(configHome, "notes.md"), "Notes from a file\n");
    for (const step of steps) {
      const [command, ...shown] = step.trimEnd().split("\n");
      const line = command.replace(/\s{2,}#.*$/, "");
      if (/^npx pm (login|logout)\b/.test(line)) continue;
      const [, input] = /<\s*(\S+)/.exec(line) ?? [];
      const args = words(line.replace(/[<>]\s*\S+/g, "")).slice(2);
      const result = await pm(args, scriptEnv, input ? readFileSync(path.join(configHome, input), "utf8") : undefined);
      const expectedCode = shown.some((text) => text.startsWith("error:")) ? 1 : 0;
      expect(result.code, `${line}: ${result.stderr}`).toBe(expectedCode);
      for (const text of shown) expect(`${result.stdout}${result.stderr}`, line).toContain(text);
    }
    const comments = await stack.call("GET", "/tasks/ENG-1/comments", { key: reader.key });
    expect(comments.body.comments.map((c) => c.content)).toEqual(["Shipped **today**", "Notes from a file"]);
  });
});

describe("completion and help", () => {
  it("completes commands and options in bash (and zsh, fish) from the command tree", async () => {
    const script = (await pm(["completion", "bash"])).stdout;
    const complete = (words) => {
      const bash = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _pm; echo "\${COMPREPLY[*]}"`;
      return spawnBash(bash);
    };
    expect(complete(["pm", "ta"])).toBe("tasks");
    expect(complete(["pm", "tasks", "c"])).toBe("create close claim");
    expect(complete(["pm", "tasks", "edit", "ENG-1", "--add"])).toBe("--add-label");
    expect(complete(["pm", "workspace", ""])).toBe("list use --help -h");
    expect((await pm(["completion", "zsh"])).stdout).toMatch(/^#compdef pm\n/);
    const fish = (await pm(["completion", "fish"])).stdout;
    expect(fish).toContain(
      "complete -c pm -n '__fish_seen_subcommand_from tasks; and not __fish_seen_subcommand_from list view get create edit update close reopen delete history link unlink claim release delegate' -a close",
    );
    expect(fish).toMatch(
      /^complete -c pm -n '__fish_seen_subcommand_from tasks; and __fish_seen_subcommand_from list' -l assignee -s a -d /m,
    );
    expect((await pm(["completion", "tcsh"])).code).toBe(2);
  });

  it("every command's help fits 80 columns", async () => {
    const script = (await pm(["completion", "bash"])).stdout;
    const paths = [...script.matchAll(/^ {4}"([^"]*)"\) words=/gm)].map((m) => m[1]);
    expect(paths.length).toBeGreaterThan(40);
    // Four at a time: each is a process of its own, most of its time Node's start.
    for (let at = 0; at < paths.length; at += 4) {
      const batch = paths.slice(at, at + 4);
      const helps = await Promise.all(batch.map((words) => pm([...words.split(" ").filter(Boolean), "--help"])));
      batch.forEach((words, i) => {
        expect(helps[i].code, words).toBe(0);
        for (const line of helps[i].stdout.split("\n")) expect(line.length, `pm ${words} --help: ${line}`).toBeLessThanOrEqual(80);
      });
    }
  }, 60_000);
});

function spawnBash(script) {
  const run = spawnSync("bash", ["-c", script], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.trim();
}
