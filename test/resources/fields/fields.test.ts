import { beforeAll, describe, expect, it } from "vitest";
import { api, del, expectAtomicWrite, get, patch, post, uniqueEmail } from "../../helpers/api";
import { addMember, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { listOrder, walk } from "../../helpers/lists";
import { mailTo } from "../../helpers/signup";

const BAD_KEY = "pmk_not-a-key-0000000000000000000000000000000";
const TASK_BUILT_INS = [
  "title",
  "status",
  "priority",
  "description",
  "dueDate",
  "estimate",
  "projectId",
  "milestoneId",
  "cycleId",
  "parentId",
  "assigneeId",
  "labels",
];
const PROJECT_BUILT_INS = ["name", "status", "description", "leadId", "startDate", "targetDate"];
const MILESTONE_BUILT_INS = ["name", "description", "targetDate", "status"];

/** Invites a colleague as `by` (workspace MEMBER, team MEMBER) and redeems the emailed token. */
async function colleagueByInvite(by: string, teamId: string) {
  const email = uniqueEmail("colleague");
  const sent = await post("/invites", { email, teamIds: [teamId], teamRole: "MEMBER" }, by);
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  const token = /Invite token: (\S+)/.exec((await mailTo(email)).text)![1];
  const redeemed = await post("/invites/redeem", { token, name: "Colleague" });
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(201);
  const key = redeemed.body.data.api_token as string;
  const me = (await get("/me", key)).body;
  expect(me.role).toBe("MEMBER");
  return { key, userId: me.user.id as string };
}

/** Walks GET /fields page by page: built-ins come on top of `limit` custom fields, on the first page only. */
async function walkFields(path: string, apiKey: string, limit: number): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const res: { status: number; body: any } = await get(
      `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      apiKey,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const builtIns = res.body.fields.filter((f: any) => f.isBuiltIn === true);
    if (page > 0) expect(builtIns).toEqual([]);
    expect(res.body.fields.length - builtIns.length).toBeLessThanOrEqual(limit);
    items.push(...res.body.fields);
    cursor = res.body.pagination.nextCursor;
    if (cursor === null) return items;
  }
  throw new Error("too many pages");
}

describe("custom fields", () => {
  let t: Tenant;
  let team: TeamFixture;
  let admin: Member;
  let colleague: { key: string; userId: string };
  const define = async (body: Record<string, unknown>, key = t.owner.key) => {
    const res = await post("/fields", body, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.field;
  };
  const newTask = async (body: Record<string, unknown>) => {
    const res = await post("/tasks", { title: "t", teamId: team.id, ...body }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task;
  };

  beforeAll(async () => {
    t = await newTenant("Fields Co");
    team = await newTeam(t);
    admin = await addMember(t, "ADMIN");
    colleague = await colleagueByInvite(t.owner.key, team.id);
  });

  describe("definitions", () => {
    it("creates a field: 201, Location, the Field shape; reads it back in one query", async () => {
      const res = await post(
        "/fields",
        { key: "severity", name: "Severity", type: "select", recordTypes: ["task"], metadata: { options: ["low", "high"] } },
        admin.key,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const field = res.body.field;
      expect(res.headers.get("location")).toBe(`/fields/${field.id}`);
      expect(field.id).toMatch(/^fdef_[0-9a-z]{26}$/);
      expect(field).toEqual({
        id: field.id,
        key: "severity",
        name: "Severity",
        description: null,
        type: "select",
        presentation: null,
        metadata: { options: ["low", "high"] },
        recordTypes: ["task"],
        isBuiltIn: false,
        createdAt: expect.any(String),
        updatedAt: field.createdAt,
      });
      expectAtomicWrite(res);
      const read = await get(`/fields/${field.id}`, colleague.key);
      expect(read.status).toBe(200);
      expect(read.body.field).toEqual(field);
      expect(read.queries).toBe(1);
      expect((await get(`/fields/${field.id}?fields=key,type`, colleague.key)).body.field).toEqual({ key: "severity", type: "select" });
    });

    it("refuses bad definitions with 422 at the field", async () => {
      const ok = { key: "ok_key", name: "Ok", type: "text", recordTypes: ["task"] };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...ok, key: "Upper" }, "key"],
        [{ ...ok, key: "1st" }, "key"],
        [{ ...ok, key: `a${"b".repeat(63)}` }, "key"],
        [{ ...ok, key: "has-dash" }, "key"],
        [{ ...ok, type: "relation" }, "type"],
        [{ ...ok, type: "money" }, "type"],
        [{ ...ok, recordTypes: [] }, "recordTypes"],
        [{ ...ok, recordTypes: ["team"] }, "recordTypes.0"],
        [{ ...ok, recordTypes: ["task", "task"] }, "recordTypes"],
        [{ ...ok, name: " " }, "name"],
        [{ ...ok, type: "select" }, "metadata.options"],
        [{ ...ok, type: "multiselect", metadata: {} }, "metadata.options"],
        [{ ...ok, type: "select", metadata: { options: [] } }, "metadata.options"],
        [{ ...ok, type: "select", metadata: { options: ["a", "a"] } }, "metadata.options"],
        [{ ...ok, metadata: { options: ["a"] } }, "metadata.options"],
        [{ ...ok, metadata: { colour: "red" } }, "metadata.colour"],
        [{ ...ok, extra: 1 }, "extra"],
      ];
      for (const [body, at] of cases) {
        const res = await post("/fields", body, t.owner.key);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(Object.keys(res.body.errors), JSON.stringify(res.body)).toContain(at);
      }
      const { key: _key, ...noKey } = ok;
      expect((await post("/fields", noKey, t.owner.key)).status).toBe(422);
    });

    it("keeps keys unique per workspace (409), not across workspaces", async () => {
      await define({ key: "dupe", name: "Dupe", type: "text", recordTypes: ["task"] });
      const again = await post("/fields", { key: "dupe", name: "Other", type: "number", recordTypes: ["project"] }, admin.key);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("CONFLICT");
      const other = await newTenant();
      expect((await post("/fields", { key: "dupe", name: "Dupe", type: "text", recordTypes: ["task"] }, other.owner.key)).status).toBe(201);
    });

    it("updates name, description, presentation and options; key and type are immutable (400); one transaction", async () => {
      const field = await define({ key: "stage", name: "Stage", type: "select", recordTypes: ["task"], metadata: { options: ["a", "b"] } });
      const res = await patch(
        `/fields/${field.id}`,
        { name: "Phase", description: "Where it is", presentation: { icon: "flag" }, metadata: { options: ["a", "b", "c"] } },
        admin.key,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.field).toMatchObject({
        key: "stage",
        name: "Phase",
        description: "Where it is",
        presentation: { icon: "flag" },
        metadata: { options: ["a", "b", "c"] },
      });
      expectAtomicWrite(res);
      for (const body of [{ key: "phase" }, { type: "text" }, { key: "stage", name: "x" }, { type: "select" }]) {
        const refused = await patch(`/fields/${field.id}`, body, admin.key);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.error.code).toBe("BAD_REQUEST");
      }
      expect((await patch(`/fields/${field.id}`, { bogus: 1 }, admin.key)).status).toBe(422);
      expect((await patch(`/fields/${field.id}`, { metadata: { options: ["a", "a"] } }, admin.key)).status).toBe(422);
      expect((await get(`/fields/${field.id}`, t.owner.key)).body.field.name).toBe("Phase");
      const text = await define({ key: "plain", name: "Plain", type: "text", recordTypes: ["task"] });
      const options = await patch(`/fields/${text.id}`, { metadata: { options: ["x"] } }, admin.key);
      expect(options.status).toBe(422);
      expect(options.body.errors["metadata.options"]).toBeDefined();
    });

    it("refuses to remove an option that a record holds (409), allows removing unused ones", async () => {
      const field = await define({
        key: "tier",
        name: "Tier",
        type: "select",
        recordTypes: ["task"],
        metadata: { options: ["gold", "silver", "bronze"] },
      });
      const tags = await define({
        key: "tags",
        name: "Tags",
        type: "multiselect",
        recordTypes: ["task"],
        metadata: { options: ["x", "y"] },
      });
      await newTask({ customFields: { tier: "gold", tags: ["y"] } });
      const used = await patch(`/fields/${field.id}`, { metadata: { options: ["silver", "bronze"] } }, admin.key);
      expect(used.status).toBe(409);
      expect(used.body.error).toMatchObject({ code: "CONFLICT", details: { options: ["gold"], records: 1 } });
      expect((await patch(`/fields/${tags.id}`, { metadata: { options: ["x"] } }, admin.key)).status).toBe(409);
      const unused = await patch(`/fields/${field.id}`, { metadata: { options: ["gold", "silver"] } }, admin.key);
      expect(unused.status).toBe(200);
      expect(unused.body.field.metadata.options).toEqual(["gold", "silver"]);
      const refused = await post("/tasks", { title: "b", teamId: team.id, customFields: { tier: "bronze" } }, t.owner.key);
      expect(refused.status).toBe(422);
      expect(refused.body.errors["customFields.tier"]).toBeDefined();
    });

    it("dropping a record type removes the values from records of that type", async () => {
      const field = await define({ key: "budget_code", name: "Budget code", type: "text", recordTypes: ["task", "project"] });
      const task = await newTask({ customFields: { budget_code: "B-1" } });
      const project = (await post("/projects", { name: "P", teamId: team.id, customFields: { budget_code: "B-2" } }, t.owner.key)).body
        .project;
      const res = await patch(`/fields/${field.id}`, { recordTypes: ["project"] }, t.owner.key);
      expect(res.status).toBe(200);
      expectAtomicWrite(res);
      expect((await get(`/tasks/${task.id}`, t.owner.key)).body.task.customFields).toEqual({});
      expect((await get(`/projects/${project.id}`, t.owner.key)).body.project.customFields).toEqual({ budget_code: "B-2" });
      expect((await post("/tasks", { title: "x", teamId: team.id, customFields: { budget_code: "B-3" } }, t.owner.key)).status).toBe(422);
    });

    it("deletes a field with its values on tasks, projects and milestones, in one transaction", async () => {
      const field = await define({ key: "owner_note", name: "Owner note", type: "text", recordTypes: ["task", "project", "milestone"] });
      await define({ key: "kept", name: "Kept", type: "number", recordTypes: ["task"] });
      const task = await newTask({ customFields: { owner_note: "t", kept: 1 } });
      const project = (await post("/projects", { name: "P", teamId: team.id, customFields: { owner_note: "p" } }, t.owner.key)).body
        .project;
      const milestone = (await post("/milestones", { projectId: project.id, name: "M", customFields: { owner_note: "m" } }, t.owner.key))
        .body.milestone;
      expect((await get(`/tasks/${task.id}`, t.owner.key)).body.task.customFields).toEqual({ owner_note: "t", kept: 1 });
      const res = await del(`/fields/${field.id}`, admin.key);
      expect(res.status).toBe(204);
      expectAtomicWrite(res);
      expect((await get(`/tasks/${task.id}`, t.owner.key)).body.task.customFields).toEqual({ kept: 1 });
      expect((await get(`/projects/${project.id}`, t.owner.key)).body.project.customFields).toEqual({});
      expect((await get(`/milestones/${milestone.id}`, t.owner.key)).body.milestone.customFields).toEqual({});
      expect((await get(`/fields/${field.id}`, t.owner.key)).status).toBe(404);
      expect((await del(`/fields/${field.id}`, t.owner.key)).status).toBe(404);
      // The key is free again, and a new definition starts without values.
      await define({ key: "owner_note", name: "Again", type: "number", recordTypes: ["task"] });
      expect((await get(`/tasks/${task.id}`, t.owner.key)).body.task.customFields).toEqual({ kept: 1 });
    });

    it("lets members read but not write (403), whoever joined by invite", async () => {
      const field = await define({ key: "readable", name: "Readable", type: "text", recordTypes: ["task"] });
      expect((await get(`/fields/${field.id}`, colleague.key)).status).toBe(200);
      expect((await get("/fields", colleague.key)).status).toBe(200);
      const k = colleague.key;
      for (const res of [
        await post("/fields", { key: "mine", name: "Mine", type: "text", recordTypes: ["task"] }, k),
        await patch(`/fields/${field.id}`, { name: "Hacked" }, k),
        await del(`/fields/${field.id}`, k),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      expect((await get(`/fields/${field.id}`, k)).body.field.name).toBe("Readable");
      // Members still write values of the fields.
      const task = (await post("/tasks", { title: "c", teamId: team.id, customFields: { readable: "yes" } }, k)).body.task;
      expect(task.customFields).toEqual({ readable: "yes" });
    });

    it("hides another workspace's fields (404) and never applies its definitions", async () => {
      const other = await newTenant();
      const foreign = await define({ key: "foreign_only", name: "Foreign", type: "text", recordTypes: ["task"] }, other.owner.key);
      expect((await get(`/fields/${foreign.id}`, t.owner.key)).status).toBe(404);
      expect((await patch(`/fields/${foreign.id}`, { name: "Hacked" }, t.owner.key)).status).toBe(404);
      expect((await del(`/fields/${foreign.id}`, t.owner.key)).status).toBe(404);
      expect((await get(`/fields/${foreign.id}`, other.owner.key)).body.field.name).toBe("Foreign");
      const res = await post("/tasks", { title: "x", teamId: team.id, customFields: { foreign_only: "v" } }, t.owner.key);
      expect(res.status).toBe(422);
      expect(res.body.errors["customFields.foreign_only"]).toBeDefined();
      expect((await get("/tasks?filter[eq][customFields.foreign_only]=v", t.owner.key)).status).toBe(400);
      const keys = (await walkFields("/fields?filter[eq][isBuiltIn]=false", t.owner.key, 50)).map((f) => f.key);
      expect(keys).not.toContain("foreign_only");
    });
  });

  describe("GET /fields", () => {
    let w: Tenant;
    beforeAll(async () => {
      w = await newTenant("Fields list");
      for (let i = 0; i < 7; i++) {
        const recordTypes = i % 3 === 0 ? ["task", "project"] : i % 3 === 1 ? ["project"] : ["milestone"];
        await define({ key: `f${i}`, name: `F${i}`, type: i % 2 ? "number" : "text", recordTypes }, w.owner.key);
      }
    });

    it("starts the first page with the built-ins (no id, not counted in limit), then pages the custom fields", async () => {
      const first = await get("/fields?limit=3", w.owner.key);
      expect(first.status).toBe(200);
      expect(first.queries).toBe(1);
      const builtIns = first.body.fields.filter((f: any) => f.isBuiltIn);
      expect(builtIns.map((f: any) => `${f.recordTypes[0]}.${f.key}`)).toEqual([
        ...TASK_BUILT_INS.map((k) => `task.${k}`),
        ...PROJECT_BUILT_INS.map((k) => `project.${k}`),
        ...MILESTONE_BUILT_INS.map((k) => `milestone.${k}`),
      ]);
      for (const f of builtIns) {
        expect(f.id).toBeUndefined();
        expect(f.createdAt).toBeUndefined();
      }
      expect(builtIns.find((f: any) => f.key === "priority").metadata.options).toEqual(["NONE", "LOW", "MEDIUM", "HIGH", "URGENT"]);
      expect(first.body.fields.slice(builtIns.length).map((f: any) => f.key)).toEqual(["f0", "f1", "f2"]);
      const all = await walkFields("/fields", w.owner.key, 3);
      expect(all.filter((f) => !f.isBuiltIn).map((f) => f.key)).toEqual(["f0", "f1", "f2", "f3", "f4", "f5", "f6"]);
      expect(all.filter((f) => f.isBuiltIn)).toHaveLength(builtIns.length);
    });

    it("filters by recordType (both parts), sorts and selects the custom part", async () => {
      const tasksOnly = await walkFields("/fields?filter[eq][recordType]=task", w.owner.key, 2);
      expect(tasksOnly.filter((f) => f.isBuiltIn).map((f) => f.key)).toEqual(TASK_BUILT_INS);
      expect(tasksOnly.filter((f) => !f.isBuiltIn).map((f) => f.key)).toEqual(["f0", "f3", "f6"]);
      const some = await walkFields(
        "/fields?filter[in][recordType]=milestone&filter[in][recordType]=task&filter[eq][isBuiltIn]=false",
        w.owner.key,
        2,
      );
      expect(some.map((f) => f.key)).toEqual(["f0", "f2", "f3", "f5", "f6"]);
      const builtInOnly = (await get("/fields?filter[eq][isBuiltIn]=true&filter[eq][recordType]=milestone", w.owner.key)).body.fields;
      expect(builtInOnly.map((f: any) => f.key)).toEqual(MILESTONE_BUILT_INS);
      const sorted = await walkFields("/fields?sort[key]=desc&filter[eq][type]=number&fields=key,type", w.owner.key, 2);
      expect(sorted).toEqual(["f5", "f3", "f1"].map((key) => ({ key, type: "number" })));
      expect((await get("/fields?filter[eq][recordType]=team", w.owner.key)).status).toBe(400);
      expect((await get("/fields?filter[gt][recordType]=task", w.owner.key)).status).toBe(400);
      expect((await get("/fields?sort[recordType]=asc", w.owner.key)).status).toBe(400);
      expect((await get("/fields?fields=nope", w.owner.key)).status).toBe(400);
      expect((await get("/fields?limit=0", w.owner.key)).status).toBe(422);
    });

    it("is 401 with a bad key, even where only built-ins would show", async () => {
      const res = await get("/fields", BAD_KEY);
      expect(res.status).toBe(401);
      const empty = await newTenant();
      const own = await get("/fields", empty.owner.key);
      expect(own.status).toBe(200);
      expect(own.body.fields.every((f: any) => f.isBuiltIn)).toBe(true);
      expect(own.queries).toBe(2);
    });
  });

  describe("values", () => {
    let outsider: Member;
    beforeAll(async () => {
      const other = await newTenant();
      outsider = other.owner;
      const types = ["text", "number", "boolean", "date", "url", "user"];
      for (const type of types) await define({ key: `v_${type}`, name: type, type, recordTypes: ["task", "milestone"] });
      await define({ key: "v_select", name: "select", type: "select", recordTypes: ["task"], metadata: { options: ["a", "b"] } });
      await define({ key: "v_multi", name: "multi", type: "multiselect", recordTypes: ["task"], metadata: { options: ["a", "b"] } });
      await define({ key: "v_project", name: "project only", type: "text", recordTypes: ["project"] });
    });

    it("accepts a well-typed value of each type and reads it back", async () => {
      const values = {
        v_text: "hello",
        v_number: 2.5,
        v_boolean: false,
        v_date: "2024-02-29",
        v_url: "https://example.com/x",
        v_user: colleague.userId,
        v_select: "b",
        v_multi: ["a", "b"],
      };
      const task = await newTask({ customFields: values });
      expect(task.customFields).toEqual(values);
      expect((await get(`/tasks/${task.id}`, t.owner.key)).body.task.customFields).toEqual(values);
      const cleared = await patch(`/tasks/${task.id}`, { customFields: { v_text: null, v_number: 3 } }, t.owner.key);
      expect(cleared.body.task.customFields).toEqual({ ...values, v_text: undefined, v_number: 3 });
    });

    it("refuses a mistyped value, an unknown key or a key of another record type with 422 at customFields.<key>", async () => {
      const cases: Array<[string, unknown]> = [
        ["v_text", 5],
        ["v_number", "5"],
        ["v_number", [1]],
        ["v_boolean", "true"],
        ["v_date", "2024-02-30"],
        ["v_date", "2024-2-1"],
        ["v_url", "ftp://example.com"],
        ["v_url", "not a url"],
        ["v_user", outsider.userId],
        ["v_user", 42],
        ["v_select", "c"],
        ["v_select", ["a"]],
        ["v_multi", "a"],
        ["v_multi", ["a", "c"]],
        ["v_multi", ["a", "a"]],
        ["v_project", "x"],
        ["nope", 1],
      ];
      for (const [key, value] of cases) {
        const res = await post("/tasks", { title: "bad", teamId: team.id, customFields: { [key]: value } }, t.owner.key);
        expect(res.status, `${key}=${JSON.stringify(value)}`).toBe(422);
        expect(Object.keys(res.body.errors)).toEqual([`customFields.${key}`]);
      }
      const project = (await post("/projects", { name: "V", teamId: team.id }, t.owner.key)).body.project;
      const milestone = await post("/milestones", { projectId: project.id, name: "M", customFields: { v_select: "a" } }, t.owner.key);
      expect(milestone.status).toBe(422);
      const good = await post("/milestones", { projectId: project.id, name: "M", customFields: { v_number: 1 } }, t.owner.key);
      expect(good.status).toBe(201);
      const bad = await patch(`/milestones/${good.body.milestone.id}`, { customFields: { v_date: "tomorrow" } }, t.owner.key);
      expect(bad.status).toBe(422);
    });
  });

  describe("task lists by custom field", () => {
    let w: Tenant;
    let wTeam: TeamFixture;
    let all: any[];
    const TOTAL = 17;
    beforeAll(async () => {
      w = await newTenant("Custom lists");
      wTeam = await newTeam(w);
      const field = (body: Record<string, unknown>) => define(body, w.owner.key);
      await field({ key: "points", name: "Points", type: "number", recordTypes: ["task"] });
      await field({ key: "severity", name: "Severity", type: "select", recordTypes: ["task"], metadata: { options: ["low", "high"] } });
      await field({ key: "due", name: "Due", type: "date", recordTypes: ["task"] });
      await field({ key: "flag", name: "Flag", type: "boolean", recordTypes: ["task"] });
      await field({ key: "tags", name: "Tags", type: "multiselect", recordTypes: ["task"], metadata: { options: ["ui", "api"] } });
      await field({ key: "budget", name: "Budget", type: "number", recordTypes: ["project"] });
      for (let i = 0; i < TOTAL; i++) {
        const customFields: Record<string, unknown> = {};
        if (i % 4 !== 3) customFields.points = [5, 1.5, 13, 2, 8][i % 5]; // repeats (ties) and gaps (nulls)
        if (i % 3 !== 2) customFields.severity = i % 2 ? "high" : "low";
        if (i % 2 === 0) customFields.due = `2026-0${(i % 9) + 1}-1${i % 10}`;
        customFields.flag = i % 5 === 0;
        if (i % 3 === 0) customFields.tags = i % 2 ? ["ui"] : ["ui", "api"];
        const res = await post("/tasks", { title: `c${i}`, teamId: wTeam.id, customFields }, w.owner.key);
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
      all = await walk("/tasks", "tasks", w.owner.key, 50);
      expect(all).toHaveLength(TOTAL);
    });

    const value = (name: string) => (task: any) => task.customFields[name] ?? null;
    const keys = (tasks: any[]) => tasks.map((task) => task.id);

    it.each([
      ["points", "desc"],
      ["points", "asc"],
      ["severity", "asc"],
      ["due", "desc"],
      ["flag", "asc"],
    ] as const)("sorts by customFields.%s %s across pages (nulls last), every task once", async (name, dir) => {
      const sorted = await walk(`/tasks?sort[customFields.${name}]=${dir}`, "tasks", w.owner.key, 4);
      const expected = [...all].sort(listOrder([[`customFields.${name}`, dir]], { [`customFields.${name}`]: value(name) }));
      expect(keys(sorted)).toEqual(keys(expected));
    });

    it("combines a custom sort with a built-in one and with filters, across pages", async () => {
      const path = "/tasks?filter[neq][customFields.severity]=low&sort[customFields.points]=asc&sort[createdAt]=desc";
      const sorted = await walk(path, "tasks", w.owner.key, 3);
      const expected = all
        .filter((task) => task.customFields.severity !== "low")
        .sort(
          listOrder(
            [
              ["customFields.points", "asc"],
              ["createdAt", "desc"],
            ],
            { "customFields.points": value("points") },
          ),
        );
      expect(keys(sorted)).toEqual(keys(expected));
    });

    it.each([
      ["filter[eq][customFields.severity]=high", (x: any) => x.customFields.severity === "high"],
      ["filter[eq][customFields.severity]=null", (x: any) => x.customFields.severity === undefined],
      ["filter[neq][customFields.severity]=high", (x: any) => x.customFields.severity !== "high"],
      ["filter[in][customFields.points]=2&filter[in][customFields.points]=13", (x: any) => [2, 13].includes(x.customFields.points)],
      ["filter[eq][customFields.points]=1.5", (x: any) => x.customFields.points === 1.5],
      ["filter[gt][customFields.points]=4", (x: any) => x.customFields.points > 4],
      ["filter[lte][customFields.due]=2026-05-15", (x: any) => x.customFields.due !== undefined && x.customFields.due <= "2026-05-15"],
      ["filter[eq][customFields.flag]=true", (x: any) => x.customFields.flag === true],
      ["filter[eq][customFields.tags]=api", (x: any) => x.customFields.tags?.includes("api")],
      ["filter[neq][customFields.tags]=api", (x: any) => !x.customFields.tags?.includes("api")],
      ["filter[eq][customFields.tags]=null", (x: any) => x.customFields.tags === undefined],
    ] as const)("filters %s", async (query, keep) => {
      const found = await walk(`/tasks?${query}`, "tasks", w.owner.key, 4);
      expect(keys(found)).toEqual(keys(all.filter(keep)));
    });

    it("answers unknown keys, keys of other record types, bad values and unsortable fields with 400", async () => {
      for (const query of [
        "filter[eq][customFields.nope]=1",
        "filter[eq][customFields.budget]=1",
        "sort[customFields.budget]=asc",
        "filter[eq][customFields.points]=many",
        "filter[eq][customFields.severity]=medium",
        "filter[eq][customFields.due]=2026-02-30",
        "filter[contains][customFields.points]=1",
        "sort[customFields.tags]=asc",
        "filter[eq][customFields]=x",
      ]) {
        const res = await get(`/tasks?${query}`, w.owner.key);
        expect(res.status, query).toBe(400);
        expect(res.body.error.code).toBe("BAD_REQUEST");
      }
    });

    it("keeps cursors bound to the sort: a custom-sort cursor does not serve another sort", async () => {
      const first = await get("/tasks?sort[customFields.points]=desc&limit=2", w.owner.key);
      const cursor = encodeURIComponent(first.body.pagination.nextCursor);
      expect((await get(`/tasks?sort[customFields.points]=asc&limit=2&cursor=${cursor}`, w.owner.key)).status).toBe(400);
      expect((await get(`/tasks?sort[customFields.points]=desc&limit=2&cursor=${cursor}`, w.owner.key)).status).toBe(200);
    });

    it("costs one lookup of the definitions plus the page query; a bad key is 401", async () => {
      const res = await get("/tasks?filter[eq][customFields.severity]=high&sort[customFields.points]=desc&limit=250", w.owner.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBe(2);
      expect((await get("/tasks?limit=250", w.owner.key)).queries).toBe(1);
      const bad = await get("/tasks?filter[eq][customFields.severity]=high", BAD_KEY);
      expect(bad.status).toBe(401);
    });
  });

  it("query budgets: reads are one query, writes one transaction", async () => {
    const field = await define({ key: "budgeted", name: "Budgeted", type: "text", recordTypes: ["task"] });
    expect((await get(`/fields/${field.id}`, t.owner.key)).queries).toBe(1);
    expect((await get("/fields", t.owner.key)).queries).toBe(1);
    const created = await api("POST", "/fields", {
      key: t.owner.key,
      body: { key: "budgeted2", name: "B", type: "text", recordTypes: ["task"] },
    });
    expectAtomicWrite(created);
    expectAtomicWrite(await patch(`/fields/${field.id}`, { name: "B2" }, t.owner.key));
    expectAtomicWrite(await del(`/fields/${field.id}`, t.owner.key));
    expect((await get(`/fields/${field.id}`, BAD_KEY)).status).toBe(401);
  });
});
