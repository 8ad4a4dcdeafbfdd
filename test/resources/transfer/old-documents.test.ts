// Every document the service ever exported imports (docs/api.md, "Export and import"): a field or collection added to
// the document after its first version is optional on import, with its default, declared once where the field is (its
// exported schema's `.default(…)`). Each document below is what the export of its time held: today's export with what
// was added since taken out, one per change of the document, imported in one request and in parts.
import { beforeAll, describe, expect, it } from "vitest";
import { api, get, post } from "../../helpers/api";
import { addMember, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

/** Each change of the export document, oldest first: what a task of it lacked, and the collections it lacked. */
const VERSIONS = [
  {
    name: "the first (2026-11-23, 0598134)",
    taskFields: ["estimate", "estimateSeconds", "remainingSeconds", "delegateId"],
    collections: ["relations", "links", "attachments", "worklogs"],
  },
  {
    name: "with estimates (4eae0eb)",
    taskFields: ["estimateSeconds", "remainingSeconds", "delegateId"],
    collections: ["relations", "links", "attachments", "worklogs"],
  },
  { name: "with relations, links and files", taskFields: ["estimateSeconds", "remainingSeconds", "delegateId"], collections: ["worklogs"] },
  { name: "with time tracking (6e6c72b)", taskFields: ["delegateId"], collections: [] },
  { name: "with delegation (691185f)", taskFields: [], collections: [] },
] as const;

type Doc = { type: string; version: 1; exportedAt: string; data: Record<string, unknown> & { tasks: Record<string, unknown>[] } };

/** `doc` as the export of `version`'s time held it. */
function asOf(doc: Doc, version: (typeof VERSIONS)[number]): Doc {
  const data: Doc["data"] = { ...doc.data, tasks: doc.data.tasks.map((task) => ({ ...task })) };
  for (const name of version.collections) delete data[name];
  for (const task of data.tasks) for (const field of version.taskFields) delete task[field];
  return { ...doc, data };
}

const put = (path: string, body: unknown, key: string) => api("PUT", path, { body, key });

let t: Tenant;
let exported: Doc;

beforeAll(async () => {
  t = await newTenant("Old documents");
  const source = await newTeam(t, { prefix: "OLD" });
  const assignee = await addMember(t, "MEMBER");
  const first = await post(
    "/tasks",
    { teamId: source.id, title: "estimated", estimate: 3, assigneeId: assignee.userId, timeTracking: { estimateSeconds: 3600 } },
    t.owner.key,
  );
  await post("/tasks", { teamId: source.id, title: "subtask", parentId: first.body.task.id }, t.owner.key);
  await post("/comments", { taskId: first.body.task.id, content: "a comment" }, t.owner.key);
  const res = await get(`/teams/${source.id}/export`, t.owner.key);
  expect(res.status).toBe(200);
  exported = res.body;
  // Today's document has everything the older ones lack.
  for (const field of VERSIONS[0].taskFields) expect(exported.data.tasks[0]).toHaveProperty(field);
});

describe.each(VERSIONS)("a team export of $name", (version) => {
  let target: TeamFixture;
  beforeAll(async () => {
    target = await newTeam(t);
  });

  it("imports in one request, with the defaults of what it lacks", async () => {
    const doc = asOf(exported, version);
    const res = await post(`/teams/${target.id}/import`, { data: doc, update: false }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const tasks = (await get(`/tasks?filter[eq][teamId]=${target.id}&sort[number]=asc`, t.owner.key)).body.tasks;
    expect(tasks.map((task: { title: string }) => task.title)).toEqual(["estimated", "subtask"]);
    const expectedEstimate = (version.taskFields as readonly string[]).includes("estimate") ? null : 3;
    expect(tasks[0].estimate).toBe(expectedEstimate);
    expect(tasks[0].delegateId).toBeNull();
  });

  it("imports in parts (POST /imports, PUT …/parts/1, commit)", async () => {
    const other = await newTeam(t);
    const opened = await post("/imports", { teamId: other.id }, t.owner.key);
    expect(opened.status).toBe(201);
    const id = opened.body.import.id;
    const sent = await put(`/imports/${id}/parts/1`, { data: asOf(exported, version) }, t.owner.key);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const committed = await post(`/imports/${id}/commit`, undefined, t.owner.key);
    expect(committed.status, JSON.stringify(committed.body)).toBe(200);
    expect((await get(`/tasks?filter[eq][teamId]=${other.id}`, t.owner.key)).body.tasks).toHaveLength(2);
  });
});
