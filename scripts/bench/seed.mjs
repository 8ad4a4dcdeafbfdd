// Bulk seeding for the benchmark: one workspace with a team, members, labels, projects, milestones, tasks (two labels
// each) and comments, built inside PostgreSQL from generate_series: nothing is built row by row in Node, so a million
// tasks take under two minutes on the bench's two cores (docs/performance.md, "A million tasks"). It needs a superuser.
//
// The rows are the ones the API would have written, their events included. The workspace, its people, the team, labels,
// projects, milestones and comments go in with the event triggers on (migration 0011), which write their events as for
// any write. The tasks go in chunks, each one transaction of a seeding session with the triggers off
// (`session_replication_role = replica`: at a million rows the triggers would dominate the seed, and one transaction
// holds at most 2^20 positions), and each chunk writes its tasks' `task.created` events itself, in the same statement,
// as the triggers would have: the task as stored (pm_image), its labels, the actor, a position the chunk's transaction
// reserved (pm_reserve_positions). The generated search_vector is computed by the insert either way.
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";

// Varied words in task titles and descriptions, so GET /search has matches of both weights to rank.
const SEARCH_WORDS = [
  "login",
  "payment",
  "cache",
  "invoice",
  "export",
  "billing",
  "timeout",
  "webhook",
  "retry",
  "latency",
  "onboarding",
  "dashboard",
  "migration",
];
/** Tasks per transaction; SESSIONS sessions seed chunks side by side (the bench machine has two cores). */
const CHUNK = 50_000;
const SESSIONS = 2;
/**
 * From this many tasks on, the non-unique indexes of tasks, task_labels and events are dropped for the load and built
 * again from their own definitions (pg_get_indexdef) afterwards: sorting a million keys once costs about half of
 * inserting them one by one into 15 indexes. The unique ones stay, and with them every uniqueness check and the event
 * triggers' ON CONFLICT target. Below it, maintaining them row by row is the cheaper.
 */
const REBUILD_FROM = 100_000;
/** The indexes a large seed rebuilds, the search's GIN first (the longest to build). */
const REBUILT_INDEXES = `select c.relname as name, pg_get_indexdef(i.indexrelid) as definition from pg_index i join pg_class c on c.oid = i.indexrelid
  where i.indrelid in ('tasks'::regclass, 'task_labels'::regclass, 'events'::regclass) and not i.indisunique
  order by c.relname = 'tasks_search_idx' desc, c.relname`;

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";
/** `n` Crockford base32 digits of the bigint SQL expression `value`, most significant first. */
const base32 = (value, n) =>
  Array.from({ length: n }, (_, i) => `substr('${CROCKFORD}', ((${value} >> ${5 * (n - 1 - i)}) & 31)::int + 1, 1)`).join(" || ");

/**
 * pg_temp.seed_id(prefix, ms): a TypeID as src/ids.ts makes (`<prefix>_`, then the Crockford base32 of a UUIDv7) for the
 * millisecond `ms`, so ids sort by the time their rows claim. Its 10 first digits are the 48 bits of `ms`; the 16 others
 * hold the version (7), the variant and 56 random bits, spelled with the hex digits of a gen_random_uuid() (hex digits are
 * the base32 digits 0-15), which spares encoding them one by one. Session-local (pg_temp): the schema is left as it is.
 */
const SEED_ID_FUNCTION = `create or replace function pg_temp.seed_id(prefix text, ms bigint) returns text language sql volatile as $$
  select prefix || '_' || ${base32("ms", 10)}
    || overlay(overlay(substr(replace(gen_random_uuid()::text, '-', ''), 17, 16) placing 'e' from 1 for 1) placing '8' from 4 for 1)
$$`;

/**
 * The tasks numbered $9 + 1 … $10, their label links and their events: one statement. `columns` are the tasks' stored
 * columns: the events' images are pm_image of the row as stored, without the generated search_vector, which pm_image drops
 * anyway (rendering it as text first would be most of an event's cost).
 */
