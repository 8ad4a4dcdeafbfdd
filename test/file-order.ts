// The order the run starts its files in (vitest.config.ts, sequence.sequencer): longest first, so that the run ends on
// short files instead of one long file with the other slots idle. Expected seconds come from test/durations.json, a
// whole run's (scripts/test-durations.mjs writes it; a clean clone has no vitest cache to go by). Workers files go in
// one block: a slot keeps its workerd runtime for the next file only when that file is a Workers file too (vitest's
// pool), and starting a runtime costs seconds. The longest files of the other projects go first, beside the block's
// first runtime, so that their waits on child processes overlap the Workers files' CPU.
import { readFileSync } from "node:fs";
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Seconds for a file test/durations.json does not know (a new one): about a middling file's. */
const UNKNOWN_SECONDS = 5;

export default class FileOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const recorded: Record<string, number> = JSON.parse(readFileSync(path.join(root, "test", "durations.json"), "utf8"));
    const longestFirst = (specs: TestSpecification[]) =>
      specs
        .map((spec) => ({ spec, seconds: recorded[path.relative(root, spec.moduleId)] ?? UNKNOWN_SECONDS }))
        .sort((a, b) => b.seconds - a.seconds)
        .map(({ spec }) => spec);
    const workers = longestFirst(files.filter((spec) => spec.project.name === "workers"));
    const others = longestFirst(files.filter((spec) => spec.project.name !== "workers"));
    const beside = Math.max(0, (this.ctx.config.maxWorkers ?? 1) - 1);
    return [...others.slice(0, beside), ...workers, ...others.slice(beside)];
  }
}
