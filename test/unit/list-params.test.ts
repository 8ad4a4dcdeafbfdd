import { inArray, type SQL, sql } from "drizzle-orm";
import { boolean, date, integer, PgDialect, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { AppError, ValidationError } from "../../src/core/errors";
import { type ListSpec, MAX_FILTER_VALUE_LENGTH, MAX_FILTERS, MAX_SORT_KEYS, parseLimit, parseListParams } from "../../src/store/list";

const tasks = pgTable("tasks", {
  id: text("id").primaryKey(),
  title: text("title").notNull(),
  status: text("status").notNull(),
  priority: text("priority").notNull(),
  estimate: integer("estimate"),
  archived: boolean("archived").notNull(),
  dueDate: date("due_date"),
  assigneeId: text("assignee_id"),
  createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
});

const PRIORITIES = ["urgent", "high", "medium", "low"] as const;
const priorityRank = sql`(case ${tasks.priority} when 'urgent' then 0 when 'high' then 1 when 'medium' then 2 else 3 end)`;

const spec: ListSpec = {
  resource: "tasks",
  id: tasks.id,
  fields: {
    title: { expr: tasks.title, kind: "string" },
    status: { expr: tasks.status, kind: "enum", values: ["TODO", "IN_PROGRESS", "DONE"] },
    priority: {
      expr: priorityRank,
      kind: "enum",
      values: PRIORITIES,
      customFilter: (op, values) => sql`${inArray(tasks.priority, values)} /* ${sql.raw(op)} */`,
      cursorValue: (item) => PRIORITIES.indexOf(item.priority as (typeof PRIORITIES)[number]),
    },
    estimate: { expr: tasks.estimate, kind: "number", nullable: true },
    archived: { expr: tasks.archived, kind: "boolean" },
    dueDate: { expr: tasks.dueDate, kind: "date", nullable: true },
    assigneeId: { expr: tasks.assigneeId, kind: "id", nullable: true },
    createdAt: { expr: tasks.createdAt, kind: "datetime" },
    secretNote: { expr: tasks.title, kind: "string", filter: false, sort: false },
  },
  shape: { id: true, title: true, status: true, team: { prefix: true } },
};

const key = { scope: "ws_1", secret: "s3cret" };
const dialect = new PgDialect();
const render = (q: SQL | undefined) => (q ? dialect.sqlToQuery(q) : undefined);
const parse = (qs: string, s: ListSpec = spec, k = key) => parseListParams(new URLSearchParams(qs), s, k);
const whereOf = async (qs: string) => render((await parse(qs)).where)!;
const orderOf = async (qs: string) => (await parse(qs)).orderBy.map((o) => dialect.sqlToQuery(o).sql).join(", ");

async function badRequest(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => new Error("expected a rejection"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe("BAD_REQUEST");
  return error as AppError;
}

function item(n: number, extra: Record<string, unknown> = {}) {
  return {
    id: `task_${String(n).padStart(3, "0")}`,
    title: `Task ${n}`,
    priority: "high",
    estimate: n,
    dueDate: null,
    createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, n)).toISOString(),
    ...extra,
  };
}

describe("limit", () => {
  it("defaults to 50 and accepts 1..250", () => {
    expect(parseLimit(null)).toBe(50);
    expect(parseLimit("1")).toBe(1);
    expect(parseLimit("250")).toBe(250);
    expect(parseLimit("17")).toBe(17);
  });

  it.each(["0", "251", "-1", "1.5", "abc", "", "1e2", "10x", "99999999999999999999"])("rejects %j with 422", (raw) => {
    let error: unknown;
    try {
      parseLimit(raw);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors.limit).toEqual(["limit must be an integer between 1 and 250"]);
  });

  it("is read by parseListParams", async () => {
    expect((await parse("")).limit).toBe(50);
    expect((await parse("limit=10")).limit).toBe(10);
    await expect(parse("limit=300")).rejects.toBeInstanceOf(ValidationError);
  });
});

