// GET /events?filter[...] (docs/events.md, "Filters"): the list filter syntax with the record's field names and `changed`,
// names as everywhere, refused as a list's filter is; with wait=, an event the filter leaves out does not end the wait.
// Through HTTP against the real database.
import { beforeAll, describe, expect, it } from "vitest";
import { get, patch, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

let tenant: Tenant;
let eng: TeamFixture;
let ops: TeamFixture;

async function stream(query: string): Promise<any[]> {
  const seen: any[] = [];
  let path = `/events?limit=250&${query}`;
  for (;;) {
    const res = await get(path, tenant.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...res.body.events);
    if (!res.body.pagination.nextCursor) return seen;
    path = `/events?limit=250&${query}&cursor=${encodeURIComponent(res.body.pagination.nextCursor)}`;
  }
}

beforeAll(async () => {
  tenant = await newTenant("Filtered stream");
  eng = await newTeam(tenant, { prefix: "ENG" });
  ops = await newTeam(tenant, { prefix: "OPS" });
});

describe("GET /events?filter[...]", () => {
  it("keeps the events whose record passes: team by prefix, status, labels by name, assignee by email, changed fields", async () => {
    const after = (await stream("")).at(-1).id;
    const label = (await post("/labels", { name: "Stream-Bug", color: "#123456" }, tenant.owner.key)).body.label;
    const a = (await post("/tasks", { teamId: eng.id, title: "a" }, tenant.owner.key)).body.task;
    const b = (await post("/tasks", { teamId: ops.id, title: "b" }, tenant.owner.key)).body.task;
    await patch(`/tasks/${a.id}`, { status: "DONE" }, tenant.owner.key);
    await patch(`/tasks/${a.id}`, { title: "a2", labelIds: [label.id], assigneeId: tenant.owner.userId }, tenant.owner.key);
    await patch(`/tasks/${b.id}`, { status: "DONE" }, tenant.owner.key);
    await post("/comments", { taskId: a.id, content: "on a" }, tenant.owner.key);

    const ids = async (query: string) => (await stream(`after=${after}&${query}`)).map((e) => `${e.type} ${e.resourceId}`);
    expect(await ids("filter[eq][teamId]=eng&filter[in][changed]=status")).toEqual([`task.updated ${a.id}`]);
    expect(await ids("filter[in][changed]=status&filter[in][changed]=labelIds")).toEqual([
      `task.updated ${a.id}`,
      `task.updated ${a.id}`,
      `task.updated ${b.id}`,
    ]);
    expect(await ids("filter[neq][changed]=status&types=task.*")).toEqual([`task.updated ${a.id}`]);
    expect(await ids("filter[eq][labelIds]=stream-bug")).toEqual([`task.updated ${a.id}`]);
    expect(await ids(`filter[eq][assigneeId]=${encodeURIComponent(tenant.owner.email)}`)).toEqual([`task.updated ${a.id}`]);
    expect(await ids("filter[eq][status]=DONE&filter[eq][teamId]=OPS")).toEqual([`task.updated ${b.id}`]);
    // A status by its state's name in any case, and by its category.
    expect(await ids("filter[eq][status]=done&filter[eq][teamId]=OPS")).toEqual([`task.updated ${b.id}`]);
    expect(await ids("filter[eq][statusCategory]=completed&filter[eq][teamId]=OPS")).toEqual([`task.updated ${b.id}`]);
    expect(await ids("filter[eq][teamId]=OPS&filter[eq][assigneeId]=null")).toEqual([`task.created ${b.id}`, `task.updated ${b.id}`]);
    // The comment is ENG's too (its task's team).
    expect(await ids("filter[eq][teamId]=ENG&types=comment.*")).toHaveLength(1);
    // A name of the right form that names nothing matches nothing, as in a list.
    expect(await ids("filter[eq][teamId]=NOPE")).toEqual([]);
  });

  it("refuses an unknown field, operator or value as a list's filter does (400, same shape)", async () => {
    const list = await get("/tasks?filter[eq][nope]=1", tenant.owner.key);
    const res = await get("/events?filter[eq][nope]=1", tenant.owner.key);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "BAD_REQUEST", message: list.body.error.message, details: { field: "nope" } });
    expect((await get("/events?filter[like][status]=DONE", tenant.owner.key)).body.error.details).toMatchObject({ operator: "like" });
    expect((await get("/events?filter[gt][priority]=LOW", tenant.owner.key)).status).toBe(400);
    expect((await get("/events?filter[eq][statusCategory]=finished", tenant.owner.key)).body.error.details).toMatchObject({
      field: "statusCategory",
    });
    expect((await get("/events?filter[in][changed]=colour", tenant.owner.key)).body.error.details).toMatchObject({ field: "changed" });
    expect((await get("/events?filter[eq][teamId]=not%20a%20prefix!", tenant.owner.key)).status).toBe(400);
  });

  it("with wait=, an event the filter leaves out does not end the wait; the next that passes does", async () => {
    const after = (await stream("")).at(-1).id;
    const started = Date.now();
    const waiting = get(`/events?after=${after}&wait=8&filter[eq][teamId]=ENG`, tenant.owner.key);
    await new Promise((r) => setTimeout(r, 1000));
    await post("/tasks", { teamId: ops.id, title: "not ENG" }, tenant.owner.key);
    await new Promise((r) => setTimeout(r, 1500));
    const task = (await post("/tasks", { teamId: eng.id, title: "ENG" }, tenant.owner.key)).body.task;
    const res = await waiting;
    expect(res.body.events.map((e: any) => e.resourceId)).toEqual([task.id]);
    expect(Date.now() - started).toBeGreaterThan(2500);
  });
});
