// GET /{tasks|projects|teams|workspaces}/{id}/export: the resource and everything under it. PostgreSQL builds every
// record's JSON and the Worker only joins text, never parsing a record. An export whose tasks, comments and parts (the
// collections hanging on tasks, parts.ts) fit in one page each is one statement; a larger one streams, page by page,
// from one read-only REPEATABLE READ snapshot, so the Worker holds a page at a time, never the document (docs/api.md,
// export and import; measured in docs/performance.md).
import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import {
  comments,
  fieldDefinitions,
  labels,
  milestones,
  projectLabels,
  projects,
  taskLabels,
  tasks,
  teamMembers,
  teams,
  users,
  workspaceMembers,
  workspaces,
} from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { requireUnbound, requireWorkspaceRole } from "../../auth/roles";
import { notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { inTeams, type TeamScope } from "../../db/scope";
import { fieldRecord } from "../../records/fields";
import { namesAny } from "../../records/names";
import { isoTimestamp } from "../../store/field-map";
import type { ExportScope, ExportType, TransferPart } from "../../store/transfer-part";
import { commentRecord } from "../comments/record";
import { labelRecord } from "../labels/record";
import { milestoneRecord } from "../milestones/record";
import { projectRecord } from "../projects/record";
import { taskRecord } from "../tasks/record";
import type { Parts } from "./parts";

/** Records per page of the streamed collections (tasks, comments): a page's text is a few hundred kB. */
export const EXPORT_PAGE = 1000;

const times = (alias: string) =>
  sql`'createdAt', ${isoTimestamp(sql.raw(`${alias}.created_at`))}, 'updatedAt', ${isoTimestamp(sql.raw(`${alias}.updated_at`))}`;
/** `json_agg` of `row`, in `order`, as JSON text; `[]` when there is nothing. */
const agg = (row: SQL, from: SQL, order: string) => sql`(select coalesce(json_agg(${row} order by ${sql.raw(order)}), '[]')::text ${from})`;

/** The root row's id in the caller's reach (its workspace, within its teams), by id or name (`ENG`, `ENG-12`, `ENG-P3`). */
function rootId(type: ExportType, idOrRef: string, workspace: string, reach: TeamScope): SQL {
  if (type === "workspace") return sql`(select id from ${workspaces} where id = ${workspace})`;
  const [table, team] = type === "team" ? [teams, sql`r.id`] : [type === "task" ? tasks : projects, sql`r.team_id`];
  return sql`(select r.id from ${table} r where r.workspace_id = ${workspace} and ${namesAny(type, sql`r.id`, [idOrRef], workspace)} and ${inTeams(reach, team)})`;
}

/** What an export of `type` holds, given its root (the `root` CTE): the scope CTEs' bodies, and the condition on a task. */
function scope(type: ExportType, workspace: string) {
  const inWorkspace = sql`workspace_id = ${workspace}`;
  switch (type) {
    case "task":
      return {
        // `union`, not `union all`: each task is taken once, so the walk ends after the subtree even if it held a cycle.
        tasks: sql`select id from ${tasks} where id = (select id from root) union select t.id from ${tasks} t join scope_tasks s on t.parent_id = s.id`,
        projects: sql`select id from ${projects} where false`,
        teams: sql`select id from ${teams} where false`,
        taskTeams: sql`select team_id from ${tasks} where id = (select id from root)`,
        task: sql`${tasks.id} in (select id from scope_tasks)`,
      };
    case "project":
      return {
        tasks: sql`select id from ${tasks} where project_id = (select id from root)`,
        projects: sql`select id from root`,
        teams: sql`select id from ${teams} where false`,
        taskTeams: sql`select team_id from ${projects} where id = (select id from root)`,
        task: sql`${tasks.projectId} = (select id from root)`,
      };
    case "team":
      return {
        tasks: sql`select id from ${tasks} where team_id = (select id from root)`,
        projects: sql`select id from ${projects} where team_id = (select id from root)`,
        teams: sql`select id from root`,
        taskTeams: sql`select id from root`,
        task: sql`true`,
      };
    case "workspace":
      return {
        tasks: sql`select id from ${tasks} where ${inWorkspace} and exists (select 1 from root)`,
        projects: sql`select id from ${projects} where ${inWorkspace} and exists (select 1 from root)`,
        teams: sql`select id from ${teams} where ${inWorkspace} and exists (select 1 from root)`,
        taskTeams: sql`select id from ${teams} where ${inWorkspace} and exists (select 1 from root)`,
        task: sql`true`,
      };
  }
}

/** One export being built: what it is of, in whose reach, with which parts. */
interface ExportSpec {
  type: ExportType;
  workspace: string;
  parts: Parts;
  /** The root as SQL: found by id or reference in the reach (the first statement), then its id (the pages). */
  root: SQL;
}

/** Every statement starts with the root and the scope CTEs. */
function scopes({ type, workspace, root, parts }: ExportSpec): SQL {
  const s = scope(type, workspace);
  return sql`with recursive
    root as (select ${root} as id),
    scope_tasks(id) as (${s.tasks}),
    scope_projects as (${s.projects}),
    scope_teams as (${s.teams}),
    scope_milestones as (select id from ${milestones} where project_id in (select id from scope_projects)),
    scope_comments as (${commentScope(commentCondition(type, workspace))}),
    ${sql.join(
      parts.all.map(({ collection, export: { table, condition } }) => {
        return sql`${sql.identifier(`scope_${collection}`)} as (select ${table.id} from ${table} where ${condition(partScope(type, workspace))})`;
      }),
      sql`,
    `,
    )}`;
}

/**
 * The comments an export holds: the workspace's, or those on its tasks, projects and milestones. A task's is tested
 * with its task's row (a lookup by key per comment), not against the set of the export's tasks, which a page of a large
 * team would build anew each time.
 */
function commentCondition(type: ExportType, workspace: string): SQL {
  const inWorkspace = sql`${comments.workspaceId} = ${workspace}`;
  const onTask = {
    task: sql`${comments.taskId} in (select id from scope_tasks)`,
    project: sql`exists (select 1 from ${tasks} t where t.id = ${comments.taskId} and t.project_id = (select id from root))`,
    team: sql`exists (select 1 from ${tasks} t where t.id = ${comments.taskId} and t.team_id = (select id from root))`,
  };
  if (type === "workspace") return sql`${inWorkspace} and exists (select 1 from root)`;
  return sql`${inWorkspace} and (${onTask[type]} or ${comments.projectId} in (select id from scope_projects)
    or ${comments.milestoneId} in (select id from scope_milestones))`;
}
/**
 * What an export holds, as a part's condition builds on it. A table hanging on tasks: the rows of the export's tasks
 * (found by their team for a team, by their task's row for a project); a comment's carries its task's id too.
 */
const partScope = (type: ExportType, workspace: string): ExportScope => ({
  type,
  workspace,
  root: sql`(select id from root)`,
  tasks: sql`(select id from scope_tasks)`,
  teams: sql`(${scope(type, workspace).taskTeams})`,
  onTasks(l) {
    const of = {
      workspace: sql`exists (select 1 from root)`,
      team: sql`${l.teamId} = (select id from root)`,
      project: sql`exists (select 1 from ${tasks} t where t.id = ${l.taskId} and t.project_id = (select id from root))`,
      task: sql`${l.taskId} in (select id from scope_tasks)`,
    };
    return sql`${l.workspaceId} = ${workspace} and ${of[type]}`;
  },
});
const commentScope = (condition: SQL) => sql`select ${comments.id} from ${comments} where ${condition}`;

/** Every collection an export pages, in the document's order. */
const paged = (parts: Parts) => ["tasks", "comments", ...parts.all.map((p) => p.collection)];

/**
 * The first page of tasks (in team prefix, number order) and of comments, and whether either has more: each page's
 * rows are picked first (their order keys only), so only they are turned into JSON, however large the export.
 */
function firstPages(spec: ExportSpec): SQL {
  const page = (record: { exportJson(): SQL; from: SQL }, id: SQLWrapper, where: SQL, order: SQL) =>
    sql`(select coalesce(json_agg(p.j order by p.n) filter (where p.n <= ${EXPORT_PAGE}), '[]')::text as rows, count(*) > ${EXPORT_PAGE} as more
      from (select ${record.exportJson()} as j, picked.n from ${record.from} join (select ${id} as id, row_number() over (order by ${order}) as n
        from ${record.from} where ${where} order by ${order} limit ${EXPORT_PAGE + 1}) picked on ${id} = picked.id) p)`;
  const s = scope(spec.type, spec.workspace);
  const created = spec.parts.all.map(({ collection, export: { table, condition, record } }) => {
    const rows = page(
      { ...record, from: sql`${table}` },
      table.id,
      condition(partScope(spec.type, spec.workspace)),
      sql`${table.createdAt}, ${table.id}`,
    );
    return sql`cross join lateral ${rows} ${sql.identifier(`first_${collection}`)}`;
  });
  return sql`cross join lateral ${page(taskRecord, tasks.id, sql`${tasks.teamId} in (${s.taskTeams}) and ${s.task}`, sql`${teams.prefix}, ${tasks.number}`)} first_tasks
    cross join lateral ${page(commentRecord, comments.id, commentCondition(spec.type, spec.workspace), sql`${comments.createdAt}, ${comments.id}`)} first_comments
    ${sql.join(
      created,
      sql`
    `,
    )}`;
}

/** What an export's records point at: user ids, label ids and custom field keys (each a query of one column). */
interface Pointed {
  users: SQL;
  labels: SQL;
  keys: SQL;
}

/**
 * The users, labels and fields an export carries, as JSON text: those its records point at (users: members of the
 * workspace only); a workspace export: all of the workspace's (its members are whom every record points at).
 */
function pointedJson({ type, workspace }: ExportSpec, pointed: Pointed, only: SQL = sql`true`): SQL {
  const whole = type === "workspace";
  // `only`: the condition they are read on (a large export's first statement leaves them to its pages).
  const when = (value: SQL) => sql`case when ${only} then ${value} end`;
  return sql`${when(
    agg(
      sql`json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'avatarUrl', u.avatar_url, 'type', u.type)`,
      sql`from ${users} u join ${workspaceMembers} wm on wm.user_id = u.id and wm.workspace_id = ${workspace}
        ${whole ? sql`` : sql`where u.id in (${pointed.users})`}`,
      "u.id",
    ),
  )} as users,
    ${when(
      agg(
        labelRecord.exportJson(),
        sql`from ${labelRecord.from} where ${labels.workspaceId} = ${workspace} ${whole ? sql`` : sql`and ${labels.id} in (${pointed.labels})`}`,
        `"labels"."created_at", "labels"."id"`,
      ),
    )} as labels,
    ${when(
      agg(
        fieldRecord.exportJson(),
        sql`from ${fieldRecord.from} where ${fieldDefinitions.workspaceId} = ${workspace} ${whole ? sql`` : sql`and ${fieldDefinitions.key} in (${pointed.keys})`}`,
        `"field_definitions"."created_at", "field_definitions"."id"`,
      ),
    )} as fields`;
}

