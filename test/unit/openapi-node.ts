// What the OpenAPI unit tests need from Node: a few built-ins and the served document (scripts/lib/openapi-document.mjs).
// The TypeScript program has no Node types (vitest.config.ts), so they are imported by a non-literal specifier
// (typed `any` by TypeScript) and given the types used here.
const load = (specifier: string) => import(/* @vite-ignore */ specifier);

export interface NodeModules {
  spawnSync(
    command: string,
    args: string[],
    options: { cwd: string; encoding: "utf8" },
  ): { status: number | null; stdout: string; stderr: string; error?: Error };
  mkdtempSync(prefix: string): string;
  writeFileSync(path: string, data: string): void;
  readFileSync(path: string, encoding: "utf8"): string;
  rmSync(path: string, options: { recursive: boolean; force: boolean }): void;
  mkdirSync(path: string, options: { recursive: boolean }): void;
  copyFileSync(from: string, to: string): void;
  symlinkSync(target: string, path: string): void;
  tmpdir(): string;
  join(...parts: string[]): string;
}

export async function nodeModules(): Promise<NodeModules> {
  const [cp, fs, os, path] = await Promise.all(["node:child_process", "node:fs", "node:os", "node:path"].map(load));
  return { ...fs, spawnSync: cp.spawnSync, tmpdir: os.tmpdir, join: path.join };
}

// `import.meta.url` is there in Node; the program's types (Workers) do not declare it.
const meta: { url?: string } = import.meta;
function here(relative: string): string {
  if (!meta.url) throw new Error("import.meta.url is missing: run under Node (vitest project unit)");
  return new URL(relative, meta.url).href;
}

export const repoRoot = decodeURIComponent(new URL(here("../..")).pathname);

/** An OpenAPI document as JSON (the tests read it with their own narrow types). */
export type OpenApiDocument = Record<string, unknown>;

/** The document the Worker serves for `env`, produced in Node. */
export async function openapiDocument(env: Record<string, string>): Promise<OpenApiDocument> {
  const lib = await load(here("../../scripts/lib/openapi-document.mjs"));
  return lib.openapiDocument(env);
}
