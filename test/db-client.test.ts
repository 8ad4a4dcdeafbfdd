// The local stack must take the driver path production takes: Neon's defaults, connection pipelining included,
// with only the proxy and TLS changed. A pipelined connect sends the password before the server asks for it,
// which works only when the server asks for the password method (as Neon does).

import { env } from "cloudflare:test";
import { neonConfig } from "@neondatabase/serverless";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { LOCAL_DRIVER_SETTINGS, RequestDb } from "../src/db/client";

describe("local driver settings", () => {
  it("keep every Neon default but the proxy and TLS, connection pipelining included", async () => {
    const rdb = new RequestDb(env);
    try {
      const { rows } = await rdb.db.execute(sql`select 1 as one`);
      expect(rows).toEqual([{ one: 1 }]);
      expect(rdb.stats.queries).toBe(1);
    } finally {
      await rdb.close();
    }
    // What the local stack set; every other option reads Neon's default.
    const opts = (neonConfig as unknown as { opts: Record<string, unknown> }).opts;
    expect(Object.keys(opts).sort()).toEqual([...LOCAL_DRIVER_SETTINGS].sort());
    expect(neonConfig.pipelineConnect).toBe("password");
    expect(neonConfig.coalesceWrites).toBe(true);
  });

  // Each request builds its own database (its own pool): the schema's relational config is derived once per isolate,
  // not per request (a tenth of a write's JavaScript when it was; docs/performance.md), and relational queries work.
  it("share the schema's relational config between requests' databases", async () => {
    const [a, b] = [new RequestDb(env), new RequestDb(env)];
    try {
      expect(a.db._.schema).toBeDefined();
      expect(a.db._.schema).toBe(b.db._.schema);
      expect(a.db._.tableNamesMap).toBe(b.db._.tableNamesMap);
      expect(await b.db.query.workspaces.findFirst({ columns: { id: true }, where: sql`false` })).toBeUndefined();
      expect(b.stats.queries).toBe(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("connect to a server that asks for the password method, as pipelining needs", async () => {
    const rdb = new RequestDb(env);
    try {
      const { rows } = await rdb.db.execute(sql`select distinct auth_method from pg_hba_file_rules where type = 'host'`);
      expect(rows).toEqual([{ auth_method: "password" }]);
    } finally {
      await rdb.close();
    }
  });

  // The one-statement writes rely on this: a statement is atomic, its data-modifying CTEs included.
  it("roll a failed statement back, writes included, and leave the connection usable", async () => {
    const rdb = new RequestDb(env);
    const id = `ws_atomic_${Date.now()}`;
    try {
      const failing = sql`with w as (insert into workspaces (id, name, slug) values (${id}, 'x', ${id}) returning id)
        select 1 / (select count(*) - 1 from w) as boom`;
      const error = await rdb.db.execute(failing).catch((e: Error) => e);
      expect(String((error as Error).cause)).toMatch(/division by zero/);
      const { rows } = await rdb.db.execute(sql`select count(*)::int as n from workspaces where id = ${id}`);
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await rdb.close();
    }
  });
});
