// `npm run build:cli` (and `npm ci`, through `prepare`): Node 20 cannot run TypeScript, so the CLI is bundled with
// esbuild into one executable ES module, cli/dist/pm.mjs (gitignored), the `pm` of package.json's `bin`.
import { chmodSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

export const CLI_BUNDLE = path.join(import.meta.dirname, "dist/pm.mjs");

await build({
  entryPoints: [path.join(import.meta.dirname, "main.ts")],
  outfile: CLI_BUNDLE,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  banner: { js: "#!/usr/bin/env node" },
  logLevel: "warning",
  // jq (WebAssembly, 1.3 MB) is loaded from node_modules when --jq asks for it: not parsed by every run, and its
  // Emscripten loader requires node:fs, which an ES module bundle cannot.
  external: ["jq-wasm"],
});
chmodSync(CLI_BUNDLE, 0o755);
