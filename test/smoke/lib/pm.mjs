// Running `pm` in the smoke tests: built as `npm run build:cli` builds it, run as the `bin` of cli/package.json in child
// processes with their own config directory and a hermetic environment.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { root, sharedStack, signUp } from "./stack.mjs";

const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const cliPkg = JSON.parse(readFileSync(path.join(root, "cli/package.json"), "utf8"));
export const bin = path.join(root, "cli", cliPkg.bin.pm);

const shellQuoted = (word) => `'${String(word).replace(/'/g, "'\\''")}'`;

/** The environment of `owner`'s scripts against `stack`: their key and its address. */
export const scriptEnv = (stack, owner) => ({ PM_API_KEY: owner.key, PM_BASE_URL: stack.base });

/**
 * What a file that drives `pm` against the shared `npm start` sets up first: the CLI built, a person signed up as `tag`,
 * their scripts' environment and a config folder of its own (`pm-<tag>-config-…`). endCliSession undoes it.
 */
export async function startCliSession(tag) {
  buildCli();
  const stack = await sharedStack();
  const owner = await signUp(stack, tag);
  return { stack, owner, env: scriptEnv(stack, owner), configHome: mkdtempSync(path.join(tmpdir(), `pm-${tag}-config-`)) };
}

export async function endCliSession({ stack, configHome }) {
  await stack?.stop();
  if (configHome) rmSync(configHome, { recursive: true, force: true });
}

/** Builds the CLI exactly as `npm run build:cli` does. */
export function buildCli() {
  const [command, ...args] = pkg.scripts["build:cli"].split(/\s+/);
  expect(command).toBe("node");
  const build = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);
}

/** The runners of `pm` whose config directory is `configHome()`. */
export function pmRunner(configHome) {
  /**
   * Starts `pm` with `args`; `env` adds to a hermetic environment (no PM_* of the caller's, its own config directory;
   * a name given as undefined is left out); `input` is its standard input; `cwd` its working folder.
   */
  function startPm(args, env = {}, input = undefined, { terminal = false, cwd = undefined } = {}) {
    const { PM_API_KEY, PM_BASE_URL, ...inherited } = process.env;
    const merged = { ...inherited, XDG_CONFIG_HOME: configHome(), NO_COLOR: "1", ...env };
    // On a terminal: under util-linux `script`, which gives pm a pseudo-terminal and passes it `input` as typed keys.
    const [command, argv] = terminal
      ? ["script", ["-qec", [process.execPath, bin, ...args].map(shellQuoted).join(" "), "/dev/null"]]
      : [process.execPath, [bin, ...args]];
    const child = spawn(command, argv, {
      cwd,
      env: Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)),
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    if (input !== undefined) child.stdin.end(input);
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

  const pm = (args, env, input, options) => startPm(args, env, input, options).done;
  /** `pm` with a terminal for stdin, stdout and stderr (all of them read back as stdout). */
  const pmOnTerminal = (args, env, input) => startPm(args, env, input, { terminal: true }).done;
  const pmJson = async (args, env) => {
    const result = await pm([...args, "--json"], env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  /** The first match of `pattern` in what `run` printed on `stream` (stdout, or stderr), waited for. */
  async function waitFor(run, pattern, ms = 20_000, stream = "stdout") {
    const deadline = Date.now() + ms;
    for (;;) {
      const match = pattern.exec(run[stream]);
      if (match) return match;
      if (run.child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${pattern} in: ${run.stdout}${run.stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  return { startPm, pm, pmJson, pmOnTerminal, waitFor };
}