describe("filters", () => {
  it("has no condition without filters", async () => {
    expect((await parse("")).where).toBeUndefined();
  });

  it.each([
    ["eq", "title", "Hi", `"tasks"."title" = $1`, ["Hi"]],
    ["neq", "title", "Hi", `"tasks"."title" <> $1`, ["Hi"]],
    ["gt", "estimate", "3", `"tasks"."estimate" > $1`, [3]],
    ["gte", "estimate", "-2.5", `"tasks"."estimate" >= $1::numeric`, [-2.5]],
    ["lt", "dueDate", "2024-02-29", `"tasks"."due_date" < $1::date`, ["2024-02-29"]],
    ["lte", "createdAt", "2024-01-31T12:00:00.000Z", `"tasks"."created_at" <= $1::timestamptz`, ["2024-01-31T12:00:00.000Z"]],
    ["eq", "archived", "false", `"tasks"."archived" = $1`, [false]],
    ["eq", "status", "DONE", `"tasks"."status" = $1`, ["DONE"]],
    ["contains", "title", "Fix", `"tasks"."title" ilike $1`, ["%Fix%"]],
    ["startsWith", "title", "Fix", `"tasks"."title" ilike $1`, ["Fix%"]],
  ])("%s on %s", async (op, field, value, text, params) => {
    const q = await whereOf(`filter[${op}][${field}]=${encodeURIComponent(value)}`);
    expect(q.sql).toBe(text);
    expect(q.params).toEqual(params);
  });

  it("neq on a nullable field keeps null rows", async () => {
    const q = await whereOf("filter[neq][estimate]=3");
    expect(q.sql).toBe(`"tasks"."estimate" is distinct from $1`);
  });

  it("eq/neq null match SQL NULL on nullable fields", async () => {
    expect((await whereOf("filter[eq][assigneeId]=null")).sql).toBe(`"tasks"."assignee_id" is null`);
    expect((await whereOf("filter[neq][assigneeId]=null")).sql).toBe(`"tasks"."assignee_id" is not null`);
    expect((await whereOf("filter[eq][dueDate]=null")).sql).toBe(`"tasks"."due_date" is null`);
  });

  it("null is an ordinary string on non-nullable text fields", async () => {
    const q = await whereOf("filter[eq][title]=null");
    expect(q.sql).toBe(`"tasks"."title" = $1`);
    expect(q.params).toEqual(["null"]);
  });

  it("in collects repeated parameters", async () => {
    const q = await whereOf("filter[in][status]=TODO&filter[in][status]=DONE");
    expect(q.sql).toBe(`"tasks"."status" in ($1, $2)`);
    expect(q.params).toEqual(["TODO", "DONE"]);
  });

  it("in with null on a nullable field also matches nulls", async () => {
    const q = await whereOf("filter[in][assigneeId]=usr_1&filter[in][assigneeId]=null");
    expect(q.sql).toBe(`("tasks"."assignee_id" in ($1) or "tasks"."assignee_id" is null)`);
    expect(q.params).toEqual(["usr_1"]);
  });

  it("in casts dates", async () => {
    const q = await whereOf("filter[in][dueDate]=2024-01-01&filter[in][dueDate]=2024-01-02");
    expect(q.sql).toBe(`"tasks"."due_date" in ($1::date, $2::date)`);
  });

  it("combines several filters with AND", async () => {
    const q = await whereOf("filter[eq][status]=TODO&filter[gte][estimate]=2&filter[contains][title]=x");
    expect(q.sql).toBe(`("tasks"."status" = $1 and "tasks"."estimate" >= $2 and "tasks"."title" ilike $3)`);
    expect(q.params).toEqual(["TODO", 2, "%x%"]);
  });

  it("escapes LIKE wildcards and backslashes", async () => {
    const q = await whereOf(`filter[contains][title]=${encodeURIComponent("50%_off\\now")}`);
    expect(q.params).toEqual(["%50\\%\\_off\\\\now%"]);
    const s = await whereOf(`filter[startsWith][title]=${encodeURIComponent("a_b")}`);
    expect(s.params).toEqual(["a\\_b%"]);
  });

  it("hands custom filters the operator and raw values", async () => {
    const q = await whereOf("filter[in][priority]=high&filter[in][priority]=low");
    expect(q.sql).toBe(`"tasks"."priority" in ($1, $2) /* in */`);
    expect(q.params).toEqual(["high", "low"]);
  });

  it("validates values before custom filters", async () => {
    const error = await badRequest(parse("filter[eq][priority]=highest"));
    expect(error.message).toContain("priority");
  });

  it("rejects an unknown operator with the allowed operators", async () => {
    const error = await badRequest(parse("filter[like][title]=x"));
    expect(error.details?.allowed).toEqual(["eq", "neq", "gt", "gte", "lt", "lte", "contains", "startsWith", "in"]);
  });

  it("rejects an unknown or non-filterable field with the allowed names", async () => {
    for (const qs of ["filter[eq][nope]=1", "filter[eq][secretNote]=x", "filter[eq][constructor]=x"]) {
      const error = await badRequest(parse(qs));
      expect(error.details?.allowed).toEqual(["title", "status", "priority", "estimate", "archived", "dueDate", "assigneeId", "createdAt"]);
    }
  });

  it("rejects malformed filter keys", async () => {
    for (const qs of ["filter=x", "filter[eq]=x", "filter[eq][title][x]=y", "filter[eq]title=y"]) {
      await badRequest(parse(qs));
    }
  });

  it.each([
    ["estimate", "abc"],
    ["estimate", ""],
    ["estimate", "Infinity"],
    ["estimate", "0x10"],
    ["archived", "yes"],
    ["archived", "1"],
    ["dueDate", "2024-02-30"],
    ["dueDate", "2024-1-1"],
    ["dueDate", "2024-01-01T00:00:00Z"],
    ["createdAt", "2024-01-01"],
    ["createdAt", "2024-13-01T00:00:00Z"],
    ["createdAt", "2024-01-01T25:00:00Z"],
    ["createdAt", "yesterday"],
    ["status", "done"],
    ["assigneeId", ""],
    ["estimate", "null"],
  ])("rejects %s=%j as the wrong type", async (field, value) => {
    const error = await badRequest(parse(`filter[gt][${field}]=${encodeURIComponent(value)}`));
    expect(error.message).toContain(`'${field}'`);
    expect(error.details?.field).toBe(field);
  });

  it("accepts date-times with offsets and fractions", async () => {
    for (const v of ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.123456+02:00", "2024-01-01T10:30-05:00"]) {
      expect((await whereOf(`filter[gt][createdAt]=${encodeURIComponent(v)}`)).params).toEqual([v]);
    }
  });

  it("allows contains/startsWith only on text fields", async () => {
    for (const qs of ["filter[contains][status]=DO", "filter[startsWith][estimate]=1", "filter[contains][createdAt]=2024"]) {
      const error = await badRequest(parse(qs));
      expect(error.details?.operator).toBeDefined();
    }
  });

  it("ignores unrelated parameters", async () => {
    expect((await parse("filters=1&sorting=2&q=x")).where).toBeUndefined();
  });
});