/** The values of the `user` custom fields of `table`'s records in `scoped` (a scope CTE's name). */
const userValues = (workspace: string, table: typeof tasks | typeof projects | typeof milestones, scoped: string) =>
  sql`select v.value #>> '{}' from ${table} r cross join jsonb_each(r.custom_fields) v join ${fieldDefinitions} f
    on f.workspace_id = ${workspace} and f.key = v.key and f.type = 'user' where r.id in (select id from ${sql.raw(scoped)})`;
/** The custom field keys `table`'s records in `scoped` use. */
const usedKeys = (table: typeof tasks | typeof projects | typeof milestones, scoped: string) =>
  sql`select jsonb_object_keys(r.custom_fields) from ${table} r where r.id in (select id from ${sql.raw(scoped)})`;

/** What the export's teams, projects and milestones point at: members, leads, labels, custom values and keys. */
function pointedByHead(workspace: string): Pointed {
  return {
    users: sql`select user_id from ${teamMembers} where team_id in (select id from scope_teams)
      union select lead_id from ${projects} where id in (select id from scope_projects)
      union ${userValues(workspace, projects, "scope_projects")} union ${userValues(workspace, milestones, "scope_milestones")}`,
    labels: sql`select label_id from ${projectLabels} where project_id in (select id from scope_projects)`,
    keys: sql`${usedKeys(projects, "scope_projects")} union ${usedKeys(milestones, "scope_milestones")}`,
  };
}

