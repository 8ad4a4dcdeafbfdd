// `npm run check:layers`: the folders of src/ form layers that only point down, so no folder imports one that
// imports it back (no cycle between folders):
//   core (errors, crypto, dates, email messages) < env < ids < db < email < store < records < webhooks < files < auth
//   < http < middleware < resources < mcp < queue < app < front
// `store/` is the floor of the data: the statement builders (field maps' machinery, lists, guarded writes, reads) and
// the value schemas they use; it knows no caller but the narrow interface it declares (store/statement-caller.ts), so
// it imports neither auth/ nor http/. `http/` is only HTTP (request, response, errors, OpenAPI) and sits above auth/, whose Caller its routes set.
// A Worker's entry composes the layers: src/index.ts counts as `app`; the queue consumer (src/queue/, email and
// webhook deliveries, deleted files) is its own layer above email/, webhooks/ and files/, so neither imports the other to be reached.
// The edge front Worker (src/front/) sits on top and imports nothing below it: it is a Worker of its own, kept small.
// Inside resources/ no resource imports another: what two resources share (a rule) sits in a layer below (records/,
// auth/); only their list, resources/index.ts, imports each. Two files of a resource's folder sit on lower floors: its
// `record.ts` (its field map) on the records floor, which the layers below the resources and other resources read (it
// imports store/, db/, core/, records/ and other records, never a resource's operations or routes), and its
// `register.ts` (its register entry) on the core floor, which core/resources.ts lists (it imports only the scope names,
// core/scope-names.ts). A relative import (type-only and `import("…")` included) that breaks a rule is printed and
// fails the check.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

const SRC = path.resolve(import.meta.dirname, "../src");
const LAYERS = [
  "core",
  "env",
  "ids",
  "db",
  "email",
  "store",
  "records",
  "webhooks",
  "files",
  "auth",
  "http",
  "middleware",
  "resources",
  "mcp",
  "queue",
  "app",
  "front",
];
const ENTRIES = new Set(["index.ts"]);
const IMPORT = /(?:(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+|import\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

/** A resource's files that sit on a lower floor than its folder: its record and its register entry. */
const FLOORS = { "record.ts": "records", "register.ts": "core" };
/** What a register entry may import: the scope names. */
const REGISTER_IMPORTS = new Set(["core/scope-names.ts"]);

/** A resource's record or register (`resources/<name>/record.ts`, or `<part>-record.ts` for a part of it): which, else undefined. */
const floorFile = (file) => {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts.length !== 3 || parts[0] !== "resources") return undefined;
  const name = parts[2].endsWith("-record.ts") ? "record.ts" : parts[2];
  return FLOORS[name] ? name : undefined;
};

/** A file's layer: its top folder (or file, without `.ts`), or the floor of a resource's record or register. */
function layerOf(file) {
  const relative = path.relative(SRC, file).split(path.sep).join("/");
  if (ENTRIES.has(relative)) return "app";
  const floor = floorFile(relative.endsWith(".ts") ? file : `${file}.ts`);
  if (floor) return FLOORS[floor];
  if (LAYERS.includes(relative)) return relative;
  const layer = relative.split("/")[0].replace(/\.ts$/, "");
  if (!LAYERS.includes(layer)) throw new Error(`${file}: not in a known layer of src/ (${LAYERS.join(", ")})`);
  return layer;
}

/** The resource folder of a file under src/resources/ (undefined elsewhere, and for the list of them, resources/index.ts). */
const resourceOf = (file) => {
  const [top, folder] = path.relative(SRC, file).split(path.sep);
  return top === "resources" && folder !== "index.ts" ? folder : undefined;
};

const modules = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? modules(p) : p.endsWith(".ts") && !p.endsWith(".test.ts") ? [p] : [];
  });

/** The file an import names: `<spec>.ts`, or its folder's index.ts. */
const fileOf = (target) => [`${target}.ts`, path.join(target, "index.ts"), target].find((f) => existsSync(f) && statSync(f).isFile());

let checked = 0;
const upward = [];
const across = [];
const registers = [];
const graph = new Map();
for (const file of modules(SRC)) {
  graph.set(file, []);
  for (const [, spec] of readFileSync(file, "utf8").matchAll(IMPORT)) {
    const target = path.resolve(path.dirname(file), spec);
    if (!target.startsWith(SRC + path.sep)) continue; // drizzle/schema.ts sits beside src/, below everything
    checked++;
    const imported = fileOf(target);
    if (imported) graph.get(file).push(imported);
    if (LAYERS.indexOf(layerOf(file)) < LAYERS.indexOf(layerOf(target))) {
      upward.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
    }
    if (
      floorFile(file) === "register.ts" &&
      !REGISTER_IMPORTS.has(
        path
          .relative(SRC, imported ?? target)
          .split(path.sep)
          .join("/"),
      )
    ) {
      registers.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
    }
    // Another resource's record is on the records floor, below every resource: any of them may read it.
    const [from, to] = [resourceOf(file), resourceOf(target)];
    if (from && to && from !== to && !(imported && floorFile(imported) === "record.ts")) {
      across.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
    }
  }
}
// No cycle between files either (a layer's files import each other one way): depth-first, each cycle named once.
const cycles = [];
const state = new Map(); // file -> "open" while on the path, "done" after
const walk = (file, trail) => {
  state.set(file, "open");
  for (const next of graph.get(file) ?? []) {
    if (state.get(next) === "open") cycles.push([...trail.slice(trail.indexOf(next)), next].map((f) => path.relative(SRC, f)).join(" -> "));
    else if (!state.has(next)) walk(next, [...trail, next]);
  }
  state.set(file, "done");
};
for (const file of graph.keys()) if (!state.has(file)) walk(file, [file]);

if (upward.length) console.error(`Imports that point up a layer (${LAYERS.join(" < ")}):\n  ${upward.join("\n  ")}`);
if (registers.length) console.error(`Imports of a register entry other than the scope names:\n  ${registers.join("\n  ")}`);
if (across.length)
  console.error(
    `Imports from one resource into another but its record (share through records/ or auth/ instead):\n  ${across.join("\n  ")}`,
  );
if (cycles.length) console.error(`Import cycles (a file that imports itself back):\n  ${cycles.join("\n  ")}`);
if (upward.length || registers.length || across.length || cycles.length) process.exit(1);
console.log(
  `layers: ${checked} imports checked, none points up (${LAYERS.join(" < ")}; a resource's record.ts on the records floor, ` +
    "its register.ts on the core floor, importing only the scope names), no resource imports another but its record, no cycle",
);