describe("sort", () => {
  it("defaults to createdAt ascending with an ascending id tiebreak", async () => {
    expect(await orderOf("")).toBe(`"tasks"."created_at" asc, "tasks"."id" asc`);
  });

  it("follows query order and breaks ties by id in the last key's direction", async () => {
    expect(await orderOf("sort[status]=asc&sort[title]=desc")).toBe(`"tasks"."status" asc, "tasks"."title" desc, "tasks"."id" desc`);
    expect(await orderOf("sort[title]=desc&sort[status]=asc")).toBe(`"tasks"."title" desc, "tasks"."status" asc, "tasks"."id" asc`);
  });

  it("puts nulls last in both directions", async () => {
    expect(await orderOf("sort[dueDate]=asc")).toBe(`("tasks"."due_date" is null), "tasks"."due_date" asc, "tasks"."id" asc`);
    expect(await orderOf("sort[dueDate]=desc")).toBe(`("tasks"."due_date" is null), "tasks"."due_date" desc, "tasks"."id" desc`);
  });

  it("sorts by SQL expressions", async () => {
    expect(await orderOf("sort[priority]=asc")).toContain('(case "tasks"."priority" when \'urgent\' then 0');
  });

  it("rejects a bad direction", async () => {
    for (const dir of ["up", "ASC", "", "ascending"]) {
      const error = await badRequest(parse(`sort[title]=${dir}`));
      expect(error.details?.allowed).toEqual(["asc", "desc"]);
    }
  });

  it("rejects unknown or non-sortable fields with the allowed names", async () => {
    for (const qs of ["sort[nope]=asc", "sort[secretNote]=asc"]) {
      const error = await badRequest(parse(qs));
      expect(error.details?.allowed).toEqual(["title", "status", "priority", "estimate", "archived", "dueDate", "assigneeId", "createdAt"]);
    }
  });

  it("rejects malformed and repeated sort keys", async () => {
    for (const qs of ["sort=title", "sort[]=asc", "sort[title=asc", "sort[title]=asc&sort[title]=desc"]) {
      await badRequest(parse(qs));
    }
  });
});

