// Workflow states in export and import, their events, and their MCP tool (docs/api.md, "Workflow states"): an export
// carries its teams' states; an import into a team creates the keys it lacks, a workspace import gives its new teams the
// document's states, and a document from before states (none in it) still imports, through HTTP against the real database.
import { beforeAll, describe, expect, it } from "vitest";
import { joinWorkspaceWithKey } from "../../../src/auth/accounts/membership";
import { api, del, get, patch, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";
import { call, connect } from "../../mcp-client";

type State = { id: string; key: string; name: string; category: string; position: number; color: string; description: string };
/** What a state is apart from its ids and times, in position order (an export holds them in the order they were made). */
const shape = (states: State[]) =>
  [...states]
    .sort((a, b) => a.position - b.position)
    .map(({ key, name, category, position, color, description }) => ({ key, name, category, position, color, description }));

describe("workflow states in export, import, events and MCP", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let doc: { data: { states: Array<State & { teamId: string }>; tasks: Array<{ title: string; status: string }> } } & Record<string, any>;
  const statesOf = async (team: string, key = t.owner.key): Promise<State[]> => (await get(`/teams/${team}/states`, key)).body.states;

  beforeAll(async () => {
    t = await newTenant("States Transfer Co");
    eng = await newTeam(t, { prefix: "STX", name: "Engineering" });
    await post(
      `/teams/${eng.id}/states`,
      { key: "IN_QA", name: "In QA", category: "started", position: 2.5, color: "#123456" },
      t.owner.key,
    );
    const review = (await statesOf(eng.id)).find((s) => s.key === "IN_REVIEW")!;
    expect((await del(`/states/${review.id}`, t.owner.key)).status).toBe(204);
    const done = (await statesOf(eng.id)).find((s) => s.key === "DONE")!;
    expect((await patch(`/states/${done.id}`, { name: "Shipped", description: "Live" }, t.owner.key)).status).toBe(200);
    for (const status of ["IN_QA", "Shipped", "TODO"]) {
      expect((await post("/tasks", { title: `T ${status}`, teamId: eng.id, status }, t.owner.key)).status).toBe(201);
    }
    doc = (await get(`/teams/${eng.id}/export`, t.owner.key)).body;
  });

  it("a team export carries the team's states", () => {
    expect(shape(doc.data.states).map((s) => s.key)).toEqual(["BACKLOG", "TODO", "IN_PROGRESS", "IN_QA", "DONE", "CANCELED"]);
    expect(doc.data.states.find((s) => s.key === "DONE")).toMatchObject({ name: "Shipped", category: "completed", teamId: eng.id });
    expect(doc.data.tasks.map((task) => task.status).sort()).toEqual(["DONE", "IN_QA", "TODO"]);
  });

  it("an import into a team creates the keys it lacks and keeps its own states", async () => {
    const target = await newTeam(t, { prefix: "STY", name: "Target" });
    const res = await post(`/teams/${target.id}/import`, { data: doc, update: false }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const states = await statesOf(target.id);
    expect(states.map((s) => s.key)).toEqual(["BACKLOG", "TODO", "IN_PROGRESS", "IN_QA", "IN_REVIEW", "DONE", "CANCELED"]);
    expect(states.find((s) => s.key === "DONE")!.name).toBe("Done");
    expect(states.find((s) => s.key === "IN_QA")).toMatchObject({ name: "In QA", category: "started", color: "#123456" });
    const tasks = (await get(`/tasks?filter[eq][teamId]=${target.id}&filter[eq][status]=in%20qa`, t.owner.key)).body.tasks;
    expect(tasks.map((task: { title: string; statusCategory: string }) => [task.title, task.statusCategory])).toEqual([
      ["T IN_QA", "started"],
    ]);
  });

  it("a workspace import gives its new teams the document's states: export, import, export keeps them", async () => {
    const whole = (await get(`/workspaces/${t.workspaceId}/export`, t.owner.key)).body;
    const res = await api("POST", "/workspaces/import", { body: { data: whole, update: false }, key: t.owner.key });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const key = await withDb((db) =>
      joinWorkspaceWithKey(db, { workspaceId: res.body.workspace.id, userId: t.owner.userId, role: "OWNER", keyName: "test" }),
    );
    expect(shape(await statesOf("STX", key))).toEqual(shape(doc.data.states));
    const again = (await get(`/workspaces/${res.body.workspace.id}/export`, key)).body;
    const byTeam = (d: typeof whole) =>
      Object.fromEntries(
        d.data.teams.map((team: { id: string; prefix: string }) => [
          team.prefix,
          shape(d.data.states.filter((s: { teamId: string }) => s.teamId === team.id)),
        ]),
      );
    expect(byTeam(again)).toEqual(byTeam(whole));
  });

  it("a document from before states imports: a status its team lacks is created with the defaults' category", async () => {
    const target = await newTeam(t, { prefix: "STZ", name: "Old docs" });
    const done = (await statesOf(target.id)).find((s) => s.key === "DONE")!;
    await post(`/teams/${target.id}/states`, { key: "FINISHED", name: "Finished", category: "completed" }, t.owner.key);
    expect((await del(`/states/${done.id}`, t.owner.key)).status).toBe(204);
    const old = structuredClone(doc);
    delete (old.data as Record<string, unknown>).states;
    old.data.tasks = old.data.tasks.map((task) => ({ ...task, status: task.status === "IN_QA" ? "IN_PROGRESS" : task.status }));
    const res = await post(`/teams/${target.id}/import`, { data: old, update: false }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const states = await statesOf(target.id);
    expect(states.find((s) => s.key === "DONE")).toMatchObject({ name: "Done", category: "completed" });
    const shipped = (await get(`/tasks?filter[eq][teamId]=${target.id}&filter[eq][status]=DONE`, t.owner.key)).body.tasks;
    expect(shipped).toHaveLength(1);
    expect(shipped[0]).toMatchObject({ statusCategory: "completed", completedAt: expect.any(String) });
  });

  it("state.created, state.updated and state.deleted are events, with the state as data", async () => {
    const made = (await post(`/teams/${eng.id}/states`, { key: "EVENTFUL", name: "Eventful", category: "backlog" }, t.owner.key)).body
      .state;
    await patch(`/states/${made.id}`, { color: "#ABCDEF" }, t.owner.key);
    await del(`/states/${made.id}`, t.owner.key);
    const events = (await get(`/events?resourceId=${made.id}`, t.owner.key)).body.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(["state.created", "state.updated", "state.deleted"]);
    expect(events[0]).toMatchObject({ resourceType: "state", data: { key: "EVENTFUL", teamId: eng.id, category: "backlog" } });
    expect(events[1].changes).toEqual({ color: { from: "#BEC2C8", to: "#ABCDEF" } });
    const team = await post("/teams", { name: "Evented", prefix: "STE" }, t.owner.key);
    const created = (await get(`/events?types=state.created&filter[eq][teamId]=${team.body.team.id}`, t.owner.key)).body.events;
    expect(created).toHaveLength(6);
  });

  it("MCP lists a team's states and takes a state's name for a task's status", async () => {
    const client = await connect({ "svc-api-key": t.owner.key });
    const listed = await call(client, "list_states", { id: eng.prefix });
    expect(listed.isError).toBe(false);
    const started = listed.body.states.find((s: State) => s.category === "started");
    expect(started.key).toBe("IN_PROGRESS");
    const created = await call(client, "create_task", { teamId: eng.prefix, title: "By an agent" });
    const moved = await call(client, "update_task", { id: created.body.task.reference, status: "in qa" });
    expect(moved.body.task).toMatchObject({ status: "IN_QA", statusCategory: "started" });
    const wrong = await call(client, "update_task", { id: created.body.task.reference, status: "Nowhere" });
    expect(wrong.isError).toBe(true);
    await client.close();
  });
});
