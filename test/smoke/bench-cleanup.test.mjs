// `npm run bench -- --pooled` when PgBouncer cannot be installed: the bench fails with the reason and leaves nothing of
// the stack it started running (wrangler, workerd, the WebSocket proxy, PostgreSQL). The bench looks for PgBouncer
// where PGBOUNCER says, a path that is not there, and runs the install with an apt-get and a sudo first on its PATH
// that fail, as they do offline or without the rights (so nothing is installed whether or not the machine has one).
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { freePort } from "../../scripts/lib/postgres.mjs";
import { processStat, root, STARTUP_MS } from "./lib/stack.mjs";

/** The running processes of process group `group` (`pid: command line`). */
function processesOf(group) {
  const found = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    const stat = processStat(pid);
    // A zombie has exited (its parent has not read its status yet): it holds nothing.
    if (stat?.pgrp !== group || stat.state === "Z") continue;
    try {
      found.push(`${pid}: ${readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").slice(0, 200)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

it(
  "stops every process it started when PgBouncer's install fails",
  async () => {
    const bin = mkdtempSync(path.join(tmpdir(), "pm-bench-path-"));
    for (const name of ["apt-get", "sudo"]) writeFileSync(path.join(bin, name), "#!/bin/sh\necho refused >&2\nexit 100\n", { mode: 0o755 });
    const port = await freePort();
    // Without BASE_URL (vitest sets one), the bench starts its own stack.
    const { BASE_URL, DATABASE_URL, ...inherited } = process.env;
    const bench = spawn(process.execPath, [path.join(root, "scripts/bench.mjs"), "--pooled", "--quick"], {
      cwd: root,
      env: { ...inherited, PATH: `${bin}:${process.env.PATH}`, BENCH_PORT: String(port), PGBOUNCER: path.join(bin, "pgbouncer") },
      stdio: ["ignore", "pipe", "pipe"],
      // A process group of its own: what the bench starts (PostgreSQL, wrangler, its workerd) is in it, also once orphaned.
      detached: true,
    });
    let output = "";
    for (const stream of [bench.stdout, bench.stderr]) stream.on("data", (chunk) => (output += chunk));
    const code = await new Promise((resolve) => bench.once("exit", resolve));
    rmSync(bin, { recursive: true, force: true });
    expect(code, output).not.toBe(0);
    expect(output).toContain("could not install PgBouncer");
    // The bench waits for what it stops; a moment's grace for a grandchild's own exit.
    const deadline = Date.now() + 5000;
    while (processesOf(bench.pid).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const left = processesOf(bench.pid);
    if (left.length) process.kill(-bench.pid, "SIGKILL");
    expect(left).toEqual([]);
  },
  STARTUP_MS * 2,
);
