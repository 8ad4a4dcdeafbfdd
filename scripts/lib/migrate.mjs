// The one migration runner (`npm start`, the tests, the bench and `npm run db:migrate` for production): the versioned
// migrations drizzle-kit generates (migrations/NNNN_*.sql, in drizzle's own bookkeeping table, so it agrees with
// `drizzle-kit migrate`), then the live text of each SQL function (migrations/functions/<name>.sql), all in one
// transaction: no commit ever holds a new schema with the functions of the old one.

import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import pg from "pg";

export const MIGRATIONS = path.resolve(import.meta.dirname, "../../migrations");

/** Each function file's name and text, in name order. */
function functionFiles(folder) {
  const dir = path.join(folder, "functions");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .map((name) => ({ name, text: readFileSync(path.join(dir, name), "utf8") }));
}

/**
 * Applies what `url`'s database has not applied yet and says what it did. A function file runs when its text is new
 * or changed (its hash is recorded), and every file runs again after any versioned migration: whatever that migration
 * created, replaced or dropped, the functions end as their files say, on a fresh database as on an upgraded one.
 * @returns {Promise<{ versioned: number, functions: string[] }>}
 */
export async function applyMigrations(url, folder = MIGRATIONS) {
  const versioned = readMigrationFiles({ migrationsFolder: folder });
  const files = functionFiles(folder);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    // Two runners at once (two deploys) would both see the same migrations as pending: the second waits.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('pm-api migrations'))");
    await client.query(`CREATE SCHEMA IF NOT EXISTS drizzle;
      CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint);
      CREATE TABLE IF NOT EXISTS drizzle.function_files (name text PRIMARY KEY, hash text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now())`);
    // As drizzle's migrator decides: a migration is pending when the journal dates it after the last one applied.
    const last = (await client.query("SELECT max(created_at) AS at FROM drizzle.__drizzle_migrations")).rows[0].at;
    const pending = versioned.filter((m) => last === null || Number(last) < m.folderMillis);
    for (const migration of pending) {
      for (const statement of migration.sql) await client.query(statement);
      await client.query("INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)", [
        migration.hash,
        migration.folderMillis,
      ]);
    }
    const applied = new Map((await client.query("SELECT name, hash FROM drizzle.function_files")).rows.map((r) => [r.name, r.hash]));
    const changed = [];
    for (const file of files) {
      const hash = createHash("sha256").update(file.text).digest("hex");
      if (pending.length === 0 && applied.get(file.name) === hash) continue;
      await client.query(file.text).catch((err) => {
        err.message = `migrations/functions/${file.name}: ${err.message}`;
        throw err;
      });
      await client.query(
        `INSERT INTO drizzle.function_files (name, hash) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, applied_at = now()`,
        [file.name, hash],
      );
      changed.push(file.name);
    }
    // A file taken away (its function dropped by a versioned migration) is forgotten, so one put back runs again.
    await client.query("DELETE FROM drizzle.function_files WHERE NOT (name = ANY ($1))", [files.map((f) => f.name)]);
    await client.query("COMMIT");
    return { versioned: pending.length, functions: changed };
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}