describe("limits", () => {
  const titles = (n: number) => Array.from({ length: n }, (_, i) => `filter[contains][title]=t${i}`).join("&");

  it(`ANDs up to ${MAX_FILTERS} filters and refuses more`, async () => {
    expect(render((await parse(titles(MAX_FILTERS))).where)!.params).toHaveLength(MAX_FILTERS);
    const error = await badRequest(parse(titles(MAX_FILTERS + 1)));
    expect(error.message).toBe(`Too many filters (at most ${MAX_FILTERS})`);
  });

  it("counts the repeated values of one `in` filter as one filter (they are capped on their own)", async () => {
    const many = Array.from({ length: MAX_FILTERS + 5 }, (_, i) => `filter[in][title]=t${i}`).join("&");
    await parse(many);
    await badRequest(parse(Array.from({ length: 251 }, (_, i) => `filter[in][title]=t${i}`).join("&")));
  });

  it(`refuses a filter value longer than ${MAX_FILTER_VALUE_LENGTH} characters`, async () => {
    await parse(`filter[contains][title]=${"x".repeat(MAX_FILTER_VALUE_LENGTH)}`);
    const error = await badRequest(parse(`filter[contains][title]=${"x".repeat(MAX_FILTER_VALUE_LENGTH + 1)}`));
    expect(error.details).toEqual({ field: "title", maxLength: MAX_FILTER_VALUE_LENGTH });
  });

  it(`sorts by up to ${MAX_SORT_KEYS} keys and refuses more`, async () => {
    const names = ["title", "status", "estimate", "archived", "dueDate", "createdAt"];
    const sorts = (n: number) =>
      names
        .slice(0, n)
        .map((name) => `sort[${name}]=asc`)
        .join("&");
    expect((await parse(sorts(MAX_SORT_KEYS))).orderBy.length).toBeGreaterThan(MAX_SORT_KEYS);
    const error = await badRequest(parse(sorts(MAX_SORT_KEYS + 1)));
    expect(error.message).toBe(`Too many sort keys (at most ${MAX_SORT_KEYS})`);
  });

  it("refuses a query naming more dynamic fields than a valid one can, before resolving them", async () => {
    let resolved = 0;
    const dynamicSpec: ListSpec = {
      ...spec,
      dynamic: {
        prefix: "customFields",
        resolve: async () => {
          resolved++;
          return {};
        },
      },
    };
    const keys = Array.from({ length: MAX_FILTERS + MAX_SORT_KEYS + 1 }, (_, i) => `filter[eq][customFields.k${i}]=1`).join("&");
    await badRequest(parse(keys, dynamicSpec));
    expect(resolved).toBe(0);
  });
});

describe("fields", () => {
  it("parses the selection against the shape", async () => {
    expect((await parse("fields=id,team{prefix}")).fields).toEqual({ id: true, team: { prefix: true } });
    expect((await parse("")).fields).toBeNull();
    expect((await parse("fields=")).fields).toBeNull();
    await badRequest(parse("fields=id,nope"));
  });
});