/** What the tasks in `scoped` (a CTE of ids) point at: assignees, delegates, `user` custom values, labels and custom field keys. */
function pointedByTasks(workspace: string, scoped: string): Pointed {
  return {
    users: sql`select assignee_id from ${tasks} where id in (select id from ${sql.raw(scoped)})
      union select delegate_id from ${tasks} where id in (select id from ${sql.raw(scoped)})
      union ${userValues(workspace, tasks, scoped)}`,
    labels: sql`select label_id from ${taskLabels} where task_id in (select id from ${sql.raw(scoped)})`,
    keys: usedKeys(tasks, scoped),
  };
}

/** What every record of the export points at, in one statement: an export small enough to be one. */
function pointedByAll(workspace: string, parts: Parts): Pointed {
  const head = pointedByHead(workspace);
  const byTasks = pointedByTasks(workspace, "scope_tasks");
  return {
    users: sql`${head.users} union ${byTasks.users} union select author_id from ${comments} where id in (select id from scope_comments)
      ${sql.join(
        parts.all.map(({ collection, export: { table, creator } }) => {
          return sql`union select ${creator ?? sql`null::text`} from ${table} where ${table.id} in (select id from ${sql.identifier(`scope_${collection}`)})`;
        }),
        sql` `,
      )}`,
    labels: sql`${head.labels} union ${byTasks.labels}`,
    keys: sql`${head.keys} union ${byTasks.keys}`,
  };
}

