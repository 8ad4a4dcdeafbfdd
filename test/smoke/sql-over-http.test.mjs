// The stand-in for Neon's SQL-over-HTTP endpoint (scripts/lib/sql-over-http.mjs), driven by the Neon driver itself:
// a transaction sent at once (`transaction([...])`) with its options, all or nothing; and the stack's distance, one round
// trip of 2 × delayMs per query or transaction, none for a connection. (Node code: it lives with the smoke tests.)
import { rmSync } from "node:fs";
import path from "node:path";
import { neon, neonConfig } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres } from "../../scripts/lib/postgres.mjs";
import { startSqlOverHttp } from "../../scripts/lib/sql-over-http.mjs";
import { migratedDataDir } from "../helpers/pg-template.mjs";

let dir;
let db;
let endpoint;
let sql;
beforeAll(async () => {
  dir = await migratedDataDir("sql-over-http");
  db = await startPostgres({ dataDir: path.join(dir, "pg") });
  endpoint = await startSqlOverHttp();
  neonConfig.fetchEndpoint = endpoint.url;
  sql = neon(db.url);
  await sql`create table if not exists sot_items (id int primary key)`;
}, 120_000);
afterAll(async () => {
  await endpoint?.close();
  await db?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a transaction sent at once", () => {
  it("runs its statements in one transaction with the options asked for", async () => {
    const [level, readOnly, both] = await sql.transaction(
      [sql`show transaction_isolation`, sql`show transaction_read_only`, sql`select txid_current() = txid_current() as same`],
      { isolationLevel: "RepeatableRead", readOnly: true },
    );
    expect(level).toEqual([{ transaction_isolation: "repeatable read" }]);
    expect(readOnly).toEqual([{ transaction_read_only: "on" }]);
    expect(both).toEqual([{ same: true }]);
    const error = await sql.transaction([sql`insert into sot_items values (1)`], { readOnly: true }).catch((e) => e);
    expect(error.code).toBe("25006");
  });

  it("writes all of it or nothing: a failing statement rolls back the ones before it", async () => {
    const error = await sql.transaction([sql`insert into sot_items values (10)`, sql`insert into sot_items values (10)`]).catch((e) => e);
    expect(error.code).toBe("23505");
    expect(error.constraint).toBe("sot_items_pkey");
    expect(await sql`select count(*)::int as n from sot_items where id = 10`).toEqual([{ n: 0 }]);
    await sql.transaction([sql`insert into sot_items values (11)`, sql`insert into sot_items values (12)`]);
    expect(await sql`select count(*)::int as n from sot_items where id in (11, 12)`).toEqual([{ n: 2 }]);
  });

  it("refuses several statements in one query, as Neon's extended protocol does", async () => {
    const error = await sql.query("select 1; select 2").catch((e) => e);
    expect(error.code).toBe("42601");
  });
});

describe("distance", () => {
  /** The median of `n` timings of `run`, in ms. */
  async function median(run, n = 5) {
    const times = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await run();
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[Math.floor(n / 2)];
  }

  it("costs one round trip of 2 × delayMs per query and per transaction, none for the connection", async () => {
    endpoint.setDelay(0);
    const near = await median(() => sql`select 1`);
    endpoint.setDelay(40);
    try {
      const query = await median(() => sql`select 1`);
      const transaction = await median(() => sql.transaction([sql`select 1`, sql`select 2`, sql`select 3`]));
      // At least the round trip (80 ms), and short of a second one (160 ms) over the time at no distance.
      for (const ms of [query, transaction]) {
        expect(ms).toBeGreaterThanOrEqual(80);
        expect(ms - near).toBeLessThan(140);
      }
    } finally {
      endpoint.setDelay(0);
    }
  });
});
