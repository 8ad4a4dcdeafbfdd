// The curl walkthrough of README.md and its continuation in docs/walkthrough.md, run as written in one bash session
// against the real `npm start` (only the port differs). Every call must succeed but the few the text shows refused, and
// the session must leave nothing in the repository: its files go into a temporary folder it removes.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, STARTUP_MS, sharedStack } from "./lib/stack.mjs";

/** The fenced `sh` blocks of a document, in order. */
const shBlocks = (file) => [...readFileSync(path.join(root, file), "utf8").matchAll(/\n```sh\n([\s\S]*?)```/g)].map((m) => m[1]);

/** The refusals the text shows on purpose, in its order, as `METHOD path` → status. */
const REFUSED = new Map([
  ["POST /auth/device/token", "400"], // authorization_pending: nobody approved the device yet
  ["GET /events?after=evt_01jz8x4q0be0sv3c5kq9v1y2ab", "410"], // a resume point older than the events kept
  ["DELETE /tasks/ENG-1", "403"], // the narrow agent key has no tasks:write
]);

let stack;

beforeAll(async () => {
  stack = await sharedStack();
}, STARTUP_MS + 30_000);

afterAll(async () => {
  await stack?.stop();
}, 40_000);

describe("the curl walkthrough (README.md, docs/walkthrough.md)", () => {
  it("runs as written: every call answers as the text says, and no file lands in the repository", async () => {
    // The README's walkthrough and its attachments example, which goes on in the same shell.
    const [readme, files] = shBlocks("README.md").filter((block) => block.includes("/signup/start") || block.includes("/attachments"));
    expect(files).toContain("--data-binary");
    const continued = shBlocks("docs/walkthrough.md");
    expect(continued.length).toBeGreaterThan(5);
    const wrapper = `curl() { command curl -w '\\n' "$@"; }`;
    expect(readme).toContain(wrapper);
    // The same wrapper, also telling stderr each call's status, method and URL.
    const script = [readme, files, ...continued]
      .join("\n")
      .replaceAll("http://127.0.0.1:8787", stack.base)
      .replace(wrapper, `curl() { command curl -w '\\n%{stderr}HTTP %{http_code} %{method} %{url_effective}\\n' "$@"; }`);
    const before = readdirSync(root).sort();

    const { code, stdout, stderr } = await bash(`set -euo pipefail\n${script}`);
    expect(code, `${stderr}\n${stdout.slice(-3000)}`).toBe(0);

    const calls = [...stderr.matchAll(/^HTTP (\d{3}) (\S+) (\S+)$/gm)].map(([, status, method, url]) => {
      const { pathname, search } = new URL(url);
      return { status, call: `${method} ${pathname}${search}` };
    });
    expect(calls.length).toBeGreaterThan(60);
    const refused = calls.filter(({ status }) => !/^[23]/.test(status));
    expect(refused).toEqual([...REFUSED].map(([call, status]) => ({ status, call })));
    expect(stdout).toMatch(/^cache-status: pm-edge; fwd=miss; fwd-status=200; stored/im);
    expect(stdout).toMatch(/^the same bytes$/m);
    expect(readdirSync(root).sort()).toEqual(before);
  }, 180_000);
});

/** Runs a bash script from the repository root; resolves with its exit code and output. */
function bash(script) {
  const child = spawn("bash", ["-c", script], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
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
