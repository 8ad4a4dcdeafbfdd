// Every Workers test file holds the file lock (test/helpers/file-lock.mjs) for its run: one Workers file at a time.
import { env } from "cloudflare:test";
import { afterAll, beforeAll } from "vitest";

// A file may wait for the longest file in the other slot to end.
beforeAll(async () => {
  const res = await fetch(`${env.FILE_LOCK}/acquire`, { method: "POST" });
  if (res.status !== 204) throw new Error(`the file lock answered ${res.status}`);
}, 600_000);

afterAll(async () => {
  await fetch(`${env.FILE_LOCK}/release`, { method: "POST" });
});
