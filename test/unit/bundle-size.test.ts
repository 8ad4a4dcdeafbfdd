// The API Worker's script as deploy builds it stays within its gzipped budget (docs/performance.md, "Cold start"): a
// script that grows past it fails here, not at the next cold start users pay. The /docs UI's files ride beside it as Text
// modules (460 KB gzipped), so the whole upload is over that budget: docs/performance.md says so.
import { expect, it } from "vitest";
import { repoRoot } from "./openapi-node";

interface WorkerBundle {
  buildWorker(): { bytes: number; gzipBytes: number; lines: number };
  GZIP_BUDGET_BYTES: number;
}

it("the API Worker's script, minified, is within 600 KB gzipped (the /docs UI's two Text modules besides it are not counted)", async () => {
  const { buildWorker, GZIP_BUDGET_BYTES }: WorkerBundle = await import(/* @vite-ignore */ `${repoRoot}/scripts/lib/worker-bundle.mjs`);
  const bundle = buildWorker();
  expect(GZIP_BUDGET_BYTES).toBe(600 * 1024);
  expect(bundle.gzipBytes).toBeLessThanOrEqual(GZIP_BUDGET_BYTES);
  // Minified (wrangler.toml `minify`): about 800 lines, against about 69,000 unminified.
  expect(bundle.lines).toBeLessThan(5_000);
});
