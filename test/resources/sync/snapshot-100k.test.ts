// A snapshot of 100,000 tasks (docs/sync.md, "Cost"): the whole of it streamed in chunks of one batch each, so the
// Worker holds one batch (and the chunk the reader has not taken yet), whatever the snapshot's size. How soon the first
// line comes is the bench's to measure (`BENCH_ONLY=sync npm run bench`): a busy machine makes any bound here a flake.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, expect, it } from "vitest";
import worker from "../../../src/index";
import { insertTasksInSql, newTeam, newTenant, type Tenant } from "../../helpers/fixtures";

const COUNT = 100_000;
let tenant: Tenant;

beforeAll(async () => {
  tenant = await newTenant("Sync 100k");
  await insertTasksInSql(await newTeam(tenant, { prefix: "BIG" }), COUNT);
}, 300_000);

it("streams 100,000 tasks, every chunk one batch at most", async () => {
  const ctx = createExecutionContext();
  const started = performance.now();
  const res = await worker.fetch(
    new Request("http://api.test/sync/snapshot?types=task", { headers: { "svc-api-key": tenant.owner.key } }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    env,
    ctx,
  );
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let firstLineMs: number | undefined;
  let lines = 0;
  let largest = 0;
  let chunks = 0;
  let tail = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks++;
    largest = Math.max(largest, value.byteLength);
    const text = tail + decoder.decode(value, { stream: true });
    const parts = text.split("\n");
    tail = parts.pop() ?? "";
    if (parts.length && firstLineMs === undefined) firstLineMs = performance.now() - started;
    lines += parts.length;
    if (chunks === 2) await new Promise((r) => setTimeout(r, 200)); // a slow reader: the stream waits for it
  }
  await waitOnExecutionContext(ctx);
  const totalMs = performance.now() - started;
  console.log(
    `snapshot of ${COUNT} tasks: first line ${firstLineMs?.toFixed(0)} ms, all ${totalMs.toFixed(0)} ms, ${chunks} chunks, largest ${(largest / 1024).toFixed(0)} KiB`,
  );
  expect(lines).toBe(COUNT + 1);
  // One batch (500 tasks) a chunk: what the Worker holds at a time, with the one the reader has not taken.
  expect(largest).toBeLessThan(1024 * 1024);
}, 300_000);
