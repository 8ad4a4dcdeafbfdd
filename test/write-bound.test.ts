// A 503 of the server's own bound means nothing was written (docs/security.md, "A 503 tells the truth"): the server
// cancels and rolls back a write that waits past SERVER_TIMEOUT_MS (src/db/client.ts), before the client's own bound gives up on it. A team's row is held locked
// from another connection, as 50 concurrent creates into one team hold it for each other; then the lock is let go and
// the write must not land.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { QUERY_TIMEOUT_MS, SERVER_TIMEOUT_MS } from "../src/db/client";
import { post } from "./helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant, whileLocked, withDb } from "./helpers/fixtures";

let tenant: Tenant;
let team: TeamFixture;
beforeAll(async () => {
  tenant = await newTenant("Write bound");
  team = await newTeam(tenant);
});

/** Runs `during` while another connection holds the team's row locked; then lets go. */
const withTeamLocked = <T>(during: () => Promise<T>) => whileLocked(sql`select id from teams where id = ${team.id} for update`, during);

const stored = (title: string) =>
  withDb(async (db) => (await db.execute<{ n: number }>(sql`select count(*)::int as n from tasks where title = ${title}`)).rows[0].n);

describe("the server's bound on a write", () => {
  it("is shorter than the client's", () => {
    expect(SERVER_TIMEOUT_MS).toBeLessThan(QUERY_TIMEOUT_MS);
  });

  it("50 concurrent creates into one team: exactly the 201s are stored, each 503 left nothing", async () => {
    const tag = crypto.randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post("/tasks", { teamId: team.id, title: `burst ${tag} ${i}` }, tenant.owner.key)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    const rows = await withDb(
      async (db) => (await db.execute<{ title: string }>(sql`select title from tasks where title like ${`burst ${tag} %`}`)).rows,
    );
    const created = answers.filter((a) => a.status === 201).map((a) => a.body.task.title);
    expect(rows.map((r) => r.title).sort()).toEqual(created.sort());
  }, 60_000);

  it.each([
    ["one statement (a create that links nothing)", false],
    ["a transaction (a create that names an assignee)", true],
  ])(
    "%s: a create that waits too long is 503 and leaves nothing, even once the lock goes",
    async (_, assignee) => {
      const title = `bounded ${crypto.randomUUID()}`;
      const body = { teamId: team.id, title, ...(assignee ? { assigneeId: tenant.owner.userId } : {}) };
      const res = await withTeamLocked(() => post("/tasks", body, tenant.owner.key));
      expect([res.status, res.body.error?.code]).toEqual([503, "UNAVAILABLE"]);
      // The server gave up first (its bound, not the client's: that one says the database is unavailable)…
      expect(res.body.error.message).toMatch(/nothing was written/);
      // …and rolled back: nothing lands once the lock goes.
      await new Promise((r) => setTimeout(r, 500));
      expect(await stored(title)).toBe(0);
      // The team is unharmed: the next create takes the next number.
      const next = await post("/tasks", { teamId: team.id, title: `${title} after` }, tenant.owner.key);
      expect(next.status).toBe(201);
      expect(await stored(title)).toBe(0);
    },
    30_000,
  );
});
