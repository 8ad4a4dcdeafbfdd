import { beforeAll, describe, expect, it } from "vitest";
import { get, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { walk } from "../../helpers/lists";

const PRIORITIES = ["NONE", "LOW", "MEDIUM", "HIGH", "URGENT"];
const STATUSES = ["BACKLOG", "TODO", "IN_PROGRESS", "IN_REVIEW", "DONE", "CANCELED"];
const TOTAL = 33;

type Task = Record<string, any>;
type Key = (task: Task) => string | number | null;

/** Expected order of a list sorted on `key`: nulls last in both directions, ties by id in the key's direction. */
function comparator(key: Key, dir: "asc" | "desc") {
  const sign = dir === "asc" ? 1 : -1;
  return (a: Task, b: Task) => {
    const x = key(a);
    const y = key(b);
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1;
    } else if (x !== y) {
      return x < y ? -sign : sign;
    }
    return a.id < b.id ? -sign : sign;
  };
}

const SORTS: [string, Key][] = [
  ["createdAt", (t) => t.createdAt],
  ["title", (t) => t.title],
  ["priority", (t) => PRIORITIES.indexOf(t.priority)],
  ["dueDate", (t) => t.dueDate],
  ["number", (t) => Number(t.reference.split("-")[1])],
  ["status", (t) => STATUSES.indexOf(t.status)],
];