type Head = {
  root: string | null;
  workspace: string | null;
  teams: string;
  projects: string;
  milestones: string;
  /** The teams whose tasks the export holds, in prefix order (the streamed tasks go team by team). */
  task_teams: string[];
  /** What the teams, projects and milestones point at (a streamed export resolves them with its pages'). */
  head_users: string[];
  head_labels: string[];
  head_keys: string[];
  /** In one statement: the users, labels and fields, and the first page of each paged collection, with whether more follow. */
  users?: string;
  labels?: string;
  fields?: string;
  [page: `page_${string}`]: string | undefined;
  [more: `more_${string}`]: boolean | undefined;
};

/**
 * Everything but the tasks and comments, in one statement. `whole`: also the users, labels and fields every record
 * points at, and the first pages, for an export that fits in one statement; a streamed one (`whole` false) reads no row
 * of its tasks or comments here, so no statement of it grows with them.
 */
async function readHead(db: Executor, spec: ExportSpec, whole: boolean): Promise<Head> {
  const { type, workspace } = spec;
  const teamRow = sql`json_build_object('id', tm.id, 'name', tm.name, 'prefix', tm.prefix, 'description', tm.description,
    'parentId', tm.parent_id, 'members', (select coalesce(json_agg(json_build_object('id', mb.id, 'userId', mb.user_id, 'role', mb.role)
      order by mb.created_at, mb.id), '[]') from ${teamMembers} mb where mb.team_id = tm.id), ${times("tm")})`;
  const workspaceRow = sql`(select json_build_object('id', w.id, 'name', w.name, 'slug', w.slug, 'members', (select coalesce(json_agg(
      json_build_object('userId', wm.user_id, 'role', wm.role) order by wm.created_at, wm.user_id), '[]')
      from ${workspaceMembers} wm where wm.workspace_id = w.id))::text from ${workspaces} w where w.id = (select id from root))`;
  const s = scope(type, workspace);
  const head = pointedByHead(workspace);
  const collections = paged(spec.parts);

  const { rows } = await db.execute<Head>(sql`${scopes(spec)}
    select (select id from root) as root,
      ${type === "workspace" ? workspaceRow : sql`null`} as workspace,
      ${agg(teamRow, sql`from ${teams} tm where tm.id in (select id from scope_teams)`, "tm.created_at, tm.id")} as teams,
      ${agg(projectRecord.exportJson(), sql`from ${projectRecord.from} where ${projects.id} in (select id from scope_projects)`, `"teams"."prefix", "projects"."number"`)} as projects,
      ${agg(milestoneRecord.exportJson(), sql`from ${milestoneRecord.from} where ${milestones.id} in (select id from scope_milestones)`, `"milestones"."created_at", "milestones"."id"`)} as milestones,
      array(select tt.id from ${teams} tt where tt.id in (${s.taskTeams}) order by tt.prefix) as task_teams,
      array(${head.users}) as head_users, array(${head.labels}) as head_labels, array(${head.keys}) as head_keys
      ${
        whole
          ? sql`, ${pointedJson(spec, pointedByAll(workspace, spec.parts), sql`not (${sql.raw(collections.map((kind) => `first_${kind}.more`).join(" or "))})`)},
            ${sql.raw(collections.map((kind) => `first_${kind}.rows as page_${kind}, first_${kind}.more as more_${kind}`).join(", "))}
            from (select 1) one ${firstPages(spec)}`
          : sql``
      }`);
  return rows[0];
}

