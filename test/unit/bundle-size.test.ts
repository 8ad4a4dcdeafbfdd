// The API Worker as deploy builds it stays within its gzipped budget (docs/performance.md, "Cold start"): a script that
// grows past it fails here, not at the next cold start users pay.
import { expect, it } from "vitest";
import { repoRoot } from "./openapi-node";

interface WorkerBundle {
  buildWorker(): { bytes: number; gzipBytes: number; lines: number };
  GZIP_BUDGET_BYTES: number;
}

it("the API Worker's script, minified, is within 600 KB gzipped, without the /docs UI's files (static assets)", async () => {
  const { buildWorker, GZIP_BUDGET_BYTES }: WorkerBundle = await import(/* @vite-ignore */ `${repoRoot}/scripts/lib/worker-bundle.mjs`);
  const bundle = buildWorker();
  expect(GZIP_BUDGET_BYTES).toBe(600 * 1024);
  expect(bundle.gzipBytes).toBeLessThanOrEqual(GZIP_BUDGET_BYTES);
  // Minified (wrangler.toml `minify`): about 800 lines, against about 69,000 unminified.
  expect(bundle.lines).toBeLessThan(5_000);
});
