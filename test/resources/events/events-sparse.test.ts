// GET /events with a filter that keeps few events (docs/events.md, "Reading"): one page checks at most STREAM_WALK of
// the workspace's events, so a filter that matches nothing answers a short page with a cursor past what it checked
// instead of walking the whole stream in one statement; following the cursors still skips and repeats nothing, and a
// waiting read with such a page answers at once. Through HTTP against the real database.
import { beforeAll, describe, expect, it } from "vitest";
import { STREAM_WALK } from "../../../src/resources/events/stream";
import { get, post } from "../../helpers/api";
import { insertTasksInSql, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

let tenant: Tenant;
let team: TeamFixture;
/** The event before the walk's events: where each read below starts. */
let start: string;

interface Page {
  events: { id: string; type: string }[];
  nextCursor: string | null;
  ms: number;
}

async function read(query: string): Promise<Page> {
  const t = performance.now();
  const res = await get(`/events?${query}`, tenant.owner.key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { events: res.body.events, nextCursor: res.body.pagination.nextCursor, ms: performance.now() - t };
}

/** Every page of `query` from `start`, following the cursors until none is left. */
async function pages(query: string): Promise<Page[]> {
  const all = [await read(`after=${start}&${query}`)];
  while (all.at(-1)!.nextCursor) all.push(await read(`${query}&cursor=${encodeURIComponent(all.at(-1)!.nextCursor!)}`));
  return all;
}

beforeAll(async () => {
  tenant = await newTenant("Sparse stream");
  team = await newTeam(tenant, { prefix: "SPR" });
  const size = STREAM_WALK + 500;
  await insertTasksInSql(team, size);
  start = (await read("limit=1&types=team.*")).events[0].id;
  // One task.updated event per task, a thousand a request.
  for (let from = 1; from <= size; from += 1000) {
    const ids = Array.from({ length: Math.min(1000, size - from + 1) }, (_, i) => `SPR-${from + i}`);
    const res = await post("/tasks/bulk", { ids, set: { priority: "HIGH" } }, tenant.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}, 240_000);

describe("GET /events, a filter that keeps few events", () => {
  it("answers a page that walked STREAM_WALK events with a cursor past them, and the cursors lead to every match", async () => {
    // Nothing matches: the first page walks its share, empty, and the next one walks on to the end.
    const none = await pages("types=webhook.*&limit=10");
    expect(none.map((p) => p.events.length)).toEqual([0, 0]);
    expect(none[0].nextCursor).not.toBeNull();

    // A webhook created now is found at the end of the walk, once.
    const hook = await post("/webhooks", { url: "https://example.com/sparse", events: ["task.*"] }, tenant.owner.key);
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const found = (await pages("types=webhook.*&limit=10")).flatMap((p) => p.events);
    expect(found.map((e) => e.type)).toEqual(["webhook.created"]);

    // The events the walk passes are all there when the filter keeps them, none skipped, none repeated: the first task's
    // creation (the fixture's other tasks are copied without events) and every update.
    const tasks = (await pages("types=task.*&limit=250")).flatMap((p) => p.events);
    expect(tasks.map((e) => e.type)).toEqual(["task.created", ...Array(STREAM_WALK + 500).fill("task.updated")]);
    expect(new Set(tasks.map((e) => e.id)).size).toBe(tasks.length);
  });

  it("answers a waiting read at once when its walk ended early, with the cursor to follow", async () => {
    const first = await read(`after=${start}&types=comment.*&wait=5`);
    expect(first.events).toEqual([]);
    expect(first.nextCursor).not.toBeNull();
    expect(first.ms).toBeLessThan(4_000);
  });

  it("fills an unfiltered page as before", async () => {
    const page = await read(`after=${start}&limit=50`);
    expect(page.events).toHaveLength(50);
    expect(page.nextCursor).not.toBeNull();
  });
});
