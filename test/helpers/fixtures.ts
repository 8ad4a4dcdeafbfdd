// Fixtures: workspaces and members created with the service's own functions on the real database, so each
// test file has its own tenant without paying for the e-mail round trip it does not test.
import { env } from "cloudflare:test";
import { type SQL, sql } from "drizzle-orm";
import { teamMembers, teams, users } from "../../drizzle/schema";
import { insertWorkspace, joinWorkspaceWithKey } from "../../src/auth/accounts/membership";
import { RequestDb } from "../../src/db/client";
import { newId } from "../../src/ids";
import { uniqueEmail } from "./api";

export interface Member {
  key: string;
  userId: string;
  email: string;
  name: string;
}
export interface Tenant {
  workspaceId: string;
  slug: string;
  owner: Member;
}

/**
 * A connection of the test's own, for fixtures made in SQL and checks: a seed of thousands of rows (each with its
 * triggers' events) may take longer on a loaded machine than a request's 5 s bound, which is the API's, not a fixture's.
 */
export async function withDb<T>(fn: (db: RequestDb["db"]) => Promise<T>, queryMs = 120_000): Promise<T> {
  const rdb = new RequestDb(env, { bounds: { connect: 5_000, query: queryMs } });
  try {
    return await fn(rdb.db);
  } finally {
    await rdb.close();
  }
}

/** Runs `during` while another connection holds what `lock` locks (in a transaction of its own); then lets go. */
export async function whileLocked<T>(lock: SQL, during: () => Promise<T>): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const holder = withDb((db) =>
    db.transaction(async (tx) => {
      await tx.execute(lock);
      locked();
      await released;
    }),
  );
  await isLocked;
  try {
    return await during();
  } finally {
    release();
    await holder;
  }
}

export function newTenant(name = "Test Workspace"): Promise<Tenant> {
  return withDb(async (db) => {
    const workspace = await insertWorkspace(db, name);
    const owner = await insertMember(db, workspace.id, "OWNER");
    return { workspaceId: workspace.id, slug: workspace.slug, owner };
  });
}

export function addMember(
  tenant: Tenant,
  role: "MEMBER" | "ADMIN" | "OWNER" = "MEMBER",
  type: "HUMAN" | "AGENT" = "HUMAN",
): Promise<Member> {
  return withDb((db) => insertMember(db, tenant.workspaceId, role, type));
}

async function insertMember(
  db: RequestDb["db"],
  workspaceId: string,
  role: "MEMBER" | "ADMIN" | "OWNER",
  type: "HUMAN" | "AGENT" = "HUMAN",
): Promise<Member> {
  const email = uniqueEmail(role.toLowerCase());
  const name = `${role} ${email.slice(0, 8)}`;
  const [user] = await db
    .insert(users)
    .values({ id: newId("user"), name, email, type })
    .returning();
  const key = await joinWorkspaceWithKey(db, { workspaceId, userId: user.id, role, keyName: "test" });
  return { key, userId: user.id, email, name };
}

export interface TeamFixture {
  id: string;
  name: string;
  prefix: string;
  workspaceId: string;
}

let teamCounter = 0;
/** A team inserted directly (its owner is the tenant's owner), for tests of resources that live in teams. */
export function newTeam(tenant: Tenant, opts: { prefix?: string; name?: string } = {}): Promise<TeamFixture> {
  const prefix =
    opts.prefix ?? `T${(Date.now() % 100000).toString(36).toUpperCase()}${(teamCounter++).toString(36).toUpperCase()}`.slice(0, 10);
  const name = opts.name ?? `Team ${prefix}`;
  return withDb(async (db) => {
    const [team] = await db
      .insert(teams)
      .values({ id: newId("team"), workspaceId: tenant.workspaceId, name, prefix })
      .returning();
    await db
      .insert(teamMembers)
      .values({ id: newId("tmbr"), workspaceId: tenant.workspaceId, teamId: team.id, userId: tenant.owner.userId, role: "OWNER" });
    return { id: team.id, name, prefix, workspaceId: tenant.workspaceId };
  });
}

/**
 * Tasks 1..`count` of `team`, written in SQL 10,000 a statement, for the files that read or rewrite a team of that size
 * and do not test how tasks are made. Task 1 is written as any insert is, with its triggers, and so takes the team's
 * state as the state trigger chooses it; the others copy it without the tasks' triggers (`session_replication_role =
 * replica`, in the seed's own transaction): no creation event, inbox row or foreign-key check per task, which took three
 * quarters of a 100,000-task seed (about 32 s against 8 on a quiet machine). Then the table is analyzed, as autovacuum
 * would after such a load.
 */
export async function insertTasksInSql(team: TeamFixture, count: number): Promise<void> {
  await withDb(async (db) => {
    await db.execute(sql`insert into tasks (id, workspace_id, team_id, number, title, description)
      values (pm_typeid('task'), ${team.workspaceId}, ${team.id}, 1, 'task 1', repeat('words ', 20))`);
    await db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      for (let from = 2; from <= count; from += 10_000)
        await tx.execute(sql`insert into tasks (id, workspace_id, team_id, number, title, description, status, status_category)
          select pm_typeid('task'), t.workspace_id, t.team_id, g, 'task ' || g, t.description, t.status, t.status_category
          from generate_series(${from}::int, ${Math.min(from + 9_999, count)}::int) g, tasks t
          where t.team_id = ${team.id} and t.number = 1`);
    });
    // Without statistics the planner takes the new rows for a few.
    await db.execute(sql`analyze tasks`);
  }, 240_000);
}

/** Puts a workspace member into a team with a team role. */
export function joinTeam(team: TeamFixture, member: Member, role: "VIEWER" | "MEMBER" | "ADMIN" | "OWNER" = "MEMBER"): Promise<string> {
  return withDb(async (db) => {
    const id = newId("tmbr");
    await db.insert(teamMembers).values({ id, workspaceId: team.workspaceId, teamId: team.id, userId: member.userId, role });
    return id;
  });
}
