// The import scenario of `npm run bench` (docs/performance.md): POST /teams/{id}/import of an export holding 5,000 tasks (one in
// ten a subtask) and 5,000 comments, timed end to end, a few times in a row. Built from a real export of one seeded
// task, so the document is exactly what GET …/export answers.

export const IMPORT_TASKS = 5_000;
/** The budget: well inside a Worker request (30 s of CPU by default on the paid plan), with room for a distant database. */
export const IMPORT_TARGET_MS = 5_000;

async function call(url, apiKey, init = {}) {
  const res = await fetch(url, { ...init, headers: { "svc-api-key": apiKey, "content-type": "application/json" } });
  const body = await res.json();
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
  const queries = Number(/desc="(\d+) queries"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? Number.NaN);
  return { body, queries };
}

/** An export document of `IMPORT_TASKS` tasks with a comment each, from the export of one task of the fixture. */
async function bulkDocument(baseUrl, f) {
  const { body: doc } = await call(`${baseUrl}/tasks/${f.prefix}-1/export`, f.apiKey);
  const [task] = doc.data.tasks;
  doc.data.tasks = Array.from({ length: IMPORT_TASKS }, (_, i) => ({
    ...task,
    id: `task_bench${i}`,
    title: `Imported task ${i}`,
    description: `Imported by the bench; task ${i} of ${IMPORT_TASKS}, with a description of a realistic length.`,
    parentId: i % 10 === 0 ? null : `task_bench${i - (i % 10)}`,
  }));
  doc.data.comments = doc.data.tasks.map((t, i) => ({
    id: `cmnt_bench${i}`,
    authorId: f.userIds[0],
    content: `Comment on imported task ${i}`,
    taskId: t.id,
    projectId: null,
    milestoneId: null,
    createdAt: doc.exportedAt,
    updatedAt: doc.exportedAt,
  }));
  return JSON.stringify({ data: doc, update: false });
}

/** Imports the document `runs` times into the fixture's team; times each request. */
export async function measureImport(baseUrl, f, runs = 3) {
  const body = await bulkDocument(baseUrl, f);
  const times = [];
  let queries;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await call(`${baseUrl}/teams/${f.teamId}/import`, f.apiKey, { method: "POST", body });
    times.push(performance.now() - started);
    queries = res.queries;
  }
  times.sort((a, b) => a - b);
  return {
    tasks: IMPORT_TASKS,
    comments: IMPORT_TASKS,
    bytes: body.length,
    runs,
    queries,
    medianMs: times[Math.floor(runs / 2)],
    maxMs: times.at(-1),
    targetMs: IMPORT_TARGET_MS,
  };
}