describe("page and cursor", () => {
  it("returns everything with a null cursor when there are no more rows", async () => {
    const params = await parse("limit=3");
    const items = [item(1), item(2), item(3)];
    expect(await params.page(items)).toEqual({ items, nextCursor: null });
  });

  it("drops the extra row and continues after the last returned one (default sort)", async () => {
    const first = await parse("limit=2");
    const { items, nextCursor } = await first.page([item(1), item(2), item(3)]);
    expect(items.map((i) => i.id)).toEqual(["task_001", "task_002"]);
    expect(nextCursor).toEqual(expect.any(String));

    const next = await parse(`limit=2&cursor=${encodeURIComponent(nextCursor!)}`);
    const q = render(next.where)!;
    expect(q.sql).toBe(`("tasks"."created_at", "tasks"."id") > ($1::timestamptz, $2)`);
    expect(q.params).toEqual(["2024-01-01T00:00:02.000Z", "task_002"]);
  });

  it("ANDs filters with the keyset condition", async () => {
    const { nextCursor } = await (await parse("limit=1&filter[eq][status]=TODO")).page([item(1), item(2)]);
    const q = render((await parse(`limit=1&filter[eq][status]=TODO&cursor=${nextCursor}`)).where)!;
    expect(q.sql).toBe(`("tasks"."status" = $1 and ("tasks"."created_at", "tasks"."id") > ($2::timestamptz, $3))`);
  });

  it("expands mixed directions key by key", async () => {
    const qs = "limit=1&sort[title]=desc&sort[estimate]=asc";
    const { nextCursor } = await (await parse(qs)).page([item(5), item(6)]);
    const q = render((await parse(`${qs}&cursor=${nextCursor}`)).where)!;
    expect(q.sql).toBe(
      `("tasks"."title" < $1 or ("tasks"."title" = $2 and ("tasks"."estimate" is null or ` +
        `"tasks"."estimate" > $3 or ("tasks"."estimate" = $4 and "tasks"."id" > $5))))`,
    );
    expect(q.params).toEqual(["Task 5", "Task 5", 5, 5, "task_005"]);
  });

  it("continues among the trailing nulls when the cursor value is null", async () => {
    const qs = "limit=1&sort[dueDate]=desc";
    const { nextCursor } = await (await parse(qs)).page([item(1), item(2)]);
    const q = render((await parse(`${qs}&cursor=${nextCursor}`)).where)!;
    expect(q.sql).toBe(`("tasks"."due_date" is null and "tasks"."id" < $1)`);
    expect(q.params).toEqual(["task_001"]);
  });

  it("lets nulls follow a non-null cursor value", async () => {
    const qs = "limit=1&sort[dueDate]=asc";
    const { nextCursor } = await (await parse(qs)).page([item(1, { dueDate: "2024-03-01" }), item(2)]);
    const q = render((await parse(`${qs}&cursor=${nextCursor}`)).where)!;
    expect(q.sql).toBe(
      `("tasks"."due_date" is null or "tasks"."due_date" > $1::date or ("tasks"."due_date" = $2::date and "tasks"."id" > $3))`,
    );
    expect(q.params).toEqual(["2024-03-01", "2024-03-01", "task_001"]);
  });

  it("stores custom cursor values (priority rank)", async () => {
    const qs = "limit=1&sort[priority]=asc";
    const { nextCursor } = await (await parse(qs)).page([item(1, { priority: "medium" }), item(2)]);
    const q = render((await parse(`${qs}&cursor=${nextCursor}`)).where)!;
    expect(q.sql).toContain(`end), "tasks"."id") > ($1, $2)`);
    expect(q.params).toEqual([2, "task_001"]);
  });

  it("rejects a cursor of another resource, sort, scope or secret", async () => {
    const { nextCursor } = await (await parse("limit=1")).page([item(1), item(2)]);
    const cursor = encodeURIComponent(nextCursor!);
    await badRequest(parse(`cursor=${cursor}`, { ...spec, resource: "projects" }));
    const sortError = await badRequest(parse(`cursor=${cursor}&sort[createdAt]=desc`));
    expect(sortError.message).toContain("sort");
    await badRequest(parse(`cursor=${cursor}&sort[title]=asc`));
    await badRequest(parse(`cursor=${cursor}`, spec, { ...key, scope: "ws_2" }));
    await badRequest(parse(`cursor=${cursor}`, spec, { ...key, secret: "other" }));
    await badRequest(parse(`cursor=${cursor.slice(0, -2)}`));
    await badRequest(parse("cursor=garbage"));
  });

  it("treats an empty cursor as the first page", async () => {
    expect((await parse("cursor=")).where).toBeUndefined();
  });

  it("fails loudly on items the spec cannot describe", async () => {
    const params = await parse("limit=1&sort[title]=asc");
    await expect(params.page([item(1, { title: null }), item(2)])).rejects.toThrow(/title/);
    await expect(params.page([{ title: "x" }, item(2)])).rejects.toThrow(/id/);
  });
});
