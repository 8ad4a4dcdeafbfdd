// Filters on webhooks (docs/webhooks.md, "Filters"; docs/events.md): a webhook's `filter` takes the list filter syntax
// with the record's field names and `changed`, is refused as a list's filter is, and decides which events get a
// delivery; POST /webhooks/{id}/test answers the same rule for a stored event. Through HTTP against the real database.
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, get, patch, post } from "../../helpers/api";
import { addMember, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { receiverUrl } from "../../helpers/least-privilege";

let tenant: Tenant;
let eng: TeamFixture;
let ops: TeamFixture;
let member: Member;

const STATUS_OF_ENG = { eq: { teamId: "ENG" }, in: { changed: ["status"] } };

/** Every page of a list, for the owner. */
async function all(path: string, key = tenant.owner.key): Promise<any[]> {
  const items: any[] = [];
  let next = `${path}${path.includes("?") ? "&" : "?"}limit=250`;
  for (;;) {
    const res = await get(next, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [list] = Object.values(res.body).filter(Array.isArray) as any[][];
    items.push(...list);
    if (!res.body.pagination.nextCursor) return items;
    next = `${path}${path.includes("?") ? "&" : "?"}limit=250&cursor=${encodeURIComponent(res.body.pagination.nextCursor)}`;
  }
}

const newest = async () => (await all("/events")).at(-1);

const hook = (body: Record<string, unknown>, key = tenant.owner.key) =>
  post("/webhooks", { url: receiverUrl(), events: ["*"], ...body }, key);

beforeAll(async () => {
  tenant = await newTenant("Filtered hooks");
  eng = await newTeam(tenant, { prefix: "ENG" });
  ops = await newTeam(tenant, { prefix: "OPS" });
  member = await addMember(tenant, "MEMBER");
});

describe("a webhook's filter", () => {
  it("is answered with its names resolved to ids, and PATCH changes or clears it", async () => {
    const label = await post("/labels", { name: "Hook-Bug", color: "#aa0000" }, tenant.owner.key);
    const created = await hook({ filter: { eq: { teamId: "eng", status: "DONE" }, in: { labelIds: ["hook-bug"], changed: ["status"] } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.webhook.filter).toEqual({
      eq: { teamId: eng.id, status: "DONE" },
      in: { labelIds: [label.body.label.id], changed: ["status"] },
    });
    const id = created.body.webhook.id;
    expect((await get(`/webhooks/${id}`, tenant.owner.key)).body.webhook.filter).toEqual(created.body.webhook.filter);

    const changed = await patch(`/webhooks/${id}`, { filter: { neq: { assigneeId: null } } }, tenant.owner.key);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.webhook.filter).toEqual({ neq: { assigneeId: null } });
    const cleared = await patch(`/webhooks/${id}`, { filter: null }, tenant.owner.key);
    expect(cleared.body.webhook.filter).toBeNull();
    expect((await hook({})).body.webhook.filter).toBeNull();
  });

  it("that names an unknown field, operator or name is refused as a list's filter is (400, same shape), and nothing is stored", async () => {
    const listAnswer = await get("/tasks?filter[eq][nope]=1", tenant.owner.key);
    expect(listAnswer.status).toBe(400);
    const before = (await all("/webhooks")).length;

    const field = await hook({ filter: { eq: { nope: "1" } } });
    expect(field.status).toBe(400);
    expect(field.body.error).toMatchObject({ code: "BAD_REQUEST", message: "Unknown filter field 'nope'", details: { field: "nope" } });
    expect(field.body.error.details.allowed).toEqual(expect.arrayContaining(["teamId", "status", "changed", "labelIds"]));
    expect(Object.keys(field.body.error)).toEqual(Object.keys(listAnswer.body.error));

    const op = await hook({ filter: { like: { status: "DONE" } } });
    expect(op.status).toBe(400);
    expect(op.body.error).toMatchObject({ code: "BAD_REQUEST", details: { operator: "like" } });
    const gt = await hook({ filter: { gt: { priority: "LOW" } } });
    expect(gt.status).toBe(400);
    expect(gt.body.error.details).toMatchObject({ field: "priority", operator: "gt", allowed: ["eq", "neq", "in"] });

    const team = await hook({ filter: { eq: { teamId: "NOPE" } } });
    expect(team.status).toBe(400);
    expect(team.body.error).toMatchObject({ code: "BAD_REQUEST", details: { field: "teamId" } });
    const label = await hook({ filter: { in: { labelIds: ["no such label"] } } });
    expect(label.status).toBe(400);
    expect(label.body.error.details.field).toBe("labelIds");

    // A status is any state's key or name (one naming none matches nothing); a category is one of five.
    const value = await hook({ filter: { eq: { statusCategory: "finished" } } });
    expect(value.status).toBe(400);
    expect(value.body.error.details).toMatchObject({ field: "statusCategory" });
    const changed = await hook({ filter: { in: { changed: ["colour"] } } });
    expect(changed.status).toBe(400);
    expect(changed.body.error.details.field).toBe("changed");

    expect((await all("/webhooks")).length).toBe(before);
  });

  it("is checked after the role: a MEMBER's bad filter is 403", async () => {
    const res = await hook({ filter: { eq: { nope: "1" } } }, member.key);
    expect(res.status).toBe(403);
  });

  it("gets exactly the ENG status changes of a mixed run of 200 writes", { timeout: 120_000 }, async () => {
    const after = (await newest()).id;
    const filtered = await hook({ filter: STATUS_OF_ENG });
    expect(filtered.status).toBe(201);
    const webhookId = filtered.body.webhook.id;

    const teams = [eng, ops];
    const tasks: Array<{ id: string }> = [];
    for (const team of teams)
      for (let i = 0; i < 4; i++) tasks.push((await post("/tasks", { teamId: team.id, title: `seed ${i}` }, tenant.owner.key)).body.task);
    const STATUSES = ["TODO", "IN_PROGRESS", "IN_REVIEW", "DONE"];
    const PRIORITIES = ["LOW", "MEDIUM", "HIGH", "URGENT"];
    let writes = 0;
    const write = async (n: number) => {
      const task = tasks[n % tasks.length];
      const kind = (n * 7) % 5;
      const res =
        kind === 0
          ? await patch(`/tasks/${task.id}`, { status: STATUSES[n % 4] }, tenant.owner.key)
          : kind === 1
            ? await patch(`/tasks/${task.id}`, { priority: PRIORITIES[n % 4], status: STATUSES[(n + 1) % 4] }, tenant.owner.key)
            : kind === 2
              ? await patch(`/tasks/${task.id}`, { title: `renamed ${n}` }, tenant.owner.key)
              : kind === 3
                ? await post("/comments", { taskId: task.id, content: `note ${n}` }, tenant.owner.key)
                : await post("/tasks", { teamId: teams[n % 2].id, title: `new ${n}`, status: "DONE" }, tenant.owner.key);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      writes++;
    };
    for (let n = 0; n < 200; n += 10) await Promise.all(Array.from({ length: 10 }, (_, i) => write(n + i)));
    expect(writes).toBe(200);

    const stream = (await all(`/events?after=${after}`)).filter((e) => e.resourceType !== "webhook");
    const expected = stream
      .filter((e) => e.type === "task.updated" && e.data.teamId === eng.id && e.changes?.status)
      .map((e) => e.id)
      .sort();
    // The run has all kinds: status changes in both teams, other changes, creations and comments.
    expect(expected.length).toBeGreaterThan(20);
    expect(stream.some((e) => e.type === "task.updated" && e.data.teamId === ops.id && e.changes?.status)).toBe(true);
    expect(stream.some((e) => e.type === "task.updated" && e.data.teamId === eng.id && !e.changes?.status)).toBe(true);
    expect(stream.some((e) => e.type === "task.created" && e.data.teamId === eng.id)).toBe(true);

    const delivered = (await all(`/webhooks/${webhookId}/deliveries`)).map((d) => d.eventId).sort();
    expect(delivered).toEqual(expected);
  });

  it("is decided on the event as its transaction leaves it: a task created with a label matches a filter on that label", async () => {
    const label = await post("/labels", { name: "Hook-Urgent", color: "#ff8800" }, tenant.owner.key);
    const filtered = await hook({ events: ["task.created"], filter: { in: { labelIds: ["Hook-Urgent"] } } });
    const plain = await post("/tasks", { teamId: eng.id, title: "no label" }, tenant.owner.key);
    const labelled = await post("/tasks", { teamId: eng.id, title: "labelled", labelIds: [label.body.label.id] }, tenant.owner.key);
    expect(labelled.status).toBe(201);
    const delivered = await all(`/webhooks/${filtered.body.webhook.id}/deliveries`);
    // The stream shows an event once no transaction before it can still commit (another test's may be open): waited for.
    const events = await eventually(async () => {
      const found = await all(`/events?filter[eq][teamId]=ENG&types=task.created`);
      return found.some((e) => e.resourceId === labelled.body.task.id) ? found : undefined;
    });
    const eventOf = (taskId: string) => events.find((e) => e.resourceId === taskId).id;
    expect(delivered.map((d) => d.eventId)).toEqual([eventOf(labelled.body.task.id)]);
    expect(plain.status).toBe(201);
  });
});

describe("POST /webhooks/{id}/test", () => {
  it("answers whether the webhook takes a stored event, by the rule that queues its deliveries", async () => {
    const filtered = await hook({ filter: STATUS_OF_ENG });
    const id = filtered.body.webhook.id;
    const task = (await post("/tasks", { teamId: eng.id, title: "tested" }, tenant.owner.key)).body.task;
    await patch(`/tasks/${task.id}`, { status: "IN_PROGRESS" }, tenant.owner.key);
    await patch(`/tasks/${task.id}`, { title: "tested again" }, tenant.owner.key);
    const other = (await post("/tasks", { teamId: ops.id, title: "elsewhere" }, tenant.owner.key)).body.task;
    await patch(`/tasks/${other.id}`, { status: "DONE" }, tenant.owner.key);
    const history = async (taskId: string) => (await get(`/tasks/${taskId}/history`, tenant.owner.key)).body.events;
    const [retitled, statusChange, creation] = await history(task.id);
    const [elsewhere] = await history(other.id);

    const test = (eventId: string) => post(`/webhooks/${id}/test`, { eventId }, tenant.owner.key);
    for (const [event, matches] of [
      [statusChange, true],
      [retitled, false],
      [creation, false],
      [elsewhere, false],
    ] as const) {
      const res = await test(event.id);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body, event.type).toEqual({ matches });
    }
    const delivered = (await all(`/webhooks/${id}/deliveries`)).map((d) => d.eventId);
    expect(delivered).toEqual([statusChange.id]);
  });

  it("answers matches: false (not 404) for an event outside a team-bound webhook's reach, such as a label's", async () => {
    const id = (await hook({ teamIds: [eng.id] })).body.webhook.id;
    await post("/labels", { name: "untested", color: "#00ff00" }, tenant.owner.key);
    const label = (await all("/events")).at(-1);
    expect(label.type).toBe("label.created");
    const res = await post(`/webhooks/${id}/test`, { eventId: label.id }, tenant.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ matches: false });
  });

  it("answers a disabled webhook's rule too (nothing is queued for it), as its documented description says", async () => {
    const id = (await hook({})).body.webhook.id;
    expect((await patch(`/webhooks/${id}`, { enabled: false }, tenant.owner.key)).status).toBe(200);
    await post("/labels", { name: "disabled-tested", color: "#0000ff" }, tenant.owner.key);
    const label = (await all("/events")).at(-1);
    const res = await post(`/webhooks/${id}/test`, { eventId: label.id }, tenant.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ matches: true });
    expect((await all(`/webhooks/${id}/deliveries`)).map((d) => d.eventId)).not.toContain(label.id);
    const described = (await get("/openapi.json")).body.paths["/webhooks/{id}/test"].post.description;
    expect(described).toMatch(/enabled or not/);
  });

  it("is 404 for an unknown event or another workspace's, 403 for a MEMBER, 422 without an eventId", async () => {
    const id = (await hook({})).body.webhook.id;
    expect((await post(`/webhooks/${id}/test`, { eventId: "evt_01jz8x4q0be0sv3c5kq9v1y2ab" }, tenant.owner.key)).status).toBe(404);
    const stranger = await newTenant("Stranger");
    await post("/labels", { name: "theirs", color: "#000000" }, stranger.owner.key);
    const theirs = (await all("/events", stranger.owner.key)).at(-1);
    const res = await post(`/webhooks/${id}/test`, { eventId: theirs.id }, tenant.owner.key);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect((await post(`/webhooks/${id}/test`, { eventId: theirs.id }, member.key)).status).toBe(403);
    expect((await post(`/webhooks/${id}/test`, {}, tenant.owner.key)).status).toBe(422);
  });
});
