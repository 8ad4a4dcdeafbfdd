// `npm run check:layers`: the folders of src/ form layers that only point down, so no folder imports one that
// imports it back (no cycle between folders):
//   core (errors, crypto, dates, email messages) < env < ids < db < email < http < records < webhooks < files < auth
//   < middleware < resources < mcp < app < front
// A Worker's entry (src/index.ts, the queue consumer's src/email/worker.ts) composes the layers: it counts as `app`.
// The edge front Worker (src/front/) sits on top and imports nothing below it: it is a Worker of its own, kept small.
// and inside resources/ no resource imports another: what two resources share (a record's field map, a rule) sits in
// a layer below (records/, auth/). A relative import (type-only and `import("…")` included) that breaks either rule is
// printed and fails the check.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const SRC = path.resolve(import.meta.dirname, "../src");
const LAYERS = [
  "core",
  "env",
  "ids",
  "db",
  "email",
  "http",
  "records",
  "webhooks",
  "files",
  "auth",
  "middleware",
  "resources",
  "mcp",
  "app",
  "front",
];
const ENTRIES = new Set(["index.ts", path.join("email", "worker.ts")]);
const IMPORT = /(?:(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+|import\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

function layerOf(file) {
  if (ENTRIES.has(path.relative(SRC, file))) return "app";
  const layer = path.relative(SRC, file).split(path.sep)[0].replace(/\.ts$/, "");
  if (!LAYERS.includes(layer)) throw new Error(`${file}: not in a known layer of src/ (${LAYERS.join(", ")})`);
  return layer;
}

/** The resource folder of a file under src/resources/ (undefined elsewhere). */
const resourceOf = (file) => {
  const [top, folder] = path.relative(SRC, file).split(path.sep);
  return top === "resources" ? folder : undefined;
};

const modules = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? modules(p) : p.endsWith(".ts") && !p.endsWith(".test.ts") ? [p] : [];
  });

let checked = 0;
const upward = [];
const across = [];
for (const file of modules(SRC)) {
  for (const [, spec] of readFileSync(file, "utf8").matchAll(IMPORT)) {
    const target = path.resolve(path.dirname(file), spec);
    if (!target.startsWith(SRC + path.sep)) continue; // drizzle/schema.ts sits beside src/, below everything
    checked++;
    if (LAYERS.indexOf(layerOf(file)) < LAYERS.indexOf(layerOf(target))) {
      upward.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
    }
    const [from, to] = [resourceOf(file), resourceOf(target)];
    if (from && to && from !== to) across.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
  }
}
if (upward.length) console.error(`Imports that point up a layer (${LAYERS.join(" < ")}):\n  ${upward.join("\n  ")}`);
if (across.length)
  console.error(`Imports from one resource into another (share through records/ or auth/ instead):\n  ${across.join("\n  ")}`);
if (upward.length || across.length) process.exit(1);
console.log(`layers: ${checked} imports checked, none points up (${LAYERS.join(" < ")}), no resource imports another`);
