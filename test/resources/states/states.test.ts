// Workflow states (docs/api.md "Workflow states"): a team's states and who writes them, a task's status as
// a key or a name of its team's states, the category and its times in the write's own statement, the rules that name
// categories (blockers, subtask counts, duplicates), a state's delete with its tasks moved, and the events, through HTTP
// against the real database.
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

const STATE_ID = /^sta_[0-9a-z]{26}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
type State = { id: string; key: string; name: string; category: string; position: number };

describe("workflow states", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ops: TeamFixture;
  let member: Member;
  let teamAdmin: Member;
  let counter = 0;

  async function task(body: Record<string, unknown> = {}, team: TeamFixture = eng) {
    const res = await post("/tasks", { title: `S${counter++}`, teamId: team.id, ...body }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task;
  }
  const statesOf = async (team: TeamFixture | string): Promise<State[]> => {
    const res = await get(`/teams/${typeof team === "string" ? team : team.id}/states`, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.states;
  };
  async function state(body: Record<string, unknown>, team: TeamFixture = eng, key = t.owner.key) {
    const res = await post(`/teams/${team.prefix}/states`, body, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.state as State;
  }

  beforeAll(async () => {
    t = await newTenant("States Co");
    eng = await newTeam(t, { prefix: "STA", name: "Engineering" });
    ops = await newTeam(t, { prefix: "STB", name: "Operations" });
    member = await addMember(t, "MEMBER");
    await joinTeam(eng, member, "MEMBER");
    teamAdmin = await addMember(t, "MEMBER");
    await joinTeam(eng, teamAdmin, "ADMIN");
  });

  it("a new team starts with the six defaults, in position order, and a sub-team with a copy of its parent's", async () => {
    const states = await statesOf(eng);
    expect(states.map((s) => [s.key, s.name, s.category])).toEqual([
      ["BACKLOG", "Backlog", "backlog"],
      ["TODO", "Todo", "unstarted"],
      ["IN_PROGRESS", "In Progress", "started"],
      ["IN_REVIEW", "In Review", "started"],
      ["DONE", "Done", "completed"],
      ["CANCELED", "Canceled", "canceled"],
    ]);
    expect(states[0]).toEqual({
      id: expect.stringMatching(STATE_ID),
      teamId: eng.id,
      key: "BACKLOG",
      name: "Backlog",
      category: "backlog",
      position: 0,
      color: expect.stringMatching(/^#[0-9A-F]{6}$/),
      description: "",
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });

    const parent = await newTeam(t, { prefix: "STP", name: "Parent" });
    await state({ key: "IN_QA", name: "In QA", category: "started", position: 3.5 }, parent);
    const child = await post("/teams", { name: "Child", prefix: "STC", parentId: parent.id }, t.owner.key);
    expect(child.status, JSON.stringify(child.body)).toBe(201);
    const copied = await statesOf(child.body.team.id);
    expect(copied.map((s) => s.key)).toEqual(["BACKLOG", "TODO", "IN_PROGRESS", "IN_REVIEW", "IN_QA", "DONE", "CANCELED"]);
    expect(new Set(copied.map((s) => s.id)).size).toBe(7);
  });

  it("a custom started state is usable by key and by name (any case); another team's key is 422 naming status", async () => {
    await state({ key: "IN_QA", name: "In QA", category: "started" });
    const byKey = await task({ status: "in_qa" });
    expect(byKey).toMatchObject({ status: "IN_QA", statusCategory: "started", startedAt: expect.stringMatching(ISO), completedAt: null });
    const byName = await task({ status: "in qa" });
    expect(byName.status).toBe("IN_QA");
    const renamed = await patch(`/tasks/${byName.id}`, { status: "In Review" }, t.owner.key);
    expect(renamed.body.task.status).toBe("IN_REVIEW");

    await state({ key: "SHIPPED", name: "Shipped", category: "completed" }, ops);
    const foreign = await post("/tasks", { title: "x", teamId: eng.id, status: "SHIPPED" }, t.owner.key);
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors.status).toBeDefined();
    const patched = await patch(`/tasks/${byKey.id}`, { status: "Shipped" }, t.owner.key);
    expect(patched.status).toBe(422);
    expect(Object.keys(patched.body.errors)).toEqual(["status"]);
    expect((await get(`/tasks/${byKey.id}`, t.owner.key)).body.task.status).toBe("IN_QA");
  });

  it("a task with no status gets the team's first unstarted state by position", async () => {
    const plain = await task();
    expect(plain).toMatchObject({ status: "TODO", statusCategory: "unstarted", startedAt: null, completedAt: null, canceledAt: null });
    const triage = await state({ key: "TRIAGE", name: "Triage", category: "unstarted", position: -1 }, ops);
    expect(triage.position).toBe(-1);
    expect((await task({}, ops)).status).toBe("TRIAGE");
  });

  it("entering and leaving completed sets and clears completedAt; statusCategory filters the list", async () => {
    const a = await task({ status: "IN_PROGRESS" });
    const done = await patch(`/tasks/${a.id}`, { status: "DONE" }, t.owner.key);
    expect(done.body.task).toMatchObject({ statusCategory: "completed", completedAt: expect.stringMatching(ISO), startedAt: null });
    const list = await get(`/tasks?filter[in][statusCategory]=completed&filter[eq][teamId]=${eng.prefix}&limit=250`, t.owner.key);
    expect(list.status).toBe(200);
    expect(list.body.tasks.map((x: { id: string }) => x.id)).toContain(a.id);
    expect(list.body.tasks.every((x: { statusCategory: string }) => x.statusCategory === "completed")).toBe(true);
    const reopened = await patch(`/tasks/${a.id}`, { status: "todo" }, t.owner.key);
    expect(reopened.body.task).toMatchObject({ status: "TODO", statusCategory: "unstarted", completedAt: null });
    const history = await get(`/tasks/${a.id}/history`, t.owner.key);
    const change = history.body.events.find((e: { changes?: Record<string, unknown> }) => e.changes?.completedAt);
    expect(change.changes.statusCategory).toEqual({ from: "completed", to: "unstarted" });
  });

  it("a blocker in a custom completed state no longer blocks, and subtaskCounts.done counts it", async () => {
    await state({ key: "VERIFIED", name: "Verified", category: "completed" });
    const blocked = await task();
    const blocker = await task({ parentId: blocked.id });
    const rel = await post(`/tasks/${blocker.id}/relations`, { type: "blocks", taskId: blocked.id }, t.owner.key);
    expect(rel.status, JSON.stringify(rel.body)).toBe(201);
    expect((await get(`/tasks/${blocked.id}`, t.owner.key)).body.task).toMatchObject({
      blockedByCount: 1,
      subtaskCounts: { total: 1, done: 0 },
    });
    await patch(`/tasks/${blocker.id}`, { status: "Verified" }, t.owner.key);
    expect((await get(`/tasks/${blocked.id}`, t.owner.key)).body.task).toMatchObject({
      blockedByCount: 0,
      subtaskCounts: { total: 1, done: 1 },
    });
    const unblocked = await get(`/tasks?filter[eq][isBlocked]=false&filter[eq][relatedTo]=${blocker.id}`, t.owner.key);
    expect(unblocked.body.tasks.map((x: { id: string }) => x.id)).toEqual([blocked.id]);
  });

  it("duplicate_of moves the duplicate to its team's first canceled state, unless it is completed", async () => {
    const original = await task();
    const duplicate = await task();
    await state({ key: "DUPLICATE", name: "Duplicate", category: "canceled", position: -5 });
    const res = await post(`/tasks/${duplicate.id}/relations`, { type: "duplicate_of", taskId: original.id }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await get(`/tasks/${duplicate.id}`, t.owner.key)).body.task).toMatchObject({
      status: "DUPLICATE",
      canceledAt: expect.stringMatching(ISO),
    });
    const finished = await task({ status: "Verified" });
    await post(`/tasks/${finished.id}/relations`, { type: "duplicate_of", taskId: original.id }, t.owner.key);
    expect((await get(`/tasks/${finished.id}`, t.owner.key)).body.task.status).toBe("VERIFIED");
  });

  it("a state's new category reaches its tasks in the same statement; the team's last completed state stays (422)", async () => {
    const review = await state({ key: "REVIEW2", name: "Second review", category: "started" }, ops);
    const held = await task({ status: "REVIEW2" }, ops);
    expect(held.startedAt).not.toBeNull();
    const res = await patch(`/states/${review.id}`, { category: "completed", name: "Approved" }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.state).toMatchObject({ key: "REVIEW2", name: "Approved", category: "completed" });
    expect(res.queries).toBe(1);
    expect((await get(`/tasks/${held.id}`, t.owner.key)).body.task).toMatchObject({
      statusCategory: "completed",
      startedAt: null,
      completedAt: expect.stringMatching(ISO),
    });
    const key = await patch(`/states/${review.id}`, { key: "OTHER" }, t.owner.key);
    expect(key.status).toBe(422);

    const team = await newTeam(t, { prefix: "STL" });
    const done = (await statesOf(team)).find((s) => s.key === "DONE")!;
    const last = await del(`/states/${done.id}`, t.owner.key);
    expect(last.status).toBe(422);
    const recategorized = await patch(`/states/${done.id}`, { category: "started" }, t.owner.key);
    expect(recategorized.status).toBe(422);
    expect(recategorized.body.errors.category).toBeDefined();
  });

  it("deleting a state 2 tasks hold is 409 with details.tasks: 2; with moveTo both move in one transaction, one task.updated each", async () => {
    const blocked = await state({ key: "BLOCKED", name: "Blocked", category: "started" });
    const [a, b] = [await task({ status: "BLOCKED" }), await task({ status: "Blocked" })];
    const refused = await del(`/states/${blocked.id}`, t.owner.key);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "CONFLICT", details: { tasks: 2 } });
    const unknown = await api("DELETE", `/states/${blocked.id}?moveTo=NOPE`, { key: t.owner.key });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.moveTo).toBeDefined();

    const moved = await api("DELETE", `/states/${blocked.id}?moveTo=in%20progress`, { key: t.owner.key });
    expect(moved.status, JSON.stringify(moved.body)).toBe(204);
    expect(moved.queries).toBe(1);
    for (const x of [a, b]) {
      expect((await get(`/tasks/${x.id}`, t.owner.key)).body.task.status).toBe("IN_PROGRESS");
      const history = await get(`/tasks/${x.id}/history`, t.owner.key);
      const updates = history.body.events.filter(
        (e: { type: string; requestId: string }) => e.type === "task.updated" && e.requestId === moved.headers.get("x-request-id"),
      );
      expect(updates).toHaveLength(1);
      expect(updates[0].changes.status).toEqual({ from: "BLOCKED", to: "IN_PROGRESS" });
    }
    expect((await get(`/states/${blocked.id}`, t.owner.key)).status).toBe(404);
    const events = await get(`/events?types=state.deleted&resourceId=${blocked.id}`, t.owner.key);
    expect(events.body.events).toHaveLength(1);
  });

  it("a team MEMBER cannot write states (403), a team ADMIN can; another workspace gets 404", async () => {
    const refused = await post(`/teams/${eng.prefix}/states`, { key: "NOPE", name: "Nope", category: "started" }, member.key);
    expect(refused.status).toBe(403);
    expect((await get(`/teams/${eng.prefix}/states`, member.key)).status).toBe(200);
    const made = await state({ key: "ADMIN_MADE", name: "Admin made", category: "backlog" }, eng, teamAdmin.key);
    expect((await patch(`/states/${made.id}`, { name: "Renamed" }, member.key)).status).toBe(403);
    expect((await patch(`/states/${made.id}`, { name: "Renamed" }, teamAdmin.key)).status).toBe(200);
    expect((await del(`/states/${made.id}`, member.key)).status).toBe(403);

    const other = await newTenant("Elsewhere");
    expect((await get(`/teams/${eng.id}/states`, other.owner.key)).status).toBe(404);
    expect((await get(`/states/${made.id}`, other.owner.key)).status).toBe(404);
    expect((await patch(`/states/${made.id}`, { name: "x" }, other.owner.key)).status).toBe(404);
    expect((await del(`/states/${made.id}`, other.owner.key)).status).toBe(404);
    expect((await post(`/teams/${eng.id}/states`, { key: "X", name: "X", category: "started" }, other.owner.key)).status).toBe(404);
    expect((await del(`/states/${made.id}`, teamAdmin.key)).status).toBe(204);
  });

  it("two concurrent deletes of a team's two completed states: exactly one goes, the other is 422", async () => {
    const team = await newTeam(t, { prefix: "STR" });
    const shipped = await state({ key: "SHIPPED", name: "Shipped", category: "completed" }, team);
    const done = (await statesOf(team)).find((s) => s.key === "DONE")!;
    const answers = await Promise.all([del(`/states/${done.id}`, t.owner.key), del(`/states/${shipped.id}`, t.owner.key)]);
    expect(answers.map((a) => a.status).sort()).toEqual([204, 422]);
    expect((await statesOf(team)).filter((s) => s.category === "completed")).toHaveLength(1);
  });

  it("the list of a team's states is one statement after authentication", async () => {
    const res = await get(`/teams/${eng.prefix.toLowerCase()}/states`, member.key);
    expect(res.status).toBe(200);
    expect(res.queries).toBe(1);
    expect(res.body.states.map((s: State) => s.position)).toEqual([...res.body.states.map((s: State) => s.position)].sort((a, b) => a - b));
  });

  it("a key or a name the team has is 409; a bad key is 422; sort[status] orders by position across pages", async () => {
    expect((await post(`/teams/${eng.prefix}/states`, { key: "TODO", name: "Another", category: "unstarted" }, t.owner.key)).status).toBe(
      409,
    );
    expect((await post(`/teams/${eng.prefix}/states`, { key: "TODO_2", name: "todo", category: "unstarted" }, t.owner.key)).status).toBe(
      409,
    );
    expect((await post(`/teams/${eng.prefix}/states`, { key: "lower", name: "Lower", category: "unstarted" }, t.owner.key)).status).toBe(
      422,
    );

    const team = await newTeam(t, { prefix: "STS" });
    const keys = ["DONE", "BACKLOG", "IN_REVIEW", "TODO", "CANCELED", "IN_PROGRESS", "TODO", "DONE"];
    for (const status of keys) await task({ status }, team);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      type Page = { tasks: Array<{ status: string }>; pagination: { nextCursor: string | null } };
      const page: { status: number; body: Page } = await get<Page>(
        `/tasks?filter[eq][teamId]=${team.prefix}&sort[status]=desc&limit=3${cursor ? `&cursor=${cursor}` : ""}`,
        t.owner.key,
      );
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      seen.push(...page.body.tasks.map((x: { status: string }) => x.status));
      cursor = page.body.pagination.nextCursor;
    } while (cursor);
    expect(seen).toEqual(["CANCELED", "DONE", "DONE", "IN_REVIEW", "IN_PROGRESS", "TODO", "TODO", "BACKLOG"]);
    const byName = await get(
      `/tasks?filter[eq][teamId]=${team.prefix}&filter[in][status]=in%20review&filter[in][status]=todo`,
      t.owner.key,
    );
    expect(byName.body.tasks.map((x: { status: string }) => x.status).sort()).toEqual(["IN_REVIEW", "TODO", "TODO"]);
  });
});
