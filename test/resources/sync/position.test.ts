// PM-Position (docs/api.md): every successful write names the id of the last event its transaction wrote
// (or the workspace's latest event when it wrote none), read in the write's own round trip.
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, patch, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { call, connect } from "../../mcp-client";

let tenant: Tenant;
let team: TeamFixture;

beforeAll(async () => {
  tenant = await newTenant("Position");
  team = await newTeam(tenant, { prefix: "POS" });
});

/** The newest events of the workspace (the stream, oldest first). */
async function eventsAfter(after: string) {
  const res = await get(`/events?after=${after}&limit=250`, tenant.owner.key);
  expect(res.status).toBe(200);
  return res.body.events as Array<{ id: string; type: string; resourceId: string }>;
}

let createdAtStart: string;
describe("PM-Position", () => {
  beforeAll(async () => {
    createdAtStart = (await post("/tasks", { teamId: team.id, title: "start" }, tenant.owner.key)).headers.get("pm-position")!;
  });

  it("a create, an update and a delete (one statement each, over HTTP) name their own event, in their one round trip", async () => {
    const created = await post("/tasks", { teamId: team.id, title: "positioned" }, tenant.owner.key);
    expect(created.status).toBe(201);
    const createdAt = created.headers.get("pm-position");
    expect(createdAt).toMatch(/^evt_[0-9a-z]{26}$/);
    const history = await get(`/tasks/${created.body.task.id}/history`, tenant.owner.key);
    expect(history.body.events[0].id).toBe(createdAt);

    const updated = await patch(`/tasks/${created.body.task.id}`, { status: "DONE" }, tenant.owner.key);
    expect(updated.status).toBe(200);
    const updatedAt = updated.headers.get("pm-position")!;
    expect(updatedAt).not.toBe(createdAt);
    // The value `after=` takes: the stream continues right after the update.
    expect((await eventsAfter(createdAt!)).map((e) => e.id)).toContain(updatedAt);
    expect((await eventsAfter(updatedAt)).some((e) => e.resourceId === created.body.task.id)).toBe(false);

    const gone = await del(`/tasks/${created.body.task.id}`, tenant.owner.key);
    expect(gone.status).toBe(204);
    const goneAt = gone.headers.get("pm-position")!;
    const [deleted] = (await get(`/tasks/${created.body.task.id}/history`, tenant.owner.key)).body.events ?? [];
    if (deleted) expect(deleted.id).toBe(goneAt);
    expect((await eventsAfter(updatedAt)).find((e) => e.id === goneAt)?.type).toBe("task.deleted");
  });

  it("a transaction's write (If-Match) names its last event, read in its COMMIT's round trip", async () => {
    const created = await post("/tasks", { teamId: team.id, title: "conditional" }, tenant.owner.key);
    const read = await get(`/tasks/${created.body.task.id}`, tenant.owner.key);
    const res = await api("PATCH", `/tasks/${created.body.task.id}`, {
      key: tenant.owner.key,
      body: { title: "conditional, changed" },
      headers: { "if-match": read.headers.get("etag")! },
    });
    expect(res.body).toMatchObject({ task: { title: "conditional, changed" } });
    expect(res.transactions).toBe(1);
    const at = res.headers.get("pm-position")!;
    const events = await eventsAfter(created.headers.get("pm-position")!);
    expect(events.at(-1)?.id).toBe(at);
    expect(events.at(-1)?.type).toBe("task.updated");
  });

  it("a write that changes nothing names the workspace's latest event", async () => {
    const created = await post("/tasks", { teamId: team.id, title: "unchanged" }, tenant.owner.key);
    const res = await patch(`/tasks/${created.body.task.id}`, {}, tenant.owner.key);
    expect(res.status).toBe(200);
    expect(res.headers.get("pm-position")).toBe(created.headers.get("pm-position"));
  });

  it("writes of other resources, one statement or a transaction, name the event they wrote", async () => {
    const label = await post("/labels", { name: `pos-${Date.now()}`, color: "#123456" }, tenant.owner.key);
    const project = await post("/projects", { teamId: team.id, name: "positioned" }, tenant.owner.key);
    const comment = await post(
      "/comments",
      { taskId: (await post("/tasks", { teamId: team.id, title: "c" }, tenant.owner.key)).body.task.id, content: "hi" },
      tenant.owner.key,
    );
    const renamed = await patch(`/labels/${label.body.label.id}`, { name: `pos-renamed-${Date.now()}` }, tenant.owner.key);
    const webhook = await post("/webhooks", { url: "http://127.0.0.1:9/hook", events: ["task.*"] }, tenant.owner.key);
    const removed = await del(`/projects/${project.body.project.id}`, tenant.owner.key);
    const writes = { label, project, comment, renamed, webhook, removed };
    const events = await eventsAfter(createdAtStart);
    for (const [what, res] of Object.entries(writes)) {
      expect(res.status, what).toBeLessThan(300);
      const position = res.headers.get("pm-position");
      expect(
        events.map((e) => e.id),
        `${what}: ${position}`,
      ).toContain(position);
    }
  });

  it("a read and a refused write name none", async () => {
    expect((await get("/tasks?limit=1", tenant.owner.key)).headers.get("pm-position")).toBeNull();
    const refused = await patch("/tasks/POS-999999", { title: "x" }, tenant.owner.key);
    expect(refused.status).toBe(404);
    expect(refused.headers.get("pm-position")).toBeNull();
  });

  it("an MCP tool that writes carries its position in structuredContent; a read carries none", async () => {
    const agent = await connect({ "svc-api-key": tenant.owner.key });
    const created = await call(agent, "create_task", { teamId: team.id, title: "by a tool" });
    expect(created.isError).toBe(false);
    const history = await get(`/tasks/${created.body.task.id}/history`, tenant.owner.key);
    expect(created.body.position).toBe(history.body.events[0].id);
    const read = await call(agent, "get_task", { id: created.body.task.id });
    expect(read.body.position).toBeUndefined();
  });
});

describe("PM-Min-Position", () => {
  const read = (path: string, position: string, key = tenant.owner.key) =>
    api("GET", path, { key, headers: { "PM-Min-Position": position } });

  it("a write's position is read as asked; garbage or another workspace's event is 400 naming the header", async () => {
    const created = await post("/tasks", { teamId: team.id, title: "min position" }, tenant.owner.key);
    const at = created.headers.get("pm-position")!;
    const ok = await read(`/tasks/${created.body.task.id}`, at);
    expect(ok.status).toBe(200);
    expect(ok.body.task.id).toBe(created.body.task.id);

    const garbage = await read(`/tasks/${created.body.task.id}`, "garbage");
    expect(garbage.status).toBe(400);
    expect(garbage.body.error).toMatchObject({ code: "BAD_REQUEST", details: { header: "PM-Min-Position" } });
    expect(garbage.body.error.message).toContain("PM-Min-Position");

    const other = await newTenant("Position elsewhere");
    const otherTeam = await newTeam(other, { prefix: "ELS" });
    const theirs = (await post("/tasks", { teamId: otherTeam.id, title: "theirs" }, other.owner.key)).headers.get("pm-position")!;
    const foreign = await read("/tasks", theirs);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details).toEqual({ header: "PM-Min-Position" });
    expect(foreign.body.error.message).toContain(theirs);
    // The same id is their own position.
    expect((await read("/tasks", theirs, other.owner.key)).status).toBe(200);
  });

  it("a refusal comes first: a bad credential with a bad position is 401", async () => {
    const res = await read("/tasks", "garbage", "not-a-key");
    expect(res.status).toBe(401);
  });
});
