import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { labels } from "../../drizzle/schema";
import type { Reach } from "../../src/db/scope";
import { defineRecord, f } from "../../src/store/field-map";

// A record's JSON is rendered to text once per selection (src/store/field-map.ts, `rendered`): what a statement carries
// must stay what building it anew gives, a parameter must stay a parameter, and what depends on the caller per call.
const dialect = new PgDialect();
const render = (value: Parameters<PgDialect["sqlToQuery"]>[0]) => dialect.sqlToQuery(value);

const record = defineRecord({
  name: "UnitLabel",
  resource: "unit-labels",
  from: sql`${labels}`,
  id: labels.id,
  workspace: labels.workspaceId,
  team: null,
  fields: {
    id: f.id(labels.id, { list: false }),
    name: f.text(labels.name, { list: false }),
    color: f.text(labels.color, { list: false }),
    createdAt: f.datetime(labels.createdAt, { list: false }),
    tagged: f.text(sql`${"a constant parameter"}::text`, { list: false, lazy: true }),
    mine: f.boolean(sql`true`, { list: false, reached: (reach: Reach) => sql`${labels.creatorId} = ${reach.workspace}` }),
    // Seven lazy fields: 128 selections, more than the 64 a record keeps rendered.
    ...Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`lazy${i}`, f.integer(sql.raw(String(i)), { list: false, lazy: true })])),
  },
});
const reach = (workspace: string): Reach => ({ workspace, teams: null }) as unknown as Reach;

describe("a record's JSON, rendered once per selection", () => {
  it("is the same text as the fields' SQL joined, with no parameter, and made once", () => {
    const first = record.json({ id: true });
    expect(record.json({ id: true })).toBe(first);
    const { sql: text, params } = render(first);
    expect(params).toEqual([]);
    expect(text).toBe(
      `json_build_object('id', "labels"."id", 'name', "labels"."name", 'color', "labels"."color", 'createdAt', ` +
        `to_char("labels"."created_at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`,
    );
  });

  it("keeps a field's parameter a parameter", () => {
    const { sql: text, params } = render(record.json({ id: true, tagged: true }));
    expect(text).toContain(
      `'createdAt', to_char("labels"."created_at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'tagged', $1::text)`,
    );
    expect(params).toEqual(["a constant parameter"]);
  });

  it("builds a field that depends on the caller's reach for each call", () => {
    const a = render(record.json({ id: true, mine: true }, reach("ws_a")));
    const b = render(record.json({ id: true, mine: true }, reach("ws_b")));
    expect(a.sql).toContain(`'mine', "labels"."creator_id" = $1)`);
    expect([a.params, b.params]).toEqual([["ws_a"], ["ws_b"]]);
  });

  it("answers each of more selections than it keeps with its own fields", () => {
    const lazy = Array.from({ length: 7 }, (_, i) => `lazy${i}`);
    for (let round = 0; round < 2; round++) {
      for (let mask = 0; mask < 1 << lazy.length; mask++) {
        const named = lazy.filter((_, i) => mask & (1 << i));
        const { sql: text, params } = render(record.json(Object.fromEntries(["id", ...named].map((n) => [n, true as const]))));
        expect(params).toEqual([]);
        // Every scalar always (a list's cursor reads its keys from the answer), a lazy field only when named.
        for (const name of ["id", "name", "color", "createdAt"]) expect(text).toContain(`'${name}'`);
        expect(lazy.filter((name) => text.includes(`'${name}'`))).toEqual(named);
      }
    }
  });
});
