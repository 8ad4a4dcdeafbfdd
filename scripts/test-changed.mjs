// `npm run test:changed [-- <commit or branch>]`: the test files a change reaches (uncommitted changes and new files, or
// the changes since the commit or branch given), through vitest's dependency graph (`vitest related`), run as `npm test`
// runs them. One cut: every Worker test reaches every resource through the app (src/index.ts imports the resources'
// list, src/resources/index.ts), so the graph would rerun them all for any change to one resource. No resource imports
// another (npm run check:layers), so a resource's file counts as reaching the tests of that resource
// (test/resources/<name>/, src/resources/<name>/) and the tests that import from its folder themselves. What the graph
// cannot see (migrations, which the run's set-up applies; the smoke tests' child processes) reruns everything
// (vitest.config.ts, forceRerunTriggers). `npm test` remains the whole suite.
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const since = process.argv[2];
const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
const changed = [...new Set([...git("diff", "--name-only", since ?? "HEAD"), ...git("ls-files", "--others", "--exclude-standard")])];

/** The test files under `dir` (relative to the root), none when it does not exist. */
const testsUnder = (dir) => {
  try {
    return readdirSync(path.join(root, dir), { recursive: true })
      .map((name) => path.join(dir, name))
      .filter((name) => /\.test\.(ts|mjs)$/.test(name));
  } catch {
    return [];
  }
};
const allTests = [...testsUnder("test"), ...testsUnder("src")];
const RESOURCE = /^src\/resources\/([^/]+)\//;

const related = changed.flatMap((file) => {
  const resource = RESOURCE.exec(file)?.[1];
  if (!resource || /\.test\.ts$/.test(file)) return [file];
  const importer = new RegExp(`resources/${resource}/`);
  return [
    ...testsUnder(`test/resources/${resource}`),
    ...testsUnder(`src/resources/${resource}`),
    ...allTests.filter((test) => importer.test(readFileSync(path.join(root, test), "utf8"))),
  ];
});
if (related.length === 0) {
  console.log(`No change${since ? ` since ${since}` : ""}: no test to run.`);
  process.exit(0);
}
const files = [...new Set(related)];
console.log(`Changed: ${changed.join(", ")}\nRelated through: ${files.join(", ")}`);
const run = spawnSync(
  process.execPath,
  [path.join(root, "node_modules/vitest/vitest.mjs"), "related", "--run", "--passWithNoTests", ...files],
  {
    cwd: root,
    stdio: "inherit",
  },
);
process.exit(run.status ?? 1);
