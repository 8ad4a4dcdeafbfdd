// The OpenAPI document exactly as the Worker serves it, produced in Node without a running stack: the app is
// bundled with esbuild (as wrangler does) and asked for GET /openapi.json with the given environment.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "../..");

/** The served document for `env` (the public base URL and the dev switches decide `servers` and dev-only routes). */
export async function openapiDocument(env = { PUBLIC_BASE_URL: "http://127.0.0.1:8787" }) {
  const dir = mkdtempSync(path.join(tmpdir(), "pm-openapi-"));
  try {
    const outfile = path.join(dir, "app.mjs");
    await build({
      entryPoints: [path.join(root, "src/app.ts")],
      bundle: true,
      format: "esm",
      platform: "node",
      target: "es2022",
      outfile,
      logLevel: "warning",
    });
    const { app } = await import(pathToFileURL(outfile).href);
    // No database is touched; the request-scoped connection only needs somewhere to hand its closing.
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} };
    const res = await app.request("/openapi.json", {}, env, ctx);
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: ${await res.text()}`);
    return await res.json();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