const taskChunk = (columns) => `
with p as (
  select $1::text as ws, $2::text as team, $3::text as prefix, $4::bigint as base, $5::text[] as users, $6::text[] as labels,
    $7::text[] as projects, $8::text[] as words, $9::bigint as lo, $10::bigint as hi, $11::text as actor,
    pm_reserve_positions(($10::bigint - $9::bigint)::int) as first_position
), t as (
  insert into tasks (id, workspace_id, team_id, number, title, description, status, status_category, started_at, completed_at,
    canceled_at, priority, due_date, project_id, assignee_id, created_at)
  select pg_temp.seed_id('task', p.base + i), p.ws, p.team, i + 1,
    'Task ' || i + 1 || ' ' || case when i % 7 = 0 then 'deploy pipeline' else 'write docs' end || ' ' || p.words[i % 13 + 1],
    'Description of task ' || i + 1 || ': the ' || p.words[(i * 7 + 3) % 13 + 1] || ' step fails after the '
      || p.words[(i * 5 + 1) % 13 + 1] || ' change',
    -- The team's default states, and what the trigger pm_task_state (off here) would keep: the category and when it began.
    ('{BACKLOG,TODO,IN_PROGRESS,IN_REVIEW,DONE,CANCELED}'::text[])[i % 6 + 1],
    ('{backlog,unstarted,started,started,completed,canceled}'::state_category[])[i % 6 + 1],
    case when i % 6 in (2, 3) then timestamptz 'epoch' + (p.base + i) * interval '1 ms' end,
    case when i % 6 = 4 then timestamptz 'epoch' + (p.base + i) * interval '1 ms' end,
    case when i % 6 = 5 then timestamptz 'epoch' + (p.base + i) * interval '1 ms' end,
    ('{NONE,LOW,MEDIUM,HIGH,URGENT}'::task_priority[])[i % 5 + 1],
    case when i % 3 <> 0 then ((timestamptz 'epoch' + (p.base + i * 8640000) * interval '1 ms') at time zone 'UTC')::date end,
    case when i % 4 = 0 then p.projects[i % cardinality(p.projects) + 1] end,
    p.users[i % cardinality(p.users) + 1],
    timestamptz 'epoch' + (p.base + i) * interval '1 ms'
  from p, generate_series(p.lo, p.hi - 1) i
  returning ${columns}
), linked as (
  -- Labels i and i + 5 of the workspace's, sorted as pm_labels_of lists them.
  select t.id, t.number, pm_image(t) as image, array[least(l.a, l.b), greatest(l.a, l.b)] as label_ids
  from t, p, lateral (select p.labels[(t.number - 1) % cardinality(p.labels) + 1] as a,
    p.labels[(t.number + 4) % cardinality(p.labels) + 1] as b) l
), links as (
  insert into task_labels (task_id, label_id) select linked.id, unnest(linked.label_ids) from linked
)
insert into events (id, workspace_id, xact, position, type, resource_type, resource_id, reference, team_id, actor_id, new_image,
  labels_after, labels_added, labels_removed)
select pg_temp.seed_id('evt', (extract(epoch from now()) * 1000)::bigint), p.ws, p.first_position >> 20,
  p.first_position + linked.number - p.lo, 'task.created', 'task', linked.id, p.prefix || '-' || linked.number, p.team, p.actor,
  linked.image, linked.label_ids, linked.label_ids, '{}'
from linked, p`;

/** The tasks' stored (not generated) columns, as a select list. */
const STORED_TASK_COLUMNS = `select string_agg(quote_ident(attname), ', ' order by attnum) as columns from pg_attribute
  where attrelid = 'tasks'::regclass and attnum > 0 and not attisdropped and attgenerated = ''`;

async function connect(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(SEED_ID_FUNCTION);
  return client;
}