/**
 * A page of one team's tasks after task number `after`, each as JSON text, and on its last row what the page points at
 * (pointedByTasks: the rule of a whole export, over the page's ids), so the Worker parses three arrays a page, not a row.
 */
async function taskPage(db: Executor, spec: ExportSpec, team: string, after: number) {
  const pointed = pointedByTasks(spec.workspace, "page");
  const { rows } = await db.execute<{ j: string; k: number; users: string[] | null; labels: string[] | null; keys: string[] | null }>(
    sql`${scopes(spec)},
    page as (select ${tasks.id} from ${tasks} where ${tasks.teamId} = ${team} and ${tasks.number} > ${after}
      and ${scope(spec.type, spec.workspace).task} order by ${tasks.number} limit ${EXPORT_PAGE}),
    paged as (select ${taskRecord.exportJson()}::text as j, ${tasks.number} as k,
      row_number() over (order by ${tasks.number} desc) = 1 as last
      from ${taskRecord.from} where ${tasks.id} in (select id from page))
    select j, k, case when last then array(${pointed.users}) end as users, case when last then array(${pointed.labels}) end as labels,
      case when last then array(${pointed.keys}) end as keys
    from paged order by k`,
  );
  return rows;
}

/**
 * A page of comments after (`createdAt`, `id`) in that order, each as JSON text with its author; the time as text keeps
 * its microseconds. The page's ids come first, walking the comments' list index, so only its own rows become JSON.
 */
