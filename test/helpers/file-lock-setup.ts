// Every Workers test file takes the file lock (test/helpers/file-lock.mjs) for its run: shared, or alone for the files
// below, which sweep or lock what every tenant shares while another file could be running beside them.
import { env } from "cloudflare:test";
import { afterAll, beforeAll, expect } from "vitest";

const ALONE = [
  // The relay sends every due mail: its counts of one row's relays hold only if no other file's cron relays it too.
  "test/email-outbox.test.ts",
  // The Cron Trigger relays every lost delivery; the file counts the ones it lost.
  "src/middleware/webhook-relay/webhook-relay.test.ts",
  // These run the scheduled handler (rollover, relays, retention, the files sweep) over every tenant.
  "test/resources/cycles/cycles.test.ts",
  "test/resources/events/events.test.ts",
  "test/resources/attachments/attachments-orphans.test.ts",
  // Locks the write fences' table, which every settled write of every file needs.
  "test/outcome.test.ts",
];

let mode: "shared" | "alone" = "shared";

// A file that must run alone may wait for the longest file beside it to end.
beforeAll(async () => {
  const file = expect.getState().testPath ?? "";
  mode = ALONE.some((path) => file.endsWith(path)) ? "alone" : "shared";
  const res = await fetch(`${env.FILE_LOCK}/acquire?mode=${mode}`, { method: "POST" });
  if (res.status !== 204) throw new Error(`the file lock answered ${res.status}`);
}, 600_000);

afterAll(async () => {
  await fetch(`${env.FILE_LOCK}/release?mode=${mode}`, { method: "POST" });
});
