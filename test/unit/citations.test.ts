// Every comment, test and document says its rule itself or points to the docs/ file that states it: nothing cites a
// document a reader of the repository cannot open (the decision record or the interface's specification by section,
// an issue tracker's numbers, a file outside the repository).
import { describe, expect, it } from "vitest";

// The TypeScript program has no Node types (vitest.config.ts): node:fs is imported by a non-literal specifier and used
// through this narrow type, as in client-drift.test.ts.
interface Fs {
  readdirSync(path: URL): string[];
  statSync(path: URL): { isDirectory(): boolean };
  readFileSync(path: URL, encoding: "utf8"): string;
}
const load = (specifier: string) => import(/* @vite-ignore */ specifier);
const meta: { url?: string } = import.meta;
const at = (file: string) => new URL(`../../${file}`, meta.url);
const ROOTS = ["src", "test", "cli", "scripts", "client", "workers", "docs", "migrations/functions", "README.md", "wrangler.toml"];
/** Kept as they are: docs/performance.md has its own owner; applied migrations are never edited (their functions' live
 * text, migrations/functions/, is). */
const SKIP = new Set(["docs/performance.md", "migrations"]);
const SKIP_DIRS = new Set(["node_modules", "dist", ".wrangler"]);
const TEXT = /\.(ts|mts|mjs|js|json|md|toml|sql|html|css)$/;

/** What a citation of an outside document looks like (written so that this file does not match itself). */
const CITATIONS = [
  /\bcontract\s*§/i,
  /\bspec(?:ification)?\s*§/i,
  /\binterface[ -]spec/i,
  /\b(?:the|our) contract\b/i,
  /\bissues?\s+#?\d+/i,
  /\bARCHITECTURE\.md\b/,
  /\/work\/shared\b/,
];

function files(fs: Fs, entry: string): string[] {
  if (SKIP.has(entry)) return [];
  if (!fs.statSync(at(entry)).isDirectory()) return TEXT.test(entry) ? [entry] : [];
  return fs
    .readdirSync(at(entry))
    .filter((name) => !SKIP_DIRS.has(name))
    .flatMap((name) => files(fs, `${entry}/${name}`));
}

/** `file:line: text` for every line of `text` that cites an outside document. */
function citations(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) => (CITATIONS.some((re) => re.test(line)) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe("no citation of a document outside the repository", () => {
  it("recognises the forms a citation takes", () => {
    // Spelled with escapes, so that this file's text is not a citation itself.
    const cited = [
      "(contract\u0020§12)",
      "Contract\u0020§13: names",
      "spec\u0020§4",
      "the interface\u0020specification's example",
      "as the\u0020contract asks",
      "(issue\u002028)",
      "Issue\u0020#7",
      "ARCHITECTURE\u002Emd allows",
      "\u002Fwork/shared/spec",
    ];
    for (const line of cited) expect(citations("x", line), line).toHaveLength(1);
    const fine = [
      "RFC 8628 §3.5",
      "docs/api.md, least privilege",
      "zod issues -> the body",
      "the MCP authorization specification",
      "docs/architecture.md",
      "a list spec",
    ];
    for (const line of fine) expect(citations("x", line), line).toEqual([]);
  });

  it("finds none in src/, test/, cli/, scripts/, client/, workers/, docs/, README.md or wrangler.toml", async () => {
    if (!meta.url) throw new Error("import.meta.url is missing: run under Node (vitest project unit)");
    const fs: Fs = await load("node:fs");
    const found = ROOTS.flatMap((entry) => files(fs, entry));
    expect(found.length).toBeGreaterThan(300);
    expect(found).toContain("README.md");
    expect(found.flatMap((file) => citations(file, fs.readFileSync(at(file), "utf8")))).toEqual([]);
  });
});
