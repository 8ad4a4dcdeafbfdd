// The served OpenAPI document passes Redocly (recommended rules, redocly.yaml) and Spectral (spectral:oas,
// .spectral.yaml) without a single error or warning, as production serves it and with the dev-only routes on.
import { describe, expect, it } from "vitest";
import { nodeModules, openapiDocument, repoRoot } from "./openapi-node";

const { spawnSync, mkdtempSync, writeFileSync, readFileSync, rmSync, tmpdir, join } = await nodeModules();

const PRODUCTION = { PUBLIC_BASE_URL: "http://127.0.0.1:8787" };
const DEV = { ...PRODUCTION, DEV_MAILBOX: "true", BENCH_ROUTES: "true" };

interface Problem {
  rule: string;
  severity: string;
  message: string;
  where: string;
}

function run(bin: string, args: string[]) {
  const result = spawnSync(join(repoRoot, "node_modules/.bin", bin), args, { cwd: repoRoot, encoding: "utf8" });
  if (result.error) throw result.error;
  return result;
}

function redocly(file: string): Problem[] {
  const { stdout, stderr } = run("redocly", ["lint", "--config", "redocly.yaml", "--format=json", file]);
  const report: { problems?: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] } = JSON.parse(
    stdout || stderr,
  );
  return (report.problems ?? []).map((p) => ({
    rule: p.ruleId,
    severity: p.severity,
    message: p.message,
    where: p.location[0]?.pointer ?? "",
  }));
}

function spectral(file: string, out: string): Problem[] {
  const { status, stderr } = run("spectral", ["lint", "--ruleset", ".spectral.yaml", "--format", "json", "--output", out, file]);
  // Exit 1 means "results at the fail severity" (in the file); anything else without a file is a crash.
  if (status !== 0 && status !== 1) throw new Error(`spectral exited ${status}: ${stderr}`);
  const results: { code: string; severity: number; message: string; path: string[] }[] = JSON.parse(readFileSync(out, "utf8"));
  const severities = ["error", "warning", "info", "hint"];
  return results.map((r) => ({ rule: r.code, severity: severities[r.severity], message: r.message, where: r.path.join(".") }));
}

type Operation = { operationId?: string; summary?: string; description?: string; tags?: string[] };

/** What neither linter asks for: a camelCase operationId, a summary and exactly one tag on every operation. */
function conventionProblems(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!/^[a-z][a-zA-Z0-9]*$/.test(op.operationId ?? "")) problems.push(`${where}: operationId '${op.operationId}' is not camelCase`);
      if (!op.summary) problems.push(`${where}: no summary`);
      if (op.tags?.length !== 1) problems.push(`${where}: ${op.tags?.length ?? 0} tags`);
    }
  }
  return problems;
}

describe.each([
  ["production", PRODUCTION],
  ["dev routes on", DEV],
])("GET /openapi.json (%s)", (_, env) => {
  it("lints clean with redocly and spectral, and every operation has a camelCase id, a summary and a tag", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pm-openapi-lint-"));
    try {
      const file = join(dir, "openapi.json");
      const doc = await openapiDocument(env);
      writeFileSync(file, JSON.stringify(doc, null, 2));
      expect(conventionProblems(doc)).toEqual([]);
      expect(redocly(file)).toEqual([]);
      expect(spectral(file, join(dir, "spectral.json"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Two linters' processes over the whole document: 50 s each beside the rest of the suite at load 14.
  }, 180_000);
});
