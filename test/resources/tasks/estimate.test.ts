// `estimate` (points, nullable) was added to tasks as one entry of the task's field map (src/resources/tasks/record.ts), one column
// (drizzle/schema.ts) and its migration: this proves it works end to end from those alone — create, update, filter, sort,
// fields, export and import, and the document (the typed clients are generated from it: test/client/typed-client.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { get, patch, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { servedOpenApi } from "../../helpers/openapi-conformance";

describe("task estimate", () => {
  let t: Tenant;
  let team: TeamFixture;
  const create = async (title: string, estimate?: number | null) => {
    const res = await post("/tasks", { teamId: team.id, title, ...(estimate !== undefined && { estimate }) }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task;
  };

  beforeAll(async () => {
    t = await newTenant("Estimates");
    team = await newTeam(t);
  });

  it("is set on create (null by default), changed and cleared on update, and checked (a whole number of points, 422)", async () => {
    expect((await create("Unestimated")).estimate).toBeNull();
    const task = await create("Estimated", 5);
    expect(task.estimate).toBe(5);
    expect((await patch(`/tasks/${task.reference}`, { estimate: 8 }, t.owner.key)).body.task.estimate).toBe(8);
    expect((await get(`/tasks/${task.id}`, t.owner.key)).body.task.estimate).toBe(8);
    expect((await patch(`/tasks/${task.id}`, { estimate: null }, t.owner.key)).body.task.estimate).toBeNull();
    for (const estimate of [-1, 1.5, "3", 1_000_001]) {
      const res = await post("/tasks", { teamId: team.id, title: "bad", estimate }, t.owner.key);
      expect(res.status, String(estimate)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(["estimate"]);
    }
  });

  it("filters, sorts (nulls last) and is selected by `fields`", async () => {
    const other = await newTeam(t);
    const make = (title: string, estimate: number | null) =>
      post("/tasks", { teamId: other.id, title, estimate }, t.owner.key).then((r) => r.body.task.reference);
    const [small, big, none, mid] = [await make("small", 1), await make("big", 13), await make("none", null), await make("mid", 5)];
    const list = async (query: string) =>
      (await get(`/tasks?filter[eq][teamId]=${other.id}&${query}&fields=reference,estimate`, t.owner.key)).body.tasks;
    expect((await list("filter[gte][estimate]=5&sort[estimate]=asc")).map((x: any) => x.reference)).toEqual([mid, big]);
    expect((await list("filter[eq][estimate]=null")).map((x: any) => x.reference)).toEqual([none]);
    const sorted = await list("sort[estimate]=desc");
    expect(sorted.map((x: any) => x.reference)).toEqual([big, mid, small, none]);
    expect(sorted[0]).toEqual({ reference: big, estimate: 13 });
    // A page boundary inside the sort holds (the cursor carries the estimate).
    const first = await get(`/tasks?filter[eq][teamId]=${other.id}&sort[estimate]=desc&limit=2`, t.owner.key);
    const next = await get(
      `/tasks?filter[eq][teamId]=${other.id}&sort[estimate]=desc&limit=2&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`,
      t.owner.key,
    );
    expect([...first.body.tasks, ...next.body.tasks].map((x: any) => x.reference)).toEqual([big, mid, small, none]);
    expect((await get("/tasks?filter[gt][estimate]=many", t.owner.key)).status).toBe(400);
  });

  it("goes out in an export and back in through an import", async () => {
    const source = await newTeam(t);
    await post("/tasks", { teamId: source.id, title: "exported", estimate: 21 }, t.owner.key);
    const doc = (await get(`/teams/${source.id}/export`, t.owner.key)).body;
    expect(doc.data.tasks[0]).toMatchObject({ title: "exported", estimate: 21 });
    const copy = await newTeam(t);
    expect((await post(`/teams/${copy.id}/import`, { data: doc, update: false }, t.owner.key)).status).toBe(200);
    expect((await get(`/tasks/${copy.prefix}-1?fields=title,estimate`, t.owner.key)).body.task).toEqual({
      title: "exported",
      estimate: 21,
    });
    // An import checks it as a create does.
    doc.data.tasks[0].estimate = -3;
    const refused = await post(`/teams/${copy.id}/import`, { data: doc, update: false }, t.owner.key);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["data.data.tasks.0.estimate"]);
  });

  it("is in the document: the Task answer, the create and update bodies, the list's filters and sort, the export", async () => {
    const { doc } = await servedOpenApi();
    const schemas = doc.components.schemas;
    expect(schemas.Task.properties.estimate).toMatchObject({ description: "Points; null when not estimated" });
    expect(schemas.Task.required).toContain("estimate");
    for (const body of ["TaskCreate", "TaskUpdate", "ExportTask"]) expect(schemas[body].properties.estimate, body).toBeDefined();
    const names = doc.paths["/tasks"].get.parameters.map((p: { name?: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining(["filter[gte][estimate]", "filter[eq][estimate]", "sort[estimate]"]));
  });
});
