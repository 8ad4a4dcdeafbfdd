// `npm run check:layers`: the folders of src/ form layers that only point down, so no folder imports one that
// imports it back (no cycle between folders):
//   core (errors, crypto, dates, email messages) < env < ids < db < email < http < auth < middleware < resources < app
// A relative import (type-only and `import("…")` included) into a higher layer is printed and fails the check.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const SRC = path.resolve(import.meta.dirname, "../src");
const LAYERS = ["core", "env", "ids", "db", "email", "http", "auth", "middleware", "resources", "app"];
const IMPORT = /(?:(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+|import\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

function layerOf(file) {
  const top = path.relative(SRC, file).split(path.sep)[0].replace(/\.ts$/, "");
  const layer = top === "index" ? "app" : top;
  if (!LAYERS.includes(layer)) throw new Error(`${file}: not in a known layer of src/ (${LAYERS.join(", ")})`);
  return layer;
}

const modules = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? modules(p) : p.endsWith(".ts") ? [p] : [];
  });

let checked = 0;
const upward = [];
for (const file of modules(SRC)) {
  for (const [, spec] of readFileSync(file, "utf8").matchAll(IMPORT)) {
    const target = path.resolve(path.dirname(file), spec);
    if (!target.startsWith(SRC + path.sep)) continue; // drizzle/schema.ts sits beside src/, below everything
    checked++;
    if (LAYERS.indexOf(layerOf(file)) < LAYERS.indexOf(layerOf(target))) {
      upward.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
    }
  }
}
if (upward.length) {
  console.error(`Imports that point up a layer (${LAYERS.join(" < ")}):\n  ${upward.join("\n  ")}`);
  process.exit(1);
}
console.log(`layers: ${checked} imports checked, none points up (${LAYERS.join(" < ")})`);
