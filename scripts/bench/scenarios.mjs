// The bench's scenarios (scripts/bench.mjs), and the paired runs' subset (scripts/bench/paired.mjs).
import { BLOCKED_LIST, FILTERED_LIST, SEARCH } from "./scale.mjs";
import { BLOCKS_CHAIN_HEAD } from "./seed.mjs";

/**
 * One entry per scenario. `path`/`body` get the seeded fixture (and, with `fresh`, the request's number, for
 * requests that consume their target); `target` is the README's budget as a ratio to the floor route; `ref`
 * marks the reference routes; `kind` names its budgets (DISTANCE_TARGET, CPU_BUDGET); `dbOverFloor` is the most its
 * `db ms` may exceed the floor's (a `select 1`) on the production path in the same run (docs/performance.md, "Database
 * time of a write"); `latencyOnly` scenarios run only in the latency table, so the default run measures what it always did.
 */
export const SCENARIOS = [
  { name: "ceiling: static JSON, no database", path: () => "/_bench/ceiling", ref: "ceiling" },
  { name: "floor: select 1 (WebSocket: connect + select 1)", path: () => "/_bench/floor", ref: "floor" },
  // The authentication query alone (the principal with its workspace and role): what every route pays first.
  { name: "GET /me (auth query only)", path: () => "/me", kind: "read" },
  {
    name: "GET /tasks/{reference}",
    path: (f) => `/tasks/${f.prefix}-${Math.ceil(f.taskIds.length / 2)}`,
    target: 0.85,
    kind: "read",
    dbOverFloor: 1,
  },
  // The rate limiter's cost (docs/performance.md: at most 0.05 of the row above's ratio to the floor): the same read with the
  // limiter switched off, which BENCH_ROUTES (dev-only) allows per request.
  {
    name: "GET /tasks/{reference} limiter off",
    path: (f) => `/tasks/${f.prefix}-${Math.ceil(f.taskIds.length / 2)}`,
    headers: { "x-bench-rate-limit": "off" },
  },
  {
    name: "GET /tasks?limit=50 filter+sort",
    path: () => FILTERED_LIST,
    target: 0.7,
    kind: "read",
  },
  // The batch's budget (docs/performance.md), no `kind` (not one read): 20 task reads in one call cost at most 3× GET /tasks/{reference}.
  {
    name: "POST /batch of 20 task reads",
    method: "POST",
    path: () => "/batch",
    body: (f) => ({ requests: Array.from({ length: 20 }, (_, i) => `/tasks/${f.prefix}-${i + 1}`) }),
  },
  { name: "GET /search?q=deploy timeout", path: () => SEARCH, kind: "read" },
  { name: "GET /tasks at a deep cursor", path: (f) => `/tasks?limit=50&cursor=${encodeURIComponent(f.deepCursor)}`, kind: "read" },
  // The change feed: the stream's first page, and resuming after an event deep in it (the seed's rows made them).
  { name: "GET /events?limit=50", path: () => "/events?limit=50", kind: "read" },
  { name: "GET /events after a deep event", path: (f) => `/events?limit=50&after=${f.deepEvent}`, kind: "read" },
  // A waiting read (docs/events.md, "Waiting for the next event"): nothing newer of these types comes, so each answer is
  // empty after its second; what it costs is the one read, the shared watcher's statement, and the wait's latency.
  { name: "GET /events?wait=1, nothing new", path: (f) => `/events?limit=50&after=${f.newestEvent}&types=webhook.*&wait=1` },
  {
    name: "POST /tasks",
    method: "POST",
    path: () => "/tasks",
    body: (f) => ({ teamId: f.teamId, title: "Bench task", labelIds: f.labelIds.slice(0, 2) }),
    target: 0.6,
    kind: "create",
    dbOverFloor: 3,
  },
  {
    name: "PATCH /tasks/{id}",
    method: "PATCH",
    path: (f) => `/tasks/${f.taskIds[10]}`,
    body: () => ({ status: "IN_PROGRESS", priority: "HIGH" }),
    kind: "write",
    dbOverFloor: 2,
  },
  {
    name: "POST /comments",
    method: "POST",
    path: () => "/comments",
    body: (f) => ({ taskId: f.taskIds[20], content: "Bench comment" }),
    kind: "create",
    dbOverFloor: 2,
  },
  {
    // The comment and its 20 notifications (and their emails) are one statement.
    name: "POST /comments mentioning 20 people",
    method: "POST",
    path: () => "/comments",
    body: (f) => ({ taskId: f.taskIds[21], content: `Bench ${f.handles.map((h) => `@${h}`).join(" ")}` }),
    kind: "create",
  },
  { name: "GET /projects?fields=…", path: () => "/projects?limit=50&fields=id,reference,name,status,team{prefix}", kind: "read" },
  { name: "GET /projects/{id}", path: (f) => `/projects/${f.projectIds[5]}`, kind: "read", latencyOnly: true },
  { name: "GET /teams/{id}", path: (f) => `/teams/${f.teamId}`, kind: "read", latencyOnly: true },
  {
    name: "PATCH /tasks/{id} labels",
    method: "PATCH",
    path: (f) => `/tasks/${f.taskIds[11]}`,
    body: (f) => ({ title: "Relabelled", labelIds: f.labelIds.slice(2, 4) }),
    kind: "write",
    latencyOnly: true,
  },
  {
    name: "PATCH /projects/{id}",
    method: "PATCH",
    path: (f) => `/projects/${f.projectIds[5]}`,
    body: () => ({ status: "ACTIVE" }),
    kind: "write",
    latencyOnly: true,
  },
  {
    name: "PATCH /milestones/{id}",
    method: "PATCH",
    path: (f) => `/milestones/${f.milestoneIds[0]}`,
    body: () => ({ name: "Renamed milestone" }),
    kind: "write",
    latencyOnly: true,
  },
  {
    name: "PATCH /comments/{id}",
    method: "PATCH",
    path: (f) => `/comments/${f.commentIds[0]}`,
    body: () => ({ content: "Edited" }),
    kind: "write",
    latencyOnly: true,
  },
  {
    name: "PATCH /teams/{id}",
    method: "PATCH",
    path: (f) => `/teams/${f.teamId}`,
    body: () => ({ description: "Bench team" }),
    kind: "write",
    latencyOnly: true,
  },
  {
    name: "PATCH /team-members/{id}",
    method: "PATCH",
    path: (f) => `/team-members/${f.membershipIds[1]}`,
    body: () => ({ role: "MEMBER" }),
    kind: "write",
    latencyOnly: true,
  },
  {
    name: "POST /projects",
    method: "POST",
    path: () => "/projects",
    body: (f) => ({ teamId: f.teamId, name: "Bench project" }),
    kind: "create",
    latencyOnly: true,
  },
  {
    name: "POST /milestones",
    method: "POST",
    path: () => "/milestones",
    body: (f) => ({ projectId: f.projectIds[6], name: "Bench milestone" }),
    kind: "create",
    latencyOnly: true,
  },
  {
    name: "DELETE /comments/{id}",
    method: "DELETE",
    path: (f, n) => `/comments/${f.commentIds[1 + n]}`,
    fresh: true,
    kind: "write",
    latencyOnly: true,
  },
  // The newer rows (their CPU and round trips): a claim by filter (each takes the next free task), a worklog, the time
  // summary, the inbox, a small snapshot, a team's workflow states and its cycles with their progress.
  {
    name: "POST /tasks/claim by filter",
    method: "POST",
    path: () => "/tasks/claim",
    body: () => ({ filter: {}, leaseSeconds: 3600 }),
    kind: "write",
    latencyOnly: true,
  },
  {
    name: "POST /tasks/{id}/worklogs",
    method: "POST",
    path: (f) => `/tasks/${f.taskIds[30]}/worklogs`,
    body: () => ({ startedAt: new Date(Date.now() - 3_600_000).toISOString(), durationSeconds: 600 }),
    kind: "create",
    latencyOnly: true,
  },
  { name: "GET /worklogs/summary", path: () => "/worklogs/summary?groupBy=user", kind: "read", latencyOnly: true },
  { name: "GET /notifications (inbox)", path: () => "/notifications", kind: "read", latencyOnly: true },
  { name: "GET /sync/snapshot?types=team", path: () => "/sync/snapshot?types=team", kind: "read", latencyOnly: true },
  { name: "GET /teams/{id}/states", path: (f) => `/teams/${f.teamId}/states`, kind: "read", latencyOnly: true },
  { name: "GET /cycles with progress", path: (f) => `/cycles?teamId=${f.teamId}`, kind: "read", latencyOnly: true },
  // Task relations: a list of the blocked tasks, a relation that needs no cycle check, and a `blocks` edge into
  // the head of the seeded chain of 1,000, whose check walks all of it (within 2× of POST /tasks). Each create
  // starts from a task of its own (the same pair again is 409): 2,000 each, so latency rows only.
  { name: "GET /tasks?filter[eq][isBlocked]=true", path: () => BLOCKED_LIST, kind: "read" },
  {
    name: "POST /tasks/{id}/relations",
    method: "POST",
    path: (f, n) => `/tasks/${f.taskIds[3000 + n]}/relations`,
    body: (f) => ({ type: "related", taskId: f.taskIds[0] }),
    fresh: true,
    kind: "create",
    latencyOnly: true,
  },
  {
    name: "POST /tasks/{id}/relations, 1,000-edge check",
    method: "POST",
    path: (f, n) => `/tasks/${f.taskIds[5000 + n]}/relations`,
    body: (f) => ({ type: "blocks", taskId: `${f.prefix}-${BLOCKS_CHAIN_HEAD}` }),
    fresh: true,
    kind: "create",
    latencyOnly: true,
  },
  // Bulk writes (docs/api.md, "Bulk writes"): N tasks' due date in one request, a new date each request (its `n`), so every
  // request writes every task; next to PATCH /tasks/{id}'s one task: at most 2.1 round trips due to distance, and 1,000
  // tasks within 10× a PATCH's time at 0 ms (docs/performance.md).
  ...[10, 100, 1000].map((size) => ({
    name: `POST /tasks/bulk of ${size.toLocaleString("en")} tasks`,
    method: "POST",
    path: () => "/tasks/bulk",
    body: (f, n) => ({
      ids: f.taskIds.slice(size, 2 * size),
      set: { dueDate: new Date(Date.UTC(2030, 0, 1) + n * 86_400_000).toISOString().slice(0, 10) },
    }),
    fresh: true,
    kind: "write",
    latencyOnly: true,
  })),
  {
    name: "DELETE /tasks/{id}",
    method: "DELETE",
    path: (f, n) => `/tasks/${f.taskIds[f.taskIds.length - 1 - n]}`,
    fresh: true,
    kind: "write",
    latencyOnly: true,
  },
];
