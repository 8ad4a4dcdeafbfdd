// The bench's pooled path (`npm run bench -- --pooled`): a PgBouncer in transaction mode in front of the stack's
// PostgreSQL, as Neon's pooled endpoint is (a server connection is the client's only for one transaction; nothing of a
// session outlives it). The stack's WebSocket proxy sends the Workers' connections to it (ws-proxy.mjs, `redirect`).
// PgBouncer comes from Debian's packages, installed by scripts/bench/install-pgbouncer.sh when missing; npm start
// and npm test never need it.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "../lib/postgres.mjs";

/** Debian's, unless PGBOUNCER names another (e.g. Homebrew's /opt/homebrew/bin/pgbouncer). */
const BINARY = process.env.PGBOUNCER || "/usr/sbin/pgbouncer";

/** Installs PgBouncer (Debian's package) when it is missing. */
function ensureInstalled() {
  if (existsSync(BINARY)) return;
  console.log("PgBouncer is missing: installing it (scripts/bench/install-pgbouncer.sh)");
  const run = spawnSync("sh", [path.join(import.meta.dirname, "install-pgbouncer.sh")], { stdio: "inherit" });
  if (run.status !== 0 || !existsSync(BINARY)) throw new Error("could not install PgBouncer: run scripts/bench/install-pgbouncer.sh");
}

async function waitForPort(port, child, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with code ${child.exitCode}`);
    const open = await new Promise((resolve) => {
      const socket = net.connect({ host: "127.0.0.1", port }, () => resolve(socket.end() && true));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pgbouncer did not listen on ${port} within ${timeoutMs} ms`);
}

/**
 * Starts PgBouncer on a free loopback port, in front of the database at `databaseUrl`.
 * @returns {Promise<{ port: number, stop: () => Promise<void> }>}
 */
export async function startPgBouncer(databaseUrl) {
  ensureInstalled();
  const db = new URL(databaseUrl);
  const [user, password, dbname] = [decodeURIComponent(db.username), decodeURIComponent(db.password), db.pathname.slice(1)];
  const port = await freePort();
  const dir = path.join(os.tmpdir(), `pm-bench-pgbouncer-${port}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // PgBouncer will not run as root: it switches to the package's own user, which must read its files.
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, "userlist.txt"), `"${user}" "${password}"\n`);
  writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `${dbname} = host=127.0.0.1 port=${db.port} dbname=${dbname}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      // Cleartext, as the stack's PostgreSQL asks (the driver's pipelined connect sends the password unasked).
      "auth_type = plain",
      `auth_file = ${path.join(dir, "userlist.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 1000",
      "default_pool_size = 20",
      // Startup parameters the drivers send that PgBouncer would otherwise refuse.
      "ignore_startup_parameters = extra_float_digits,options",
      "",
    ].join("\n"),
  );
  const asRoot = process.getuid?.() === 0;
  const child = spawn(BINARY, [...(asRoot ? ["-u", "postgres"] : []), path.join(dir, "pgbouncer.ini")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (chunk) => {
    log = (log + chunk).slice(-2000);
  });
  try {
    await waitForPort(port, child);
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`${err.message}\n${log}`);
  }
  return {
    port,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGINT");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
