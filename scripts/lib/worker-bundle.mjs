// The API Worker as `wrangler deploy` would upload it (`--dry-run --outdir`): its script (index.js) and any other
// module beside it, each size and gzipped size, the figures the cold-start row and its budget read (docs/performance.md,
// "Cold start"). The /docs UI's files are the front Worker's static assets, not modules of this one.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";

const root = path.resolve(import.meta.dirname, "../..");
/** The budget of the gzipped upload. */
export const GZIP_BUDGET_BYTES = 600 * 1024;

/** Builds the API Worker into a new folder: its script's `{ bytes, gzipBytes, lines }`, and `total` of every module. */
export function buildWorker() {
  const dir = mkdtempSync(path.join(tmpdir(), "pm-api-bundle-"));
  const result = spawnSync(path.join(root, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", dir], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", XDG_CONFIG_HOME: path.join(root, ".wrangler/config") },
  });
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed: ${result.stderr || result.stdout}`);
  const sized = (file) => {
    const bytes = readFileSync(path.join(dir, file));
    return { bytes: bytes.length, gzipBytes: gzipSync(bytes).length, lines: bytes.toString("utf8").split("\n").length };
  };
  const modules = readdirSync(dir)
    .filter((f) => !f.endsWith(".map") && f !== "README.md")
    .map(sized);
  const total = { bytes: modules.reduce((n, m) => n + m.bytes, 0), gzipBytes: modules.reduce((n, m) => n + m.gzipBytes, 0) };
  return { dir, script: path.join(dir, "index.js"), ...sized("index.js"), total };
}