/** Runs `work(client)` in one transaction. */
async function transaction(client, work) {
  await client.query("begin");
  try {
    const result = await work(client);
    await client.query("commit");
    return result;
  } catch (err) {
    await client.query("rollback").catch(() => {});
    throw err;
  }
}

const insertedIds = async (client, sql, params) => (await client.query(sql, params)).rows.map((r) => r.id);

/**
 * The workspace and everything in it but the tasks and comments, with the triggers on. Ids are made for `base` + i ms
 * (projects: their created_at), so each list below is in creation order; the first user is the OWNER, who holds the key.
 */
async function seedSmallRecords(client, { base, tag, prefix, tasks, projects, labels, members }) {
  const [{ id: workspaceId }] = (
    await client.query("insert into workspaces (id, name, slug) values (pg_temp.seed_id('ws', $1), $2, $3) returning id", [
      base,
      `Bench ${tag}`,
      `bench-${tag}`,
    ])
  ).rows;
  const userIds = await insertedIds(
    client,
    `insert into users (id, name, email)
     select pg_temp.seed_id('user', $1::bigint + i), 'Bench User ' || i, 'bench-' || $2 || '-' || i || '@example.com' from generate_series(0, $3 - 1) i
     returning id`,
    [base, tag, members],
  );
  userIds.sort();
  await client.query(
    `insert into workspace_members (workspace_id, user_id, role)
     select $1, u, case when n = 1 then 'OWNER' else 'MEMBER' end::workspace_role from unnest($2::text[]) with ordinality m(u, n) order by n`,
    [workspaceId, userIds],
  );
  // Twenty more members, outside the tasks' assignees, and their handles (made by the database): the comment that
  // mentions twenty people (docs/api.md, "Inbox") names them.
  const handles = (
    await client.query(
      `with u as (insert into users (id, name, email)
         select pg_temp.seed_id('user', $1::bigint + 100000 + i), 'Bench Mentioned ' || i, 'bench-' || $2 || '-m' || i || '@example.com'
         from generate_series(0, 19) i returning id, handle),
       m as (insert into workspace_members (workspace_id, user_id) select $3, id from u)
       select handle from u order by handle`,
      [base, tag, workspaceId],
    )
  ).rows.map((r) => r.handle);
  const apiKey = `pmk_${randomBytes(32).toString("base64url")}`;
  await client.query(
    "insert into api_keys (id, workspace_id, user_id, name, prefix, key_hash) values (pg_temp.seed_id('apik', $1), $2, $3, 'bench', $4, $5)",
    [base, workspaceId, userIds[0], apiKey.slice(0, 10), createHash("sha256").update(apiKey).digest("hex")],
  );
  const [{ id: teamId }] = (
    await client.query(
      `insert into teams (id, workspace_id, name, prefix, task_counter, project_counter)
       values (pg_temp.seed_id('team', $1), $2, 'Bench team', $3, $4, $5) returning id`,
      [base, workspaceId, prefix, tasks, projects],
    )
  ).rows;
  const membershipIds = await insertedIds(
    client,
    `insert into team_members (id, workspace_id, team_id, user_id, role)
     select pg_temp.seed_id('tmbr', $1::bigint + n), $2, $3, u, case when n = 1 then 'OWNER' else 'MEMBER' end::team_role
     from unnest($4::text[]) with ordinality m(u, n) order by n returning id`,
    [base, workspaceId, teamId, userIds],
  );
  const labelIds = await insertedIds(
    client,
    `insert into labels (id, workspace_id, name, name_key, color)
     select pg_temp.seed_id('label', $1::bigint + i), $2, 'label-' || i, 'label-' || i, '#' || upper(left(to_hex(1048576 + i * 40000), 6))
     from generate_series(0, $3 - 1) i returning id`,
    [base, workspaceId, labels],
  );
  const projectIds = await insertedIds(
    client,
    `insert into projects (id, workspace_id, team_id, number, name, status, created_at)
     select pg_temp.seed_id('proj', $1::bigint + i * 10), $2, $3, i + 1, 'Project ' || i + 1,
       case when i % 2 = 1 then 'ACTIVE' else 'PLANNING' end::project_status, timestamptz 'epoch' + ($1::bigint + i * 10) * interval '1 ms'
     from generate_series(0, $4 - 1) i returning id`,
    [base, workspaceId, teamId, projects],
  );
  const milestoneIds = await insertedIds(
    client,
    `insert into milestones (id, workspace_id, project_id, name)
     select pg_temp.seed_id('mile', $1::bigint + n), $2, p, 'Milestone ' || n from unnest($3::text[]) with ordinality m(p, n) returning id`,
    [base, workspaceId, projectIds.slice(0, 10)],
  );
  for (const list of [membershipIds, labelIds, projectIds, milestoneIds]) list.sort();
  return { apiKey, workspaceId, teamId, userIds, handles, labelIds, membershipIds, milestoneIds, projectIds };
}

