// A large export streams page by page from one read-only snapshot (src/resources/transfer/export.ts): every record once,
// in order, nothing written meanwhile, and the document a small export would have been (it imports back whole).
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { EXPORT_PAGE } from "../../../src/resources/transfer/export";
import { api, del, fetchApp, get, patch, post } from "../../helpers/api";
import { addMember, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

/** `tasks` tasks in `team` (numbers 1…), every third a subtask of the one before, and `comments` comments on them, in SQL. */
async function seed(t: Tenant, team: TeamFixture, tasks: number, comments: number) {
  await withDb(async (db) => {
    await db.execute(sql`insert into tasks (id, workspace_id, team_id, number, title, description, created_at)
      select pm_typeid('task'), ${t.workspaceId}, ${team.id}, n, 'Seeded ' || n, 'Body of ' || n, now() - interval '1 hour' + n * interval '1 ms'
      from generate_series(1, ${tasks}) n`);
    await db.execute(sql`update tasks c set parent_id = p.id from tasks p
      where c.team_id = ${team.id} and p.team_id = ${team.id} and c.number % 3 = 0 and p.number = c.number - 1`);
    await db.execute(sql`update teams set task_counter = ${tasks} where id = ${team.id}`);
    await db.execute(sql`insert into comments (id, workspace_id, author_id, content, task_id, created_at)
      select pm_typeid('cmnt'), ${t.workspaceId}, ${t.owner.userId}, 'Note ' || n, t.id, now() - interval '30 minutes' + (n / 3) * interval '1 ms'
      from generate_series(1, ${comments}) n join tasks t on t.team_id = ${team.id} and t.number = 1 + n % ${tasks}`);
  });
}

/** The answer's text, read chunk by chunk; `between` runs after the first chunk arrived. */
async function readStreamed(res: Response, between: () => Promise<void> = async () => {}) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let chunks = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    text += decoder.decode(part.value, { stream: true });
    if (chunks++ === 0) await between();
  }
  return { doc: JSON.parse(text + decoder.decode()), chunks };
}

const queriesOf = (res: Response) => Number(/desc="(\d+) queries"/.exec(res.headers.get("server-timing") ?? "")?.[1]);
const byTime = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) =>
  a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

