// The two paths a statement may take (src/db/client.ts): Neon's HTTP query, here through the local stand-in for its
// SQL-over-HTTP endpoint (scripts/lib/sql-over-http.mjs), and the WebSocket. The same statements through the project's
// own database client give the same answers on both, types and errors alike, so nothing is tuned to the stand-in; and
// a one-shot statement takes the HTTP query while a transaction takes the WebSocket.

import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { workspaces } from "../drizzle/schema";
import { type Db, RequestDb } from "../src/db/client";
import { errorAnswer } from "../src/http/error-mapper";
import { newTenant } from "./helpers/fixtures";

/** `work` on each path, each with a RequestDb of its own: [HTTP, WebSocket]. */
async function bothPaths<T>(work: (db: Db) => Promise<T>): Promise<[T, T]> {
  const run = async (http: boolean) => {
    const rdb = new RequestDb(env, { http });
    try {
      return await work(rdb.db);
    } finally {
      await rdb.close();
    }
  };
  return [await run(true), await run(false)];
}

/** The error `work` throws, as its PostgreSQL fields and as the API's answer. */
async function failure(work: () => Promise<unknown>) {
  const err = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the statement should fail").toBeDefined();
  const pg = (err as { cause?: Record<string, unknown> }).cause ?? {};
  const fields = ["message", "code", "severity", "detail", "hint", "position", "table", "schema", "column", "constraint", "routine"];
  // Both drivers leave an absent field undefined; compare what PostgreSQL said.
  return { pg: Object.fromEntries(fields.map((f) => [f, pg[f] ?? undefined])), answer: errorAnswer(err, "req") };
}

const VALUES = sql`select
  timestamp '2026-11-27 10:11:12.345678' as ts,
  timestamptz '2026-11-27 10:11:12.345678+02' as tstz,
  now() - now() + interval '1 day 02:03:04' as span,
  date '2026-02-28' as day,
  '{"a": [1, 2.5, null], "b": "ü \\"q\\""}'::json as j,
  '{"z": 1, "a": {"n": null}}'::jsonb as jb,
  array[1, null, 3]::int[] as ints,
  array['a,b', 'q"uote', 'back\\slash', null, 'NULL', '', 'ünï 😀']::text[] as texts,
  array[[1.5, 2], [3, 4]]::numeric[] as grid,
  9007199254740993::bigint as big,
  12345678901234567890.123456789::numeric as dec,
  'NaN'::float8 as nan,
  0.1::float8 + 0.2::float8 as sum,
  '\\x00ff10'::bytea as bytes,
  null::text as nothing,
  null::int[] as no_array,
  true as yes, false as no,
  'ünïcødé 😀 Ω \\ '' "' as text,
  '[1,2]'::int4range as range,
  'f47ac10b-58cc-4372-a567-0e02b2c3d479'::uuid as id`;