/** `work(client)` on each of `sessions` sessions of their own, side by side. */
async function inSessions(databaseUrl, sessions, work) {
  await Promise.all(
    Array.from({ length: sessions }, async () => {
      const client = await connect(databaseUrl);
      try {
        await work(client);
      } finally {
        await client.end();
      }
    }),
  );
}

/** The tasks in chunks of CHUNK, SESSIONS transactions at a time, each in a session with the triggers off. */
async function seedTasks(databaseUrl, w, { base, prefix, tasks }) {
  const chunks = [];
  for (let lo = 0; lo < tasks; lo += CHUNK) chunks.push([lo, Math.min(tasks, lo + CHUNK)]);
  await inSessions(databaseUrl, Math.min(SESSIONS, chunks.length), async (client) => {
    const chunk = taskChunk((await client.query(STORED_TASK_COLUMNS)).rows[0].columns);
    await client.query("set session_replication_role = replica");
    for (let next = chunks.shift(); next; next = chunks.shift()) {
      const [lo, hi] = next;
      const params = [w.workspaceId, w.teamId, prefix, base, w.userIds, w.labelIds, w.projectIds, SEARCH_WORDS, lo, hi, w.userIds[0]];
      await transaction(client, (c) => c.query(chunk, params));
    }
  });
}

/** `load()` without the non-unique indexes of tasks, task_labels and events, which are built again afterwards, whatever happened. */
async function withIndexesRebuilt(client, databaseUrl, load) {
  const indexes = (await client.query(REBUILT_INDEXES)).rows;
  await client.query(`drop index ${indexes.map((i) => `"${i.name}"`).join(", ")}`);
  try {
    await load();
  } finally {
    await inSessions(databaseUrl, SESSIONS, async (builder) => {
      // Each session builds one index at a time, in memory; the sessions take the cores.
      await builder.query("set maintenance_work_mem = '512MB'");
      await builder.query("set max_parallel_maintenance_workers = 0");
      for (let next = indexes.shift(); next; next = indexes.shift()) await builder.query(next.definition);
    });
  }
}

/** A chain of 1,000 `blocks` edges from this task number on (workspaces of 5,000 tasks and more). */
export const BLOCKS_CHAIN_HEAD = 2001;
const BLOCKS_CHAIN = 1000;

/**
 * Task relations: every 50th task blocks the next one (2 % blocked, while their blockers' seeded status is
 * open) for the `isBlocked` lists, and in a workspace of 5,000 tasks or more a chain of 1,000 `blocks` edges
 * (tasks 2001 … 3001) for the cycle check's row. Their events by the OWNER, as the comments'.
 */
