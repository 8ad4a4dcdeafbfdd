// The API Worker as `wrangler deploy` would upload it (`--dry-run --outdir`): its script, and that script's size and
// gzipped size, the figures a deploy prints and the cold-start budget reads (docs/performance.md, "Cold start").
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";

const root = path.resolve(import.meta.dirname, "../..");
/** The budget of the gzipped script (issue: a cold start paid by real users). */
export const GZIP_BUDGET_BYTES = 600 * 1024;

/** Builds the API Worker into a new folder; `{ dir, script, bytes, gzipBytes, lines }`. */
export function buildWorker() {
  const dir = mkdtempSync(path.join(tmpdir(), "pm-api-bundle-"));
  const result = spawnSync(path.join(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", dir], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", XDG_CONFIG_HOME: path.join(root, ".wrangler/config") },
  });
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed: ${result.stderr || result.stdout}`);
  const script = path.join(dir, "index.js");
  const bytes = readFileSync(script);
  const lines = bytes.toString("utf8").split("\n").length;
  return { dir, script, bytes: bytes.length, gzipBytes: gzipSync(bytes).length, lines };
}
