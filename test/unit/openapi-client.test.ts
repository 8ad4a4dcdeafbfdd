// The typed client needs no casts: test/client/typed-client.ts (every list parameter, a nullable field, If-None-Match,
// ETag, Location) compiles against client/ with types generated afresh from the current document.
import { expect, it } from "vitest";
import { nodeModules, repoRoot } from "./openapi-node";

const { spawnSync, mkdtempSync, mkdirSync, copyFileSync, symlinkSync, writeFileSync, rmSync, tmpdir, join } = await nodeModules();

interface Generator {
  CLIENT_TYPES: string;
  generateClientTypes(): Promise<string>;
}
const generator: Generator = await import(/* @vite-ignore */ join(repoRoot, "scripts/gen-client.mjs"));

it("compiles the typed-client script against types generated from the served document", async () => {
  // A copy of the client and the script beside the fresh types, so the committed client/api.d.ts is left alone.
  const dir = mkdtempSync(join(tmpdir(), "pm-typed-client-"));
  try {
    for (const file of ["client/index.ts", "test/client/typed-client.ts", "test/client/tsconfig.json"]) {
      mkdirSync(join(dir, file, ".."), { recursive: true });
      copyFileSync(join(repoRoot, file), join(dir, file));
    }
    writeFileSync(join(dir, generator.CLIENT_TYPES), await generator.generateClientTypes());
    symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"));
    const tsc = spawnSync(join(repoRoot, "node_modules/.bin/tsc"), ["--noEmit", "-p", "test/client/tsconfig.json"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