async function seedRelations(c, w, { base, tasks }) {
  await c.query("select set_config('pm.ctx', $1, true)", [JSON.stringify({ actor: w.userIds[0] })]);
  await c.query(
    `insert into task_relations (id, workspace_id, type, source_task_id, target_task_id, source_team_id, target_team_id, creator_id)
     select pg_temp.seed_id('rel', $1::bigint + s.number), $2, 'blocks', s.id, t.id, $3, $3, $4
     from tasks s join tasks t on t.team_id = s.team_id and t.number = s.number + 1
     where s.team_id = $3 and s.number % 50 = 0`,
    [base, w.workspaceId, w.teamId, w.userIds[0]],
  );
  if (tasks < 5000) return;
  await c.query(
    `insert into task_relations (id, workspace_id, type, source_task_id, target_task_id, source_team_id, target_team_id, creator_id)
     select pg_temp.seed_id('rel', $1::bigint + $6 + s.number), $2, 'blocks', s.id, t.id, $3, $3, $4
     from tasks s join tasks t on t.team_id = s.team_id and t.number = s.number + 1
     where s.team_id = $3 and s.number between $5 and $5 + ${BLOCKS_CHAIN} - 1 and s.number % 50 <> 0`,
    [base, w.workspaceId, w.teamId, w.userIds[0], BLOCKS_CHAIN_HEAD, tasks],
  );
}

/**
 * @returns {Promise<{ apiKey: string, workspaceId: string, teamId: string, prefix: string, taskIds?: string[], projectIds: string[],
 *   userIds: string[], labelIds: string[], membershipIds: string[], milestoneIds: string[], commentIds: string[] }>}
 * `taskIds` in number order (unless `taskIds: false`: reading a million ids back costs seconds); `commentIds` are the
 * comments of the key's user (the OWNER), who may edit them. Task n was created at the seed's base + n - 1 ms, so the
 * tasks' default list order (createdAt, id) is their number order.
 */
export async function seedWorkspace(
  databaseUrl,
  { tasks = 10_000, projects = 200, comments = 2_000, labels = 12, members = 8, prefix = "BEN", taskIds = true } = {},
) {
  const opts = { base: Date.now() - 3600_000, tag: randomBytes(4).toString("hex"), prefix, tasks, projects, labels, members };
  const client = await connect(databaseUrl);
  try {
    const w = await transaction(client, (c) => seedSmallRecords(c, opts));
    const load = () => seedTasks(databaseUrl, w, opts);
    await (tasks >= REBUILD_FROM ? withIndexesRebuilt(client, databaseUrl, load) : load());
    // The comments' events by the OWNER, as the small records' are (the first member to join is their actor).
    const commentIds = await transaction(client, async (c) => {
      await c.query("select set_config('pm.ctx', $1, true)", [JSON.stringify({ actor: w.userIds[0] })]);
      const { rows } = await c.query(
        `insert into comments (id, workspace_id, author_id, content, task_id)
         select pg_temp.seed_id('cmnt', $1::bigint + i), $2, ($3::text[])[i % cardinality($3::text[]) + 1], 'Comment ' || i, t.id
         from generate_series(0, $4 - 1) i join tasks t on t.team_id = $5 and t.number = i % $6 + 1
         returning id, author_id`,
        [opts.base, w.workspaceId, w.userIds, comments, w.teamId, tasks],
      );
      return rows
        .filter((r) => r.author_id === w.userIds[0])
        .map((r) => r.id)
        .sort();
    });
    // The relations join tasks to tasks by number: without statistics for the rows just loaded, the planner takes the
    // table for empty and scans it once per blocking task (20,000 scans of a million rows).
    await client.query("analyze tasks");
    await transaction(client, (c) => seedRelations(c, w, opts));
    const ids = taskIds
      ? (await client.query("select coalesce(array_agg(id order by number), '{}') as ids from tasks where team_id = $1", [w.teamId]))
          .rows[0].ids
      : undefined;
    // Bulk-loaded pages get their visibility map and statistics now, as autovacuum would give them later (mid-run), and
    // the seed's writes reach the data files now, not in a checkpoint during the measurements that follow.
    await client.query("vacuum (analyze) tasks, task_labels, task_relations, events, comments, projects, milestones, labels, users, teams");
    await client.query("checkpoint");
    return { ...w, prefix, taskIds: ids, commentIds };
  } finally {
    await client.end();
  }
}
