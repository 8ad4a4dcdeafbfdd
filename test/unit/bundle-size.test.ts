// The API Worker as deploy uploads it stays within its gzipped budget (docs/performance.md, "Cold start"): an upload that
// grows past it fails here, not at the next cold start users pay. The /docs UI's files are the front Worker's static
// assets (workers/front/public), not part of it.
import { expect, it } from "vitest";
import { repoRoot } from "./openapi-node";

interface WorkerBundle {
  buildWorker(): { bytes: number; gzipBytes: number; lines: number; total: { bytes: number; gzipBytes: number } };
  GZIP_BUDGET_BYTES: number;
}

it("the API Worker's upload, minified, is within 600 KB gzipped, every module counted", async () => {
  const { buildWorker, GZIP_BUDGET_BYTES }: WorkerBundle = await import(/* @vite-ignore */ `${repoRoot}/scripts/lib/worker-bundle.mjs`);
  const bundle = buildWorker();
  expect(GZIP_BUDGET_BYTES).toBe(600 * 1024);
  expect(bundle.total.gzipBytes).toBeGreaterThanOrEqual(bundle.gzipBytes);
  expect(bundle.total.gzipBytes).toBeLessThanOrEqual(GZIP_BUDGET_BYTES);
  // Minified (wrangler.toml `minify`): about 900 lines, against about 69,000 unminified.
  expect(bundle.lines).toBeLessThan(5_000);
});