describe("a large export streams", () => {
  let t: Tenant;
  let big: TeamFixture;
  let other: TeamFixture;
  const TASKS = EXPORT_PAGE * 2 + 300;
  const COMMENTS = EXPORT_PAGE + 200;

  beforeAll(async () => {
    t = await newTenant("Stream Co");
    big = await newTeam(t, { name: "Big" });
    other = await newTeam(t, { name: "Other" });
    await seed(t, big, TASKS, COMMENTS);
    await seed(t, other, EXPORT_PAGE + 5, 3);
  });

  const exportOf = (path: string) => fetchApp(new Request(`http://api.test${path}`, { headers: { "svc-api-key": t.owner.key } }));

  it("a team of more than a page of tasks and comments: every record once, in order, without an ETag, in pages", async () => {
    const res = await exportOf(`/teams/${big.id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("etag")).toBeNull();
    // The caller, the first statement, and the snapshot's BEGIN and head: the pages come after the answer's headers.
    expect(queriesOf(res)).toBeLessThanOrEqual(4);
    const { doc, chunks } = await readStreamed(res);
    expect(chunks).toBeGreaterThan(3);
    expect(doc).toMatchObject({ type: "team", version: 1, data: { root: big.id } });
    expect(doc.data.tasks.map((x: { reference: string }) => x.reference)).toEqual(
      Array.from({ length: TASKS }, (_, i) => `${big.prefix}-${i + 1}`),
    );
    expect(new Set(doc.data.comments.map((c: { id: string }) => c.id)).size).toBe(COMMENTS);
    expect(doc.data.comments).toEqual([...doc.data.comments].sort(byTime));
    expect(doc.data.users.map((u: { id: string }) => u.id)).toContain(t.owner.userId);
    expect(doc.data.tasks[2].parentId).toBe(doc.data.tasks[1].id);
  });

  it("reads one snapshot: what is written while it streams is not in it", async () => {
    const res = await exportOf(`/teams/${big.id}/export`);
    expect(res.status).toBe(200);
    const last = `${big.prefix}-${TASKS}`;
    const { doc } = await readStreamed(res, async () => {
      expect((await del(`/tasks/${last}`, t.owner.key)).status).toBe(204);
      expect((await post("/tasks", { teamId: big.id, title: "Written meanwhile" }, t.owner.key)).status).toBe(201);
      expect((await post("/comments", { taskId: `${big.prefix}-1`, content: "Written meanwhile" }, t.owner.key)).status).toBe(201);
    });
    expect(doc.data.tasks.at(-1).reference).toBe(last);
    expect(doc.data.tasks).toHaveLength(TASKS);
    expect(doc.data.tasks.some((x: { title: string }) => x.title === "Written meanwhile")).toBe(false);
    expect(doc.data.comments).toHaveLength(COMMENTS);
    // The next export sees them.
    const after = (await get(`/teams/${big.id}/export`, t.owner.key)).body.data;
    expect(after.tasks.map((x: { title: string }) => x.title)).toContain("Written meanwhile");
    expect(after.tasks.map((x: { reference: string }) => x.reference)).not.toContain(last);
  });

  it("imports back whole: the streamed document is an export like any other", async () => {
    const copy = await newTeam(t, { name: "Copy" });
    const doc = (await get(`/teams/${big.id}/export`, t.owner.key)).body;
    const imported = await api("POST", `/teams/${copy.id}/import`, { body: { data: doc, update: false }, key: t.owner.key });
    expect(imported.status).toBe(200);
    const again = (await get(`/teams/${copy.id}/export`, t.owner.key)).body.data;
    expect(again.tasks).toHaveLength(doc.data.tasks.length);
    expect(again.comments).toHaveLength(doc.data.comments.length);
    expect(again.tasks.map((x: { title: string }) => x.title)).toEqual(doc.data.tasks.map((x: { title: string }) => x.title));
  });

  it("a workspace export streams team by team, in prefix order, each team's tasks by number", async () => {
    const res = await exportOf(`/workspaces/${t.workspaceId}/export`);
    expect(res.status).toBe(200);
    const { doc } = await readStreamed(res);
    const refs = doc.data.tasks.map((x: { reference: string }) => x.reference);
    const prefixes = [...new Set(refs.map((r: string) => r.slice(0, r.lastIndexOf("-"))))];
    expect(prefixes).toEqual([...prefixes].sort());
    for (const prefix of prefixes) {
      const numbers = refs.filter((r: string) => r.startsWith(`${prefix}-`)).map((r: string) => Number(r.slice(r.lastIndexOf("-") + 1)));
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    }
    expect(refs.filter((r: string) => r.startsWith(`${other.prefix}-`))).toHaveLength(EXPORT_PAGE + 5);
    expect(doc.data.workspace.id).toBe(t.workspaceId);
  });

  it("carries the users, labels and fields its streamed records point at, and no other", async () => {
    const [assignee, valued, stranger] = [await addMember(t, "MEMBER"), await addMember(t, "MEMBER"), await addMember(t, "MEMBER")];
    const key = t.owner.key;
    const used = (await post("/labels", { name: "Streamed", color: "#123456" }, key)).body.label;
    const unused = (await post("/labels", { name: "Not on any", color: "#654321" }, key)).body.label;
    await post("/fields", { key: "reviewer", name: "Reviewer", type: "user", recordTypes: ["task"] }, key);
    await post("/fields", { key: "unused_field", name: "Unused", type: "text", recordTypes: ["task"] }, key);
    // The last tasks of the team: their page comes after the head, so only the pages can tell what they point at.
    const last = `${big.prefix}-${TASKS - 1}`;
    expect(
      (await patch(`/tasks/${last}`, { assigneeId: assignee.userId, labelIds: [used.id], customFields: { reviewer: valued.userId } }, key))
        .status,
    ).toBe(200);
    const { doc } = await readStreamed(await exportOf(`/teams/${big.id}/export`));
    const ids = (list: Array<{ id: string }>) => list.map((x) => x.id);
    expect(ids(doc.data.users)).toEqual(expect.arrayContaining([t.owner.userId, assignee.userId, valued.userId]));
    expect(ids(doc.data.users)).not.toContain(stranger.userId);
    expect(ids(doc.data.labels)).toEqual([used.id]);
    expect(doc.data.labels).not.toContainEqual(expect.objectContaining({ id: unused.id }));
    expect(doc.data.fields.map((f: { key: string }) => f.key)).toEqual(["reviewer"]);
  });

  it("a missing or foreign resource is still a plain 404 before anything streams", async () => {
    const stranger = await newTenant("Stranger");
    const res = await get(`/teams/${big.id}/export`, stranger.owner.key);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });
});
