#!/usr/bin/env node
// Writes test/durations.json, the order hint of test/file-order.ts: each test file's seconds in a run's JSON report
// (`npm test -- --reporter=json --outputFile.json=FILE`, as .ci/run writes one). Usage: node scripts/test-durations.mjs FILE
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const report = JSON.parse(readFileSync(process.argv[2], "utf8"));
const seconds = Object.fromEntries(
  report.testResults
    .map((file) => [path.relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(path.join(root, "test", "durations.json"), `${JSON.stringify(seconds, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(seconds).length} files`);
