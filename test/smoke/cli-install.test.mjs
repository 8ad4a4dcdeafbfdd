// How `pm` is installed and started (docs/clients.md, "Install"), without a running API: `npx pm` in the clone runs
// the linked bin at once (no install into npm's cache), and the one-file build works away from the clone, copied or
// installed globally from the packed cli/ folder, --jq included (jq-wasm is inside the file).
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "./lib/pm.mjs";
import { root } from "./lib/stack.mjs";

const cliPkg = JSON.parse(readFileSync(path.join(root, "cli/package.json"), "utf8"));
const rootPkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const versionLine = `pm ${cliPkg.version}\n`;

let dir;
let server;
let base;

/**
 * Runs `command` hermetically (no PM_* of the caller's, a config directory of its own; `env` adds to that): its exit
 * status and output. Not spawnSync: the API it may call is this process's server.
 */
async function run(command, args, { cwd = root, env = {} } = {}) {
  const { PM_API_KEY, PM_BASE_URL, ...inherited } = process.env;
  const child = spawn(command, args, { cwd, env: { ...inherited, XDG_CONFIG_HOME: path.join(dir, "config"), ...env } });
  const result = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => {
    result.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    result.stderr += chunk;
  });
  result.status = await new Promise((resolve, reject) => child.once("error", reject).once("close", resolve));
  return result;
}

beforeAll(async () => {
  buildCli();
  dir = mkdtempSync(path.join(tmpdir(), "pm-install-"));
  // An API answering GET /me, for `--jq` away from the clone.
  server = createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ path: request.url, user: { name: "Ada" } }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("pm's install", () => {
  it("npx pm and npm exec pm run the bin npm ci linked, installing nothing", async () => {
    // npm exec installs a package into its cache (_npx) to run the bin of the root package itself, seconds a command:
    // the bin belongs to cli/ (a file: dependency), which npm links into node_modules/.bin as it does any dependency's.
    expect(rootPkg.bin).toBeUndefined();
    expect(rootPkg.devDependencies[cliPkg.name]).toBe("file:cli");
    expect(realpathSync(path.join(root, "node_modules/.bin/pm"))).toBe(realpathSync(path.join(root, "cli", cliPkg.bin.pm)));
    const cache = path.join(dir, "npm-cache");
    for (const [command, args] of [
      ["npx", ["pm", "--version"]],
      ["npm", ["exec", "pm", "--", "--version"]],
    ]) {
      const started = Date.now();
      const result = await run(command, args, { env: { npm_config_cache: cache, npm_config_offline: "true" } });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe(versionLine);
      console.log(`${command} ${args.join(" ")}: ${Date.now() - started} ms`);
    }
    expect(existsSync(path.join(cache, "_npx"))).toBe(false);
  });

  it("the one-file build runs copied anywhere, --jq included", async () => {
    const copy = path.join(dir, "pm");
    copyFileSync(path.join(root, "cli/dist/pm.mjs"), copy);
    expect((await run(process.execPath, [copy, "--version"], { cwd: dir })).stdout).toBe(versionLine);
    const me = await run(process.execPath, [copy, "api", "/me", "--jq", ".user.name"], {
      cwd: dir,
      env: { PM_API_KEY: "k", PM_BASE_URL: base },
    });
    expect(me.stderr).toBe("");
    expect(me.stdout).toBe("Ada\n");
  });

  it("installs globally from the packed cli/ folder, a copy that needs no clone", async () => {
    const packed = await run("npm", ["pack", "./cli", "--pack-destination", dir, "--silent"]);
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = path.join(dir, packed.stdout.trim());
    const prefix = path.join(dir, "global");
    const installed = await run("npm", ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", tarball], {
      cwd: dir,
    });
    expect(installed.status, installed.stderr).toBe(0);
    const pm = path.join(prefix, "bin/pm");
    expect(realpathSync(pm).startsWith(realpathSync(prefix))).toBe(true);
    expect((await run(pm, ["--version"], { cwd: dir })).stdout).toBe(versionLine);
    const me = await run(pm, ["api", "/me", "--jq", ".user.name"], { cwd: dir, env: { PM_API_KEY: "k", PM_BASE_URL: base } });
    expect(me.stdout).toBe("Ada\n");
  }, 60_000);
});