describe("task lists", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ops: TeamFixture;
  let member: Member;
  let red: { id: string };
  let blue: { id: string };
  let all: Task[];

  beforeAll(async () => {
    t = await newTenant("Task Lists Co");
    eng = await newTeam(t, { prefix: "ENG" });
    ops = await newTeam(t, { prefix: "OPS" });
    member = await addMember(t, "MEMBER");
    await joinTeam(eng, member);
    red = (await post("/labels", { name: "Red", color: "#ff0000" }, t.owner.key)).body.label;
    blue = (await post("/labels", { name: "Blue", color: "#0000ff" }, t.owner.key)).body.label;
    const parent = (await post("/tasks", { title: "task 99 parent", teamId: eng.id }, t.owner.key)).body.task;
    // Titles repeat (ties), priorities and statuses cycle, every third due date is missing; created in small
    // parallel batches, so creation times tie too.
    const bodies = Array.from({ length: TOTAL - 1 }, (_, i) => ({
      title: `task ${String((i * 7) % 20).padStart(2, "0")}${i % 5 === 0 ? " Deploy" : ""}`,
      teamId: i % 4 === 0 ? ops.id : eng.id,
      priority: PRIORITIES[i % 5],
      status: STATUSES[i % 6],
      description: i % 3 === 0 ? `Notes about the CACHE_${i}` : "",
      ...(i % 3 !== 0 && { dueDate: `2026-0${(i % 9) + 1}-1${i % 10}` }),
      ...(i % 2 === 0 && { assigneeId: member.userId }),
      ...(i % 4 !== 0 && i % 3 === 1 && { parentId: parent.id }),
      labelIds: i % 3 === 0 ? [red.id] : i % 3 === 1 ? [red.id, blue.id] : [],
    }));
    for (let i = 0; i < bodies.length; i += 4) {
      const batch = await Promise.all(bodies.slice(i, i + 4).map((body) => post("/tasks", body, t.owner.key)));
      for (const res of batch) expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    all = await walk("/tasks", "tasks", t.owner.key, 50);
  });

  it("walks every page in default order (createdAt asc, id) and ends with nextCursor null", async () => {
    expect(all).toHaveLength(TOTAL);
    expect(all).toEqual([...all].sort(comparator((x) => x.createdAt, "asc")));
    const first = await get("/tasks?limit=7", t.owner.key);
    expect(first.body.tasks).toEqual(all.slice(0, 7));
    expect(first.body.pagination).toEqual({ limit: 7, nextCursor: expect.any(String) });
    const last = await get(`/tasks?limit=${TOTAL}`, t.owner.key);
    expect(last.body.pagination).toEqual({ limit: TOTAL, nextCursor: null });
  });

  for (const [name, key] of SORTS) {
    for (const dir of ["asc", "desc"] as const) {
      it(`walks every page sorted by ${name} ${dir}, each row exactly once and in order`, async () => {
        const items = await walk(`/tasks?sort[${name}]=${dir}`, "tasks", member.key, 7);
        expect(items.map((x) => x.id)).toEqual([...all].sort(comparator(key, dir)).map((x) => x.id));
      });
    }
  }

  it("sorts on two keys (status asc, then dueDate desc)", async () => {
    const items = await walk("/tasks?sort[status]=asc&sort[dueDate]=desc", "tasks", member.key, 7);
    const byDue = comparator((x) => x.dueDate, "desc");
    const expected = [...all].sort((a, b) => STATUSES.indexOf(a.status) - STATUSES.indexOf(b.status) || byDue(a, b));
    expect(items.map((x) => x.id)).toEqual(expected.map((x) => x.id));
  });

  for (const [name, dir] of [
    ["createdAt", "asc"],
    ["createdAt", "desc"],
    ["title", "asc"],
    ["priority", "desc"],
    ["dueDate", "asc"],
  ] as const) {
    it(`returns every existing row once while tasks are inserted between pages (${name} ${dir})`, async () => {
      const w = await newTenant();
      const team = await newTeam(w);
      for (let i = 0; i < 15; i++) {
        await post(
          "/tasks",
          { title: `seed ${i % 6}`, teamId: team.id, priority: PRIORITIES[i % 5], ...(i % 2 && { dueDate: `2026-03-1${i % 10}` }) },
          w.owner.key,
        );
      }
      const seeded = new Set((await get("/tasks?limit=250&fields=id", w.owner.key)).body.tasks.map((x: Task) => x.id));
      const seen: Task[] = [];
      let cursor: string | null = null;
      let inserted = 0;
      do {
        const res: any = await get(
          `/tasks?sort[${name}]=${dir}&limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
          w.owner.key,
        );
        expect(res.status).toBe(200);
        seen.push(...res.body.tasks);
        cursor = res.body.pagination.nextCursor;
        const extra = {
          title: `seed ${inserted % 7}`,
          teamId: team.id,
          priority: PRIORITIES[(inserted * 3) % 5],
          ...(inserted % 2 && { dueDate: `2026-03-0${(inserted % 9) + 1}` }),
        };
        expect((await post("/tasks", extra, w.owner.key)).status).toBe(201);
        inserted++;
      } while (cursor);
      const ids = seen.map((x) => x.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of seeded) expect(ids).toContain(id);
      const key = SORTS.find(([n]) => n === name)![1];
      expect(seen).toEqual([...seen].sort(comparator(key, dir)));
      if (name === "createdAt" && dir === "asc") expect(ids.length).toBeGreaterThan(seeded.size);
    });
  }

  describe("filters", () => {
    const dueOf = (x: Task) => x.dueDate as string | null;
    const cases: [string, (x: Task) => boolean][] = [
      ["filter[eq][status]=DONE", (x) => x.status === "DONE"],
      ["filter[neq][status]=DONE", (x) => x.status !== "DONE"],
      ["filter[in][status]=TODO&filter[in][status]=BACKLOG", (x) => ["TODO", "BACKLOG"].includes(x.status)],
      ["filter[gt][priority]=MEDIUM", (x) => PRIORITIES.indexOf(x.priority) > 2],
      ["filter[gte][priority]=MEDIUM", (x) => PRIORITIES.indexOf(x.priority) >= 2],
      ["filter[lt][priority]=LOW", (x) => x.priority === "NONE"],
      ["filter[lte][priority]=LOW", (x) => PRIORITIES.indexOf(x.priority) <= 1],
      ["filter[gt][dueDate]=2026-05-15", (x) => dueOf(x) !== null && dueOf(x)! > "2026-05-15"],
      [
        "filter[gte][dueDate]=2026-05-15&filter[lte][dueDate]=2026-07-19",
        (x) => dueOf(x) !== null && dueOf(x)! >= "2026-05-15" && dueOf(x)! <= "2026-07-19",
      ],
      ["filter[lt][dueDate]=2026-03-01", (x) => dueOf(x) !== null && dueOf(x)! < "2026-03-01"],
      ["filter[eq][dueDate]=null", (x) => x.dueDate === null],
      ["filter[neq][dueDate]=null", (x) => x.dueDate !== null],
      ["filter[neq][dueDate]=2026-02-11", (x) => x.dueDate !== "2026-02-11"],
      ["filter[contains][title]=DEPLOY", (x) => x.title.includes("Deploy")],
      ["filter[startsWith][title]=TASK 1", (x) => x.title.startsWith("task 1")],
      ["filter[contains][description]=cache_", (x) => x.description.includes("CACHE_")],
      ["filter[eq][parentId]=null", (x) => x.parentId === null],
      ["filter[neq][parentId]=null", (x) => x.parentId !== null],
      ["filter[eq][assigneeId]=null", (x) => x.assigneeId === null],
      ["filter[eq][assigneeId]=MEMBER", (x) => x.assigneeId === "MEMBER"],
      ["filter[in][assigneeId]=MEMBER&filter[in][assigneeId]=null", () => true],
      ["filter[eq][teamId]=OPS", (x) => x.teamId === "OPS"],
      ["filter[eq][projectId]=null", (x) => x.projectId === null],
      ["filter[eq][labelId]=BLUE", (x) => x.labels.some((l: any) => l.id === "BLUE")],
      ["filter[in][labelId]=BLUE&filter[in][labelId]=RED", (x) => x.labels.length > 0],
      ["filter[neq][labelId]=BLUE", (x) => !x.labels.some((l: any) => l.id === "BLUE")],
      ["filter[eq][labelId]=null", (x) => x.labels.length === 0],
      ["filter[eq][reference]=eng-3", (x) => x.reference === "ENG-3"],
      [
        "filter[in][reference]=ENG-2&filter[in][reference]=ops-1&filter[in][reference]=ZZ-1",
        (x) => ["ENG-2", "OPS-1"].includes(x.reference),
      ],
      [
        "filter[gt][number]=5&filter[lte][number]=9",
        (x) => Number(x.reference.split("-")[1]) > 5 && Number(x.reference.split("-")[1]) <= 9,
      ],
      ["filter[contains][title]=task&filter[eq][status]=TODO&filter[eq][teamId]=ENG", (x) => x.status === "TODO" && x.teamId === "ENG"],
    ];
    for (const [query, predicate] of cases) {
      it(`${query} matches exactly the expected tasks`, async () => {
        const ids: Record<string, string> = { MEMBER: member.userId, OPS: ops.id, ENG: eng.id, BLUE: blue.id, RED: red.id };
        const resolve = (s: string) => s.replace(/=(MEMBER|OPS|ENG|BLUE|RED)(?=&|$)/g, (_, k) => `=${ids[k]}`);
        const unresolve = (x: Task) => ({
          ...x,
          assigneeId: x.assigneeId === member.userId ? "MEMBER" : x.assigneeId,
          teamId: x.teamId === ops.id ? "OPS" : "ENG",
          labels: x.labels.map((l: any) => ({ id: l.id === blue.id ? "BLUE" : "RED" })),
        });
        const expected = all.filter((x) => predicate(unresolve(x))).map((x) => x.id);
        expect(expected.length, "a filter case must match something").toBeGreaterThan(0);
        const res = await get(`/tasks?limit=250&${resolve(query)}`, member.key);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.tasks.map((x: Task) => x.id)).toEqual(expected);
        expect(res.queries).toBeLessThanOrEqual(2);
      });
    }

    it("filters on createdAt as a date-time", async () => {
      const pivot = all[10].createdAt;
      const res = await get(`/tasks?limit=250&filter[gt][createdAt]=${encodeURIComponent(pivot)}`, member.key);
      expect(res.body.tasks.map((x: Task) => x.id)).toEqual(all.filter((x) => x.createdAt > pivot).map((x) => x.id));
    });

    it.each([
      ["an unknown filter field", "filter[eq][colour]=red"],
      ["an unknown operator", "filter[like][title]=x"],
      ["contains on an enum", "filter[contains][status]=TO"],
      ["a value outside the enum", "filter[eq][priority]=CRITICAL"],
      ["a bad date", "filter[gt][dueDate]=2026-02-30"],
      ["gt on labelId", "filter[gt][labelId]=x"],
      ["an unknown sort field", "sort[colour]=asc"],
      ["a sort on a filter-only field", "sort[labelId]=asc"],
      ["a bad sort direction", "sort[title]=up"],
      ["an unknown field", "fields=id,colour"],
      ["a tampered cursor", "cursor=abc.def"],
    ])("answers 400 for %s", async (_, query) => {
      const res = await get(`/tasks?${query}`, member.key);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("BAD_REQUEST");
    });

    it("rejects a cursor issued for another sort order, and a limit out of range (422)", async () => {
      const first = await get("/tasks?limit=3&sort[title]=asc", member.key);
      const cursor = encodeURIComponent(first.body.pagination.nextCursor);
      expect((await get(`/tasks?limit=3&sort[title]=desc&cursor=${cursor}`, member.key)).status).toBe(400);
      expect((await get(`/tasks?limit=3&sort[title]=asc&cursor=${cursor}`, member.key)).status).toBe(200);
      expect((await get("/tasks?limit=251", member.key)).status).toBe(422);
      expect((await get("/tasks?limit=0", member.key)).status).toBe(422);
    });
  });

  describe("fields", () => {
    const TYPES: Record<string, (v: unknown) => boolean> = {
      id: (v) => typeof v === "string",
      reference: (v) => typeof v === "string" && /^[A-Z][A-Z0-9]+-\d+$/.test(v),
      title: (v) => typeof v === "string",
      status: (v) => STATUSES.includes(v as string),
      statusCategory: (v) => ["backlog", "unstarted", "started", "completed", "canceled"].includes(v as string),
      startedAt: (v) => v === null || typeof v === "string",
      completedAt: (v) => v === null || typeof v === "string",
      canceledAt: (v) => v === null || typeof v === "string",
      priority: (v) => PRIORITIES.includes(v as string),
      description: (v) => typeof v === "string",
      dueDate: (v) => v === null || (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v)),
      estimate: (v) => v === null || Number.isInteger(v),
      timeTracking: (v: any) =>
        Object.keys(v).join() === "estimateSeconds,remainingSeconds,spentSeconds,totalSpentSeconds" && Number.isInteger(v.spentSeconds),
      teamId: (v) => typeof v === "string",
      team: (v: any) => typeof v === "object" && Object.keys(v).join() === "id,name,prefix",
      projectId: (v) => v === null || typeof v === "string",
      milestoneId: (v) => v === null || typeof v === "string",
      cycleId: (v) => v === null || typeof v === "string",
      parentId: (v) => v === null || typeof v === "string",
      assigneeId: (v) => v === null || typeof v === "string",
      delegateId: (v) => v === null || typeof v === "string",
      session: (v: any) => v === null || Object.keys(v).join() === "id,state",
      assignee: (v: any) => v === null || Object.keys(v).join() === "id,name,email,avatarUrl,humanId",
      labels: (v: any) => Array.isArray(v) && v.every((l) => Object.keys(l).join() === "id,name,color"),
      customFields: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
      blockedByCount: (v) => Number.isInteger(v),
      subtaskCounts: (v) => typeof v === "object" && v !== null && Number.isInteger((v as { total: unknown }).total),
      claim: (v) => v === null || (typeof v === "object" && typeof (v as { holderId: unknown }).holderId === "string"),
      createdAt: (v) => typeof v === "string" && !Number.isNaN(Date.parse(v as string)),
      updatedAt: (v) => typeof v === "string" && !Number.isNaN(Date.parse(v as string)),
    };

    it("returns every field with its type when none is selected", () => {
      for (const task of all) {
        expect(Object.keys(task)).toEqual(Object.keys(TYPES));
        for (const [name, ok] of Object.entries(TYPES)) expect(ok(task[name]), `${name}: ${JSON.stringify(task[name])}`).toBe(true);
      }
    });

    it("returns only the selected fields, nested ones narrowed, on every row", async () => {
      const res = await get("/tasks?limit=250&fields=id,title,team{prefix},assignee{name},labels{name}", member.key);
      expect(res.body.tasks).toHaveLength(TOTAL);
      res.body.tasks.forEach((task: Task, i: number) => {
        const full = all[i];
        expect(task).toEqual({
          id: full.id,
          title: full.title,
          team: { prefix: full.team.prefix },
          assignee: full.assignee && { name: full.assignee.name },
          labels: full.labels.map((l: any) => ({ name: l.name })),
        });
      });
    });

    it("keeps sorting and paging on fields that are not selected", async () => {
      const items = await walk("/tasks?fields=title&sort[priority]=desc", "tasks", member.key, 7);
      expect(items.map((x) => x.title)).toEqual(
        [...all].sort(comparator((x) => PRIORITIES.indexOf(x.priority), "desc")).map((x) => x.title),
      );
      for (const item of items) expect(Object.keys(item)).toEqual(["title"]);
    });
  });

  it("lists 50 tasks with team, assignee and labels on every row in at most 2 queries", async () => {
    const res = await get(
      "/tasks?limit=50&filter[neq][labelId]=null&filter[eq][assigneeId]=MEMBER".replace("MEMBER", member.userId),
      member.key,
    );
    expect(res.body.tasks.length).toBeGreaterThan(5);
    for (const task of res.body.tasks) {
      expect(task.labels.length).toBeGreaterThan(0);
      expect(task.assignee.id).toBe(member.userId);
    }
    const page = await get("/tasks?limit=50", member.key);
    expect(page.body.tasks).toHaveLength(TOTAL);
    expect(page.queries).toBeLessThanOrEqual(2);
    expect(res.queries).toBeLessThanOrEqual(2);
  });
});