async function commentPage(db: Executor, spec: ExportSpec, after: { at: string; id: string } | null) {
  const { rows } = await db.execute<{ j: string; at: string; id: string; author: string }>(sql`${scopes(spec)},
    page as (select ${comments.id} from ${comments} where ${commentCondition(spec.type, spec.workspace)}
      ${after ? sql`and (${comments.createdAt}, ${comments.id}) > (${after.at}::timestamptz, ${after.id})` : sql``}
      order by ${comments.createdAt}, ${comments.id} limit ${EXPORT_PAGE})
    select ${commentRecord.exportJson()}::text as j, ${comments.createdAt}::text as at, ${comments.id} as id, ${comments.authorId} as author
    from ${commentRecord.from} where ${comments.id} in (select id from page) order by ${comments.createdAt}, ${comments.id}`);
  return rows;
}

/** A page of a part's records after (`createdAt`, `id`), as commentPage, each with its creator. */
async function partPage(db: Executor, spec: ExportSpec, part: TransferPart, after: { at: string; id: string } | null) {
  const { table: r, creator, condition, record } = part.export;
  const { rows } = await db.execute<{ j: string; at: string; id: string; creator: string | null }>(sql`${scopes(spec)},
    page as (select ${r.id} from ${r} where ${condition(partScope(spec.type, spec.workspace))}
      ${after ? sql`and (${r.createdAt}, ${r.id}) > (${after.at}::timestamptz, ${after.id})` : sql``}
      order by ${r.createdAt}, ${r.id} limit ${EXPORT_PAGE})
    select ${record.exportJson()}::text as j, ${r.createdAt}::text as at, ${r.id} as id, ${creator ?? sql`null::text`} as creator
    from ${r} where ${r.id} in (select id from page) order by ${r.createdAt}, ${r.id}`);
  return rows;
}

/** The users, labels and fields of the ids a streamed export's records pointed at, as JSON text. */
async function readPointed(db: Executor, spec: ExportSpec, ids: { users: Set<string>; labels: Set<string>; keys: Set<string> }) {
  const list = (set: Set<string>) => sql`select unnest(${sql.param([...set])}::text[])`;
  const { rows } = await db.execute<{ users: string; labels: string; fields: string }>(
    sql`select ${pointedJson(spec, { users: list(ids.users), labels: list(ids.labels), keys: list(ids.keys) })}`,
  );
  return rows[0];
}

/** The document's text up to the tasks' opening bracket: its users, labels and fields too when they are known already. */
function opening(type: ExportType, exportedAt: string, head: Head): string {
  const workspace = head.workspace === null ? "" : `"workspace":${head.workspace},`;
  const pointed = head.users === undefined ? "" : `"users":${head.users},"labels":${head.labels},"fields":${head.fields},`;
  return (
    `{"type":${JSON.stringify(type)},"version":1,"exportedAt":${JSON.stringify(exportedAt)},"data":{"root":${JSON.stringify(head.root)},${workspace}` +
    `${pointed}"teams":${head.teams},"projects":${head.projects},"milestones":${head.milestones},`
  );
}

/**
 * Writes the tasks, comments and parts' records page by page through `write`, which waits until the reader took the text before (so
 * at most a page is held), then the users, labels and fields they and the head point at. Tasks go team by team in prefix
 * order, each team's by number: the order of the first page.
 */
