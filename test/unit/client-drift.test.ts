// client/api.d.ts is generated from the served document and committed; this fails when the two have drifted apart.
import { describe, expect, it } from "vitest";

// The TypeScript program has no Node types (vitest.config.ts): Node built-ins and the generator script are imported
// by a non-literal specifier (typed `any`) and used through these narrow types.
const load = (specifier: string) => import(/* @vite-ignore */ specifier);
const meta: { url?: string } = import.meta;

interface Generator {
  CLIENT_TYPES: string;
  generateClientTypes(): Promise<string>;
}

describe("client/api.d.ts", () => {
  it("is what `npm run gen:client` generates from the current document", async () => {
    if (!meta.url) throw new Error("import.meta.url is missing: run under Node (vitest project unit)");
    const generator: Generator = await load(new URL("../../scripts/gen-client.mjs", meta.url).href);
    const fs: { readFileSync(path: URL, encoding: "utf8"): string } = await load("node:fs");
    const committed = fs.readFileSync(new URL(`../../${generator.CLIENT_TYPES}`, meta.url), "utf8");
    const fresh = await generator.generateClientTypes();
    // A whole-file diff would be thousands of lines; the first differing line says enough to look.
    const at = firstDifference(committed, fresh);
    expect(at, `${generator.CLIENT_TYPES} is out of date with the OpenAPI document (${at}): run \`npm run gen:client\``).toBeNull();
  }, 60_000);
});

function firstDifference(committed: string, fresh: string): string | null {
  if (committed === fresh) return null;
  const a = committed.split("\n");
  const b = fresh.split("\n");
  const line = a.findIndex((text, i) => text !== b[i]);
  const n = line === -1 ? a.length : line;
  return `line ${n + 1}: committed ${JSON.stringify(a[n] ?? "<end>")}, generated ${JSON.stringify(b[n] ?? "<end>")}`;
}