describe("the HTTP query and the WebSocket give the same answers", () => {
  it("for every type the service reads: timestamps, json, arrays, bigint, numeric, bytea, nulls, booleans, unicode", async () => {
    const [http, socket] = await bothPaths((db) => db.execute(VALUES));
    expect(http.rows).toEqual(socket.rows);
    expect(http.rows).toHaveLength(1);
    // What the rows hold, so equal answers are not equally wrong: Drizzle keeps dates as PostgreSQL's text.
    expect(http.rows[0]).toMatchObject({
      ts: "2026-11-27 10:11:12.345678",
      big: "9007199254740993",
      dec: "12345678901234567890.123456789",
      texts: ["a,b", 'q"uote', "back\\slash", null, "NULL", "", "ünï 😀"],
      j: { a: [1, 2.5, null], b: 'ü "q"' },
      nothing: null,
      yes: true,
    });
    expect(http.fields.map((f) => [f.name, f.dataTypeID])).toEqual(socket.fields.map((f) => [f.name, f.dataTypeID]));
  });

  it("for parameters of every kind: dates, arrays, json, bytes, bigints, nulls and unicode", async () => {
    const at = new Date("2026-11-27T10:11:12.345Z");
    // An array is one parameter (sql.param); bare, Drizzle spreads it into a list.
    const statement = sql`select ${at}::timestamptz as at, ${sql.param([1, 2, null])}::int[] as ints,
      ${sql.param(["a,b", 'q"', null, "ü 😀"])}::text[] as texts, ${JSON.stringify({ k: ["v", 1] })}::jsonb as j,
      ${sql.param(new Uint8Array([0, 255, 16]))}::bytea as bytes, ${9007199254740993n}::bigint as big, ${null}::text as nothing,
      ${true}::boolean as yes, ${"O'Brien \\ 😀"}::text as text`;
    const [http, socket] = await bothPaths((db) => db.execute(statement));
    expect(http.rows).toEqual(socket.rows);
    expect(http.rows[0]).toMatchObject({ ints: [1, 2, null], big: "9007199254740993", j: { k: ["v", 1] }, text: "O'Brien \\ 😀" });
  });

  it("for Drizzle's query builder and relational queries over a real table", async () => {
    const tenant = await newTenant("Fidelity");
    const [http, socket] = await bothPaths(async (db) => ({
      select: await db.select().from(workspaces).where(eq(workspaces.id, tenant.workspaceId)),
      relational: await db.query.workspaces.findFirst({ where: eq(workspaces.id, tenant.workspaceId) }),
      empty: await db.select({ id: workspaces.id }).from(workspaces).where(sql`false`),
    }));
    expect(http).toEqual(socket);
    expect(http.select[0].createdAt).toBeInstanceOf(Date);
    expect(http.relational?.slug).toBe(tenant.slug);
  });

  it("for errors: the same SQLSTATE, fields and API answer (unique and check violations, syntax, division by zero)", async () => {
    const tenant = await newTenant("Fidelity errors");
    const dup = `fid-${crypto.randomUUID()}`;
    const cases = [
      // A unique violation within one statement: nothing of it is written.
      sql`insert into workspaces (id, name, slug) values (${`ws_${crypto.randomUUID()}`}, 'a', ${dup}), (${`ws_${crypto.randomUUID()}`}, 'b', ${dup})`,
      sql`insert into workspaces (id, name, slug) values (${`ws_${crypto.randomUUID()}`}, 'a', ${tenant.slug})`,
      // A fixed time: the detail quotes the failing row.
      sql`insert into task_relations (id, workspace_id, type, source_task_id, target_task_id, source_team_id, target_team_id, created_at)
        values ('rel_x', ${tenant.workspaceId}, 'blocks', 'tsk_x', 'tsk_x', 'team_x', 'team_x', '2026-01-01')`,
      sql`selec 1`,
      sql`select 1 / ${0}::int`,
      sql`select ${"not a number"}::int`,
    ];
    for (const statement of cases) {
      const [http, socket] = await bothPaths((db) => failure(() => db.execute(statement)));
      expect(http).toEqual(socket);
      expect(http.pg.code).toMatch(/^[0-9A-Z]{5}$/);
    }
    const codes = [];
    for (const statement of cases.slice(0, 3)) codes.push((await bothPaths((db) => failure(() => db.execute(statement))))[0].pg.code);
    expect(codes).toEqual(["23505", "23505", "23514"]);
    const [written] = await bothPaths((db) => db.select().from(workspaces).where(eq(workspaces.slug, dup)));
    expect(written).toEqual([]);
  });
});

describe("which path a statement takes", () => {
  // With the WebSocket's address dead, only what goes over the HTTP query can answer.
  const socketDown = { ...env, DB_WS_PROXY: "127.0.0.1:9" };

  it("a one-shot statement goes over the HTTP query, counted as one query", async () => {
    const rdb = new RequestDb(socketDown);
    try {
      const { rows } = await rdb.db.execute(sql`select 1 as one`);
      expect(rows).toEqual([{ one: 1 }]);
      expect(rdb.stats).toMatchObject({ queries: 1, transactions: 0 });
    } finally {
      await rdb.close();
    }
  });

  it("an interactive transaction goes over the WebSocket", async () => {
    const rdb = new RequestDb(socketDown);
    try {
      const err = await rdb.db.transaction((tx) => tx.execute(sql`select 1`)).catch((e: unknown) => e);
      expect(errorAnswer(err, "req").status).toBe(503);
    } finally {
      await rdb.close();
    }
  });
});