async function writePages(db: Executor, spec: ExportSpec, head: Head, write: (text: string) => Promise<void>) {
  const pointed = { users: new Set(head.head_users), labels: new Set(head.head_labels), keys: new Set(head.head_keys) };
  const add = (set: Set<string>, values: Array<string | null>) => {
    for (const value of values) if (value !== null) set.add(value);
  };
  await write(`"tasks":[`);
  let first = true;
  const rows = async (texts: string[]) => {
    if (!texts.length) return;
    await write((first ? "" : ",") + texts.join(","));
    first = false;
  };
  for (const team of head.task_teams) {
    for (let after = 0, page = await taskPage(db, spec, team, after); ; page = await taskPage(db, spec, team, after)) {
      const last = page.at(-1);
      if (last) {
        add(pointed.users, last.users ?? []);
        add(pointed.labels, last.labels ?? []);
        add(pointed.keys, last.keys ?? []);
      }
      await rows(page.map((r) => r.j));
      if (page.length < EXPORT_PAGE) break;
      after = page[page.length - 1].k;
    }
  }
  await write(`],"comments":[`);
  first = true;
  for (let page = await commentPage(db, spec, null); ; ) {
    add(
      pointed.users,
      page.map((c) => c.author),
    );
    await rows(page.map((r) => r.j));
    if (page.length < EXPORT_PAGE) break;
    const last = page[page.length - 1];
    page = await commentPage(db, spec, { at: last.at, id: last.id });
  }
  for (const part of spec.parts.all) {
    await write(`],"${part.collection}":[`);
    first = true;
    for (let page = await partPage(db, spec, part, null); ; ) {
      add(
        pointed.users,
        page.map((r) => r.creator),
      );
      await rows(page.map((r) => r.j));
      if (page.length < EXPORT_PAGE) break;
      const last = page[page.length - 1];
      page = await partPage(db, spec, part, { at: last.at, id: last.id });
    }
  }
  const { users: u, labels: l, fields: f } = await readPointed(db, spec, pointed);
  await write(`],"users":${u},"labels":${l},"fields":${f}}}`);
}

/**
 * The export document of a task, project, team or workspace of the caller's workspace (404 otherwise): its whole text
 * when it is small, else a stream that a read-only transaction of its own writes page by page (`done` settles when it
 * ended; a failure after the first byte aborts the stream, so a reader never takes a cut document for a whole one).
 */
export async function exportDocument(
  db: Db,
  principal: Principal,
  parts: Parts,
  type: ExportType,
  idOrRef: string,
): Promise<{ body: string | ReadableStream<Uint8Array>; done: Promise<void> }> {
  if (type === "workspace") {
    // Another workspace is not found, whatever the caller's role; the whole of one's own (every member's email,
    // every record) is for its owners only.
    if (idOrRef !== principal.workspace.id) throw notFound(type);
    requireWorkspaceRole(principal, "OWNER", "export the workspace");
    requireUnbound(principal, "export the whole workspace");
  }
  const workspace = principal.workspace.id;
  const exportedAt = new Date().toISOString();
  const spec: ExportSpec = { type, workspace, parts, root: rootId(type, idOrRef, workspace, principal.teamIds) };
  const head = await readHead(db, spec, true);
  if (head.root === null) throw notFound(type);
  const collections = paged(parts);
  if (collections.every((kind) => !head[`more_${kind}`]))
    return {
      body: `${opening(type, exportedAt, head)}${collections.map((kind) => `"${kind}":${head[`page_${kind}`]}`).join(",")}}}`,
      done: Promise.resolve(),
    };

  // Too large for one answer: the same document again, from a snapshot all its pages share.
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const encoder = new TextEncoder();
  const write = (text: string) => writer.write(encoder.encode(text));
  let opened: (head: Head) => void = () => {};
  let refused: (err: unknown) => void = () => {};
  const started = new Promise<Head>((resolve, reject) => {
    opened = resolve;
    refused = reject;
  });
  // Interactive (the WebSocket): one snapshot for every page of the stream.
  const done = db
    .transaction(
      async (tx) => {
        const pinned = { ...spec, root: rootId(type, head.root as string, workspace, principal.teamIds) };
        const snapshot = await readHead(tx, pinned, false);
        // Deleted since the first read: the same 404 as if it had been gone then.
        if (snapshot.root === null) throw notFound(type);
        opened(snapshot);
        await write(opening(type, exportedAt, snapshot));
        await writePages(tx, pinned, snapshot, write);
        await writer.close();
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    )
    .catch(async (err) => {
      refused(err);
      console.error("export stream failed", err instanceof Error ? err.message : err);
      await writer.abort(err).catch(() => {});
    });
  await started;
  return { body: readable, done };
}
