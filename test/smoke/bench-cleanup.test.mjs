// `npm run bench -- --pooled` when PgBouncer cannot be installed: the bench fails with the reason and leaves nothing of
// the stack it started running (wrangler, workerd, the WebSocket proxy, PostgreSQL). The install fails for real: the
// bench runs with an apt-get and a sudo first on its PATH that fail, as they do offline or without the rights.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { freePort } from "../../scripts/lib/postgres.mjs";
import { root, STARTUP_MS } from "./lib/stack.mjs";

/** The pids of running processes whose command line holds any of `marks`. */
function processesWith(marks) {
  const found = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let cmdline;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    } catch {
      continue; // gone meanwhile
    }
    if (marks.some((m) => cmdline.includes(m))) found.push(`${pid}: ${cmdline.slice(0, 200)}`);
  }
  return found;
}

it(
  "stops every process it started when PgBouncer's install fails",
  async () => {
    if (existsSync("/usr/sbin/pgbouncer")) return; // installed: its install cannot fail here
    const bin = mkdtempSync(path.join(tmpdir(), "pm-bench-path-"));
    for (const name of ["apt-get", "sudo"]) writeFileSync(path.join(bin, name), "#!/bin/sh\necho refused >&2\nexit 100\n", { mode: 0o755 });
    const port = await freePort();
    const dataDir = path.join(root, ".data/bench");
    // Without BASE_URL (vitest sets one), the bench starts its own stack.
    const { BASE_URL, DATABASE_URL, ...inherited } = process.env;
    const bench = spawn(process.execPath, [path.join(root, "scripts/bench.mjs"), "--pooled", "--quick"], {
      cwd: root,
      env: { ...inherited, PATH: `${bin}:${process.env.PATH}`, BENCH_PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    for (const stream of [bench.stdout, bench.stderr]) stream.on("data", (chunk) => (output += chunk));
    const code = await new Promise((resolve) => bench.once("exit", resolve));
    rmSync(bin, { recursive: true, force: true });
    expect(code, output).not.toBe(0);
    expect(output).toContain("could not install PgBouncer");
    // wrangler (--persist-to under the data dir), workerd (its socket on the port), PostgreSQL (-D under the data dir).
    const left = processesWith([dataDir, `127.0.0.1:${port}`]);
    if (left.length) for (const line of left) process.kill(Number(line.split(":")[0]), "SIGKILL");
    expect(left).toEqual([]);
  },
  STARTUP_MS * 2,
);
