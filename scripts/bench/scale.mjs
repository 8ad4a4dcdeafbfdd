// The scale check of `npm run bench` (docs/performance.md, "A million tasks"): the same five reads in a workspace
// of 1,000 tasks and in one of a million (BENCH_SCALE_TASKS), two workspaces seeded in SQL in the bench's database, each
// pair measured back to back, with the ratio of the large workspace's p50 to the small one's against its target.

import { seedWorkspace } from "./seed.mjs";

export const SCALE_SMALL = 1_000;
/** How deep the cursor and the resumed event sit: this share of the workspace (800,000 rows of a million). */
const DEPTH = 0.8;

// Two words (2.2 % of tasks match: a title word and a description word), ranked, 50 a page.
export const SEARCH = "/search?q=deploy%20timeout&types=task&limit=50";
export const FILTERED_LIST = "/tasks?limit=50&filter[in][status]=TODO&filter[in][status]=IN_PROGRESS&sort[priority]=desc";
// The tasks in a `started` state (a third of them), 50 a page: what an agent's queue of work in progress reads.
export const CATEGORY_LIST = "/tasks?limit=50&filter[in][statusCategory]=started";
// The tasks with an open blocker (the seed blocks 2 % of them), 50 a page.
export const BLOCKED_LIST = "/tasks?limit=50&filter[eq][isBlocked]=true";

/** The pairs: what is asked of both workspaces, and the largest ratio of p50s the issue allows. */
const PAIRS = [
  { name: "list, filter + sort", target: 1.5, path: () => FILTERED_LIST },
  { name: "list at a deep cursor", target: 1.5, path: (f) => `/tasks?limit=50&cursor=${encodeURIComponent(f.deepCursor)}` },
  { name: "search, two words", target: 3, path: () => SEARCH },
  { name: "events after a deep event", target: 1.5, path: (f) => `/events?limit=50&after=${f.deepEvent}` },
  // One task's events by its reference as a person types it (any case): an index lookup, not a walk of the stream.
  { name: "events of one reference", target: 1.5, path: (f) => `/events?limit=50&resourceId=${f.prefix.toLowerCase()}-5` },
  { name: "list, filter isBlocked", target: 1.5, path: () => BLOCKED_LIST },
  { name: "list, filter statusCategory", target: 1.5, path: () => CATEGORY_LIST },
];

async function get(baseUrl, f, path) {
  const res = await fetch(baseUrl + path, { headers: { "svc-api-key": f.apiKey } });
  const body = await res.json();
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
  return body;
}

/**
 * The cursor a client walking GET /tasks (default order: createdAt, id) holds after `row` rows, without the walk: the
 * list filtered from that row's createdAt on, one row a page, answers the row and the API's own cursor after it, and a
 * cursor is bound to the list and its sort, not to its filters. (Task n is row n of a seeded workspace.)
 */
export async function cursorAfter(baseUrl, f, row) {
  const { task } = await get(baseUrl, f, `/tasks/${f.prefix}-${row}?fields=createdAt`);
  const page = await get(baseUrl, f, `/tasks?limit=1&filter[gte][createdAt]=${task.createdAt}&fields=reference`);
  if (page.tasks[0]?.reference !== `${f.prefix}-${row}`) throw new Error(`row ${row} is not ${f.prefix}-${row}`);
  return page.pagination.nextCursor;
}

/** The id of task n's `task.created` event (from its history): where a client that has read the stream that far resumes. */
export async function eventOf(baseUrl, f, n) {
  const { events } = await get(baseUrl, f, `/tasks/${f.prefix}-${n}/history`);
  return events.find((e) => e.type === "task.created").id;
}

/**
 * The workspace's newest event now: the `PM-Position` of a PATCH that changes nothing (docs/api.md: a write that wrote
 * no event answers the latest at its commit). Walking the stream to its end instead sent wrangler's dev proxy hundreds
 * of half-megabyte pages after the bulk rows; its process kept growing, about a megabyte a page, and three runs lost the stack
 * there.
 */
export async function newestEvent(baseUrl, f) {
  const res = await fetch(`${baseUrl}/tasks/${f.prefix}-1`, {
    method: "PATCH",
    headers: { "svc-api-key": f.apiKey, "content-type": "application/json" },
    body: "{}",
  });
  await res.arrayBuffer();
  const position = res.headers.get("pm-position");
  if (!res.ok || !position) throw new Error(`PATCH /tasks/${f.prefix}-1: ${res.status}, no PM-Position`);
  return position;
}

/**
 * Seeds the two workspaces (the large one's seed is timed), then measures each pair with `measure(baseUrl, apiKey,
 * scenario, fixture)`, the small workspace first.
 */
export async function measureScale(baseUrl, databaseUrl, measure, { tasks }) {
  const seed = (n, prefix) => seedWorkspace(databaseUrl, { tasks: n, projects: 10, comments: 0, prefix, taskIds: false });
  const small = await seed(SCALE_SMALL, "SMA");
  const started = Date.now();
  const large = await seed(tasks, "LRG");
  const seedSeconds = (Date.now() - started) / 1000;
  for (const [f, n] of [
    [small, SCALE_SMALL],
    [large, tasks],
  ]) {
    f.deepCursor = await cursorAfter(baseUrl, f, Math.round(n * DEPTH));
    f.deepEvent = await eventOf(baseUrl, f, Math.round(n * DEPTH));
  }
  const pairs = [];
  for (const p of PAIRS) {
    const at = (f, n) => measure(baseUrl, f.apiKey, { name: `${p.name} @ ${n.toLocaleString("en-US")}`, path: p.path }, f);
    const s = await at(small, SCALE_SMALL);
    const l = await at(large, tasks);
    const p50Ratio = l.p50 / s.p50;
    pairs.push({ name: p.name, target: p.target, small: s, large: l, p50Ratio, rpsRatio: s.rps / l.rps, met: p50Ratio <= p.target });
  }
  return { tasks: { small: SCALE_SMALL, large: tasks }, depth: DEPTH, seedSeconds, pairs };
}
