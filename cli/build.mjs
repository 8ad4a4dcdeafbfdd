// `npm run build:cli` (and `npm ci`, through `prepare`): Node 20 cannot run TypeScript, so the CLI is bundled with
// esbuild into one executable ES module, cli/dist/pm.mjs (gitignored), the `pm` of cli/package.json's `bin`. It is the
// whole CLI, dependencies included, so the one file runs anywhere Node does (docs/clients.md, "Install").
import { chmodSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

export const CLI_BUNDLE = path.join(import.meta.dirname, "dist/pm.mjs");

// jq-wasm (jq compiled to WebAssembly, 1.3 MB, loaded only when --jq asks for it: esbuild keeps a bundled CommonJS
// module unevaluated until required) is Emscripten output that calls require("fs") and reads __dirname, which an ES
// module has not: the banner gives them to it.
const COMMONJS_GLOBALS = [
  'import { createRequire as __pmCreateRequire } from "node:module";',
  'import { fileURLToPath as __pmFileURLToPath } from "node:url";',
  'import { dirname as __pmDirname } from "node:path";',
  "const require = __pmCreateRequire(import.meta.url);",
  "const __filename = __pmFileURLToPath(import.meta.url);",
  "const __dirname = __pmDirname(__filename);",
];

await build({
  entryPoints: [path.join(import.meta.dirname, "main.ts")],
  outfile: CLI_BUNDLE,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  banner: { js: ["#!/usr/bin/env node", ...COMMONJS_GLOBALS].join("\n") },
  logLevel: "warning",
});
chmodSync(CLI_BUNDLE, 0o755);
