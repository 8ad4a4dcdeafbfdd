// The register of resources (src/core/resources.ts) is the one place a resource is listed: every list the service keeps
// per resource is derived from it, and these compare each with the register, the served document and the database's
// event triggers, so a resource left out of one (or a list that drifted) fails here.
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { CONDITIONAL, EVENT_SOURCES, REGISTERED, TAGS } from "../src/core/resources";
import { READABLE, readsOf } from "../src/core/scopes";
import { EVENT_TYPES, RESOURCE_TYPES } from "../src/records/event-types";
import { fetchApp } from "./helpers/api";
import { withDb } from "./helpers/fixtures";
import { scopeOf } from "./helpers/policies";

type Operation = { tags?: string[]; parameters?: Array<{ $ref?: string }> };
const document = async () =>
  (await (await fetchApp(new Request("http://api.test/openapi.json"))).json()) as {
    tags: Array<{ name: string }>;
    paths: Record<string, Record<string, Operation>>;
  };
const operations = (doc: Awaited<ReturnType<typeof document>>) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

describe("the register of resources", () => {
  it("gives each resource's writes its scope, and the scope `read` (and its write scope) what it reads", () => {
    for (const r of REGISTERED) {
      if (r.scope) expect(scopeOf("POST", `/${r.name}`), r.name).toBe(r.scope);
      else if (r.reads) expect(() => scopeOf("POST", `/${r.name}`), r.name).toThrow(/No scope/);
      for (const name of r.reads ?? []) {
        expect(READABLE, r.name).toContain(name);
        if (r.scope?.endsWith(":write")) expect(readsOf([r.scope]), r.name).toContain(name);
      }
      for (const name of r.scopeAlsoReads ?? []) expect(r.scope && readsOf([r.scope]), r.name).toContain(name);
    }
    expect(READABLE).toEqual(REGISTERED.flatMap((r) => r.reads ?? []));
  });

  it("gives each resource's events their types, and nothing else has any", () => {
    const registered = REGISTERED.flatMap((r) => Object.keys(r.events ?? {}));
    expect([...RESOURCE_TYPES]).toEqual(registered);
    for (const type of registered) {
      const actions = EVENT_SOURCES[type].actions ?? ["created", "updated", "deleted"];
      for (const action of actions) expect(EVENT_TYPES).toContain(`${type}.${action}`);
    }
    expect(EVENT_TYPES).toHaveLength(registered.reduce((n, type) => n + (EVENT_SOURCES[type].actions ?? [1, 2, 3]).length, 0));
  });

  it("documents every operation under a registered resource's tag, and only the tags the register uses", async () => {
    const doc = await document();
    const used = new Set(REGISTERED.map((r) => r.tag));
    for (const { path, method, op } of operations(doc)) expect(used.has(op.tags?.[0] as keyof typeof TAGS), `${method} ${path}`).toBe(true);
    expect(doc.tags.map((t) => t.name)).toEqual(Object.keys(TAGS).filter((tag) => used.has(tag as keyof typeof TAGS)));
  });

  it("states for every PATCH and DELETE of /<resource>/{id} whether it is conditional; the document says If-Match exactly there", async () => {
    const doc = await document();
    const conditional = Object.fromEntries(REGISTERED.map((r) => [r.name, r.conditional]));
    for (const { path, method, op } of operations(doc)) {
      const [, name, id, more] = path.split("/");
      const documented = Boolean(op.parameters?.some((p) => p.$ref === "#/components/parameters/IfMatch"));
      if ((method !== "patch" && method !== "delete") || !id?.startsWith("{") || more !== undefined) {
        expect(documented, `${method} ${path}`).toBe(false);
        continue;
      }
      expect(typeof conditional[name], `${method} ${path}: the register states whether it is conditional`).toBe("boolean");
      expect(documented, `${method} ${path}`).toBe(conditional[name]);
      expect(CONDITIONAL[name], `${method} ${path}`).toBe(conditional[name] ? REGISTERED.find((r) => r.name === name)?.table : undefined);
    }
  });

  it("lists exactly the tables the database's event triggers watch, with the resource type each writes", async () => {
    const rows = await withDb(
      async (db) =>
        (
          await db.execute<{ tbl: string; fn: string; kind: string }>(sql`
          select c.relname as tbl, p.proname as fn, split_part(encode(t.tgargs, 'escape'), '\\000', 1) as kind
          from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
          join pg_namespace n on n.oid = c.relnamespace
          where not t.tgisinternal and n.nspname = current_schema() and p.proname like 'pm\\_%event%'`)
        ).rows,
    );
    const watched = [...new Set(rows.map((r) => r.tbl))].sort();
    const registered = [...new Set(Object.values(EVENT_SOURCES).flatMap((s) => [...s.tables, ...(s.joinTables ?? [])]))].sort();
    expect(watched).toEqual(registered);
    // A table whose trigger names its resource type: the register lists that table under that type.
    for (const row of rows.filter((r) => r.fn === "pm_record_events" || r.fn === "pm_record_row_event")) {
      expect(EVENT_SOURCES[row.kind]?.tables, `${row.tbl} -> ${row.kind}`).toContain(row.tbl);
    }
  });
});
