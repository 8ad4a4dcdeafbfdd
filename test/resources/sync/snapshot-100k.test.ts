// A snapshot of 100,000 tasks (docs/sync.md, "Cost"): the whole of it streamed in chunks of one batch each, so the
// Worker holds one batch (and the chunk the reader has not taken yet), whatever the snapshot's size. How soon the first
// line comes is the bench's to measure (`BENCH_ONLY=sync npm run bench`): a busy machine makes any bound here a flake.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { RequestDb } from "../../../src/db/client";
import worker from "../../../src/index";
import { newTeam, newTenant, type Tenant } from "../../helpers/fixtures";

const COUNT = 100_000;
let tenant: Tenant;

beforeAll(async () => {
  tenant = await newTenant("Sync 100k");
  const team = await newTeam(tenant, { prefix: "BIG" });
  // Written directly, 10,000 a statement (each with its events), on a connection that may wait that long.
  const rdb = new RequestDb(env, { bounds: { connect: 5000, query: 240_000 } });
  try {
    for (let from = 1; from <= COUNT; from += 10_000)
      await rdb.db.execute(sql`insert into tasks (id, workspace_id, team_id, number, title, description)
        select pm_typeid('task'), ${tenant.workspaceId}, ${team.id}, g, 'task ' || g, repeat('words ', 20)
        from generate_series(${from}::int, ${from + 9_999}::int) g`);
    // As autovacuum would after such a load: without statistics the planner takes the new rows for a few and sorts them all.
    await rdb.db.execute(sql`analyze tasks`);
  } finally {
    await rdb.close();
  }
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
