// POST /teams/{id}/import, POST /workspaces/import and the commit of an import sent in parts: one transaction that
// reads the target once, plans the small collections, walks the tasks twice and the comments once a page at a time
// (plan.ts), then each paged part's records (src/store/transfer-part.ts), and writes each page with multi-row statements. The records come from a source (source.ts): the request's
// own document, or the parts staged for it; either way the Worker holds a page of tasks or comments at a time, plus the
// map of ids. A bad payload is a 422 naming every bad value; any refusal or error writes nothing.
import { getTableColumns, inArray, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
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
} from "../../../drizzle/schema";
import { callerTeamRole } from "../../auth/access";
import { insertWorkspace } from "../../auth/accounts/membership";
import { COMMENT_EDIT_REFUSAL, LABEL_EDIT_REFUSAL, mayEditComment, mayEditLabel } from "../../auth/ownership";
import { type Principal, principalActor } from "../../auth/principal";
import { isWorkspaceAdmin, requireMayGrant, requireTeamRole, requireUnbound, requireWorkspaceRole, type TeamRole } from "../../auth/roles";
import { AppError, forbidden, notFound, ValidationError } from "../../core/errors";
import type { Executor, Tx } from "../../db/client";
import { renameLockShared } from "../../db/event-context";
import { inTeams } from "../../db/scope";
import { subtaskTreeLock } from "../../db/tree-locks";
import { foldName, nameMatch } from "../../records/names";
import type { ImportContext } from "../../store/transfer-part";
import { milestoneRecord } from "../milestones/record";
import { projectRecord } from "../projects/record";
import { taskRecord } from "../tasks/record";
import { teamMemberships } from "../team-members/record";
import { getTeam } from "../teams/record";
import type { Parts } from "./parts";
import {
  checkTaskCycles,
  type ImportHead,
  newTasksPerTeam,
  type Placed,
  PlanState,
  planCommentPage,
  planFields,
  planLabels,
  planMilestones,
  planProjects,
  planTaskPage,
  planTeams,
  planUsers,
  surveyTasks,
  type Target,
} from "./plan";
import type { ImportSource } from "./source";

// A statement's triggers record an event per row, so rows go in statements of at most a page, each well inside the
// driver's per-statement timeout.
const MAX_ROWS = 1000;

/**
 * Inserts `rows` (keyed by the table's property names), a statement per MAX_ROWS, each column one array parameter that
 * `unnest` turns back into rows: a page is a parameter per column, not a parameter per value that Drizzle's builder
 * would make an object of (most of a large import's CPU time). A row that leaves a column out gets its default, as
 * with an insert that names it not: rows go in groups of the same columns. `overwrite` makes it an upsert on `id`;
 * `keep`, an insert of the rows no unique key already has (the target's record stays).
 */
async function insertRows<T extends PgTable>(tx: Executor, table: T, rows: T["$inferInsert"][], overwrite?: string[] | "keep") {
  const columns = getTableColumns(table);
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const row of rows as Record<string, unknown>[]) {
    const keys = Object.keys(row)
      .filter((key) => row[key] !== undefined)
      .join(",");
    const group = groups.get(keys);
    if (group) group.push(row);
    else groups.set(keys, [row]);
  }
  for (const [keyList, group] of groups) {
    const keys = keyList.split(",");
    const names = sql.join(
      keys.map((key) => sql.identifier(columns[key].name)),
      sql`, `,
    );
    const upsert =
      overwrite === "keep"
        ? sql`on conflict do nothing`
        : overwrite
          ? sql`on conflict (id) do update set ${sql.join(
              overwrite.map((key) => sql`${sql.identifier(columns[key].name)} = excluded.${sql.identifier(columns[key].name)}`),
              sql`, `,
            )}, updated_at = now()`
          : sql``;
    // `unnest` would flatten an array of arrays, so an array column (`text[]`) goes as its values' literals (Drizzle's
    // driver value, `{a,b}`) in a text[] and is cast back per row.
    const types = keys.map((key) => columns[key].getSQLType());
    const unnested = sql.join(
      types.map((type, i) => (type.endsWith("[]") ? sql.raw(`c${i}::${type}`) : sql.raw(`c${i}`))),
      sql`, `,
    );
    const aliases = sql.raw(types.map((_, i) => `c${i}`).join(", "));
    for (let i = 0; i < group.length; i += MAX_ROWS) {
      const chunk = group.slice(i, i + MAX_ROWS);
      const arrays = keys.map((key, k) => {
        const column = columns[key];
        const values = chunk.map((row) => (row[key] === null ? null : column.mapToDriverValue(row[key])));
        return sql`${sql.param(values)}::${sql.raw(types[k].endsWith("[]") ? "text" : types[k])}[]`;
      });
      await tx.execute(
        sql`insert into ${table} (${names}) select ${unnested} from unnest(${sql.join(arrays, sql`, `)}) as u(${aliases}) ${upsert}`,
      );
    }
  }
}

const LABELLED = {
  task: { table: tasks, labels: taskLabels, owner: taskLabels.taskId, columns: taskRecord.importedFields() },
  project: { table: projects, labels: projectLabels, owner: projectLabels.projectId, columns: projectRecord.importedFields() },
} as const;
// A milestone's project is set on create only (no request moves it), but an overwrite maps it like any link.
const MILESTONE_COLUMNS = [...milestoneRecord.importedFields(), "projectId"];

/** Writes tasks or projects (an upsert: kept ones are overwritten) and replaces their labels. */
async function writeLabelled(tx: Executor, kind: keyof typeof LABELLED, rows: Array<{ id: string; labelIds: string[] }>, state: PlanState) {
  const { table, labels, owner, columns } = LABELLED[kind];
  const inWorkspace = { workspaceId: state.target.workspaceId };
  await insertRows(
    tx,
    table,
    rows.map(({ labelIds: _l, ...r }) => ({ ...r, ...inWorkspace }) as (typeof table)["$inferInsert"]),
    columns,
  );
  // The overwritten ones lose their old labels first.
  const overwritten = rows.filter((r) => state.kept(r.id)).map((r) => r.id);
  if (overwritten.length) await tx.delete(labels).where(inArray(owner, overwritten));
  const labelled = rows.flatMap((r) => [...new Set(r.labelIds)].map((labelId) => ({ [`${kind}Id`]: r.id, labelId })));
  await insertRows(tx, labels, labelled as (typeof labels)["$inferInsert"][]);
}

/** Each team's reference counters before the import: new records' numbers (1, 2, … in the plan) go on top. */
type Bases = Map<string, { tasks: number; projects: number }>;
/** A record's number in the target: kept ones keep theirs; new ones continue their team's counter. */
const numbered = <R extends { id: string; teamId: string; number: number }>(
  state: PlanState,
  rows: R[],
  bases: Bases,
  kind: "tasks" | "projects",
) => rows.map((r) => (state.kept(r.id) ? r : { ...r, number: r.number + (bases.get(r.teamId)?.[kind] ?? 0) }));

type TargetRow = {
  /** The team's id (the import may name it by prefix). */
  id: string;
  role: TeamRole | null;
  members: Target["members"];
  labels: Target["labels"];
  comments: Array<{ id: string; content: string; editable: boolean }>;
  fields: Target["fields"];
  teamMembers: string[];
  existing: Array<{ id: string; number: number | null }>;
};

/**
 * The target team (by id or prefix, within the caller's teams), locked; null when the team is not there. It locks the
 * team row (its counters) and the team's subtask tree: overwritten tasks may change parents, serialised with PATCH
 * /tasks re-parenting there, so no race builds a cycle. It holds the team's rename lock shared from before the row, as
 * a create does (renameLockShared): a rename that took its transaction id first would otherwise name the imported
 * records after their events in the stream. A statement of its own: what the import reads of the team comes in the
 * next one (readTarget), whose snapshot is taken once the locks are held, so it sees what a concurrent import into the
 * same team committed meanwhile (its members, its records), not the state before the wait.
 */
async function lockTarget(db: Executor, principal: Principal, team: string): Promise<string | null> {
  const workspace = principal.workspace.id;
  const { rows } = await db.execute<{ id: string }>(sql`select teams.id, ${subtaskTreeLock(sql`teams.id`)}
    from ${teams} where ${nameMatch("team", teams.id, team, workspace)} and teams.workspace_id = ${workspace}
      and ${inTeams(principal.teamIds, teams.id)} and ${renameLockShared(teams.id)}
    for update`);
  return rows[0]?.id ?? null;
}

/**
 * What the plan needs of the locked team `teamId` and its workspace, in one statement.
 * `ids`: the import's record ids (with `update`), of which it finds those already in the team (a part's: as it says).
 */
async function readTarget(db: Executor, principal: Principal, parts: Parts, teamId: string, ids: SQL | null): Promise<TargetRow> {
  const workspace = principal.workspace.id;
  const actor = principalActor(principal);
  const named = ids ?? sql`'{}'::text[]`;
  const { rows } = await db.execute<{ target: TargetRow }>(sql`select json_build_object(
      'id', teams.id,
      'role', ${callerTeamRole(principal.user.id, teams.id)},
      'members', (select coalesce(json_agg(json_build_object('id', u.id, 'email', u.email, 'type', u.type)), '[]') from ${workspaceMembers} wm
        join ${users} u on u.id = wm.user_id where wm.workspace_id = ${workspace}),
      'labels', (select coalesce(json_agg(json_build_object('id', id, 'name', name, 'color', color,
        'editable', coalesce(${mayEditLabel(actor)}, false))), '[]') from ${labels} where workspace_id = ${workspace}),
      'comments', (select coalesce(json_agg(json_build_object('id', id, 'content', content,
        'editable', coalesce(${mayEditComment(actor)}, false))), '[]') from ${comments} where workspace_id = ${workspace} and id = any(${named})),
      'fields', (select coalesce(json_agg(json_build_object('id', id, 'key', key, 'type', type, 'metadata', metadata,
        'recordTypes', record_types)), '[]') from ${fieldDefinitions} where workspace_id = ${workspace}),
      'teamMembers', (select coalesce(json_agg(user_id), '[]') from ${teamMembers} where team_id = teams.id),
      'existing', (select coalesce(json_agg(json_build_object('id', e.id, 'number', e.number)), '[]') from (
          select id, number from ${tasks} where team_id = teams.id and id = any(${named})
          union all select id, number from ${projects} where team_id = teams.id and id = any(${named})
          union all select m.id, null from ${milestones} m join ${projects} p on p.id = m.project_id where p.team_id = teams.id and m.id = any(${named})
          union all select c.id, null from ${comments} c where c.workspace_id = ${workspace} and c.id = any(${named}) and (
            c.task_id in (select id from ${tasks} where team_id = teams.id) or c.project_id in (select id from ${projects} where team_id = teams.id)
            or c.milestone_id in (select m.id from ${milestones} m join ${projects} p on p.id = m.project_id where p.team_id = teams.id))
          union all select id, null from ${labels} where workspace_id = ${workspace} and id = any(${named})
          ${sql.join(
            parts.paged.flatMap(({ import: part }) => (part.existing ? [sql`union all ${part.existing(sql`teams.id`, named)}`] : [])),
            sql` `,
          )}
        ) e)
    ) as target
    from ${teams} where teams.id = ${teamId}`);
  return rows[0].target;
}

/**
 * An import does what the operations it stands for may do, by their rules: creating fields (POST /fields: workspace
 * ADMIN/OWNER), adding team members (POST /teams/{id}/members: no role above one's own) and changing labels (PATCH
 * /labels: their creator or workspace ADMIN/OWNER). The refusal, if any (a 403 unless the payload is also invalid).
 */
function rightsRefusal(principal: Principal, plan: HeadPlan, teamRole: TeamRole | null): AppError | null {
  if (plan.fields.length && !isWorkspaceAdmin(principal))
    return forbidden(
      `Only a workspace ADMIN or OWNER may create the fields this import needs: ${plan.fields.map((f) => f.key).join(", ")}`,
    );
  try {
    for (const member of plan.teams.members) requireMayGrant(principal, teamRole, member.role);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  if (plan.labels.refused.length) return forbidden(`${LABEL_EDIT_REFUSAL}: ${plan.labels.refused.join(", ")}`);
  return null;
}

/** Comments the import would change that the caller may not (PATCH /comments: their author alone). */
const commentsRefusal = (paths: string[]) =>
  new AppError("FORBIDDEN", `${COMMENT_EDIT_REFUSAL}; this import changes other people's comments`, { paths });

const IMPORT_PAGE = 1000;

type HeadPlan = Awaited<ReturnType<typeof planHead>>;

/** Everything but the tasks and comments, planned; then the first pass over the tasks. */
async function planHead(state: PlanState, source: ImportSource) {
  planUsers(state);
  const plan = {
    labels: planLabels(state),
    fields: planFields(state),
    teams: planTeams(state),
    projects: planProjects(state),
    milestones: planMilestones(state),
  };
  for await (const page of source.pages("tasks", IMPORT_PAGE)) surveyTasks(state, page);
  checkTaskCycles(state);
  return plan;
}

/** Writes what planHead planned (the target's teams and counters are the caller's to write first). */
async function writeHead(tx: Tx, state: PlanState, plan: HeadPlan, bases: Bases) {
  const inWorkspace = { workspaceId: state.target.workspaceId };
  await insertRows(
    tx,
    teamMembers,
    plan.teams.members.map((m) => ({ ...m, ...inWorkspace })),
  );
  await insertRows(
    tx,
    labels,
    plan.labels.insert.map((l) => ({ ...l, nameKey: foldName(l.name), ...inWorkspace })),
  );
  await insertRows(
    tx,
    labels,
    plan.labels.overwrite.map((l) => ({ ...l, nameKey: foldName(l.name), ...inWorkspace })),
    ["name", "nameKey", "color"],
  );
  await insertRows(
    tx,
    fieldDefinitions,
    plan.fields.map(({ createdAt: _c, updatedAt: _u, ...f }) => ({ ...f, ...inWorkspace })),
  );
  await writeLabelled(tx, "project", numbered(state, plan.projects, bases, "projects"), state);
  await insertRows(
    tx,
    milestones,
    plan.milestones.map((m) => ({ ...m, ...inWorkspace }) as typeof milestones.$inferInsert),
    MILESTONE_COLUMNS,
  );
}

/**
 * The second pass: tasks, then comments, then each paged part's records, a page at a time, each written as it is
 * planned. Nothing more is written once a refusal is known (the transaction rolls back), but every page is still
 * planned, so one 422 names every bad value.
 */
async function writePages(
  tx: Tx,
  principal: Principal,
  parts: Parts,
  state: PlanState,
  source: ImportSource,
  bases: Bases,
  refusal: AppError | null,
) {
  const inWorkspace = { workspaceId: state.target.workspaceId };
  const writing = () => refusal === null && state.errors.size === 0;
  const context: ImportContext = {
    tx,
    plan: state,
    reach: principalActor(principal),
    insert: (table, rows, overwrite) => insertRows(tx, table, rows, overwrite),
  };
  const finishes: Array<() => Promise<void>> = [];
  /** Plans and writes a part's pages (once nothing is refused); its `finish` waits for every record. */
  const importPart = async (part: Parts["paged"][number], written: () => boolean) => {
    const importer = part.import.start(context);
    for await (const page of source.pages(part.collection, IMPORT_PAGE)) await importer.page(page, written);
    if (importer.finish) finishes.push(importer.finish);
  };
  // What the tasks' values name first (a team's workflow states, which a task's status names).
  for (const part of parts.paged.filter((p) => p.beforeTasks)) await importPart(part, writing);
  for await (const page of source.pages("tasks", IMPORT_PAGE)) {
    const rows = numbered(state, planTaskPage(state, page), bases, "tasks");
    if (writing()) await writeLabelled(tx, "task", rows, state);
  }
  const refused: string[] = [];
  for await (const page of source.pages("comments", IMPORT_PAGE)) {
    const planned = planCommentPage(state, page);
    refused.push(...planned.refused);
    if (!writing() || refused.length) continue;
    await insertRows(
      tx,
      comments,
      planned.comments.map((c) => ({ ...c, ...inWorkspace })),
      ["content"],
    );
  }
  // The other parts last, in the document's order: the tasks and comments their records hang on are written.
  for (const part of parts.paged.filter((p) => !p.beforeTasks)) await importPart(part, () => writing() && !refused.length);
  // A parent written after its subtask (a later page) is checked here, not at the commit: its error is a statement's.
  await tx.execute(sql`set constraints tasks_parent_id_tasks_id_fk immediate`);
  state.checkFiled();
  state.refuseIfFailed();
  if (refusal) throw refusal;
  if (refused.length) throw commentsRefusal(refused);
  for (const finish of finishes) await finish();
}

/** A task's parent may be written after it (a later page): checked when writePages ends. */
const deferParentLinks = (tx: Tx) => tx.execute(sql`set constraints tasks_parent_id_tasks_id_fk deferred`);

/**
 * A task, project or team export into `team` (its id or prefix), in one transaction (POST /teams/{id}/import, or an
 * import's commit); returns the team's id and where the records the document's files hang on went.
 */
export async function importIntoTeam(
  tx: Tx,
  principal: Principal,
  parts: Parts,
  team: string,
  source: ImportSource,
  update: boolean,
): Promise<{ teamId: string; ids: Placed }> {
  const head = await source.head();
  if (head.type === "workspace")
    throw new ValidationError({ [source.typePath]: ["A workspace export is imported with POST /workspaces/import"] });
  const locked = await lockTarget(tx, principal, team);
  const found = locked === null ? null : await readTarget(tx, principal, parts, locked, update ? source.ids : null);
  requireMayImportTeam(principal, found);
  const teamId = found.id;
  const state = new PlanState(head, {
    workspaceId: principal.workspace.id,
    callerId: principal.user.id,
    teamId,
    update,
    members: found.members,
    labels: found.labels,
    comments: new Map(found.comments.map(({ id, ...c }) => [id, c])),
    fields: found.fields,
    existing: new Map(found.existing.map((e) => [e.id, e.number])),
    teamMembers: new Set(found.teamMembers),
  });
  const plan = await planHead(state, source);
  let refusal = rightsRefusal(principal, plan, found.role);
  if (plan.teams.overwrite && !refusal) {
    try {
      requireTeamRole(principal, found.role, "ADMIN", "overwrite this team");
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refusal = err;
    }
  }
  const bases: Bases = new Map();
  if (refusal === null && state.errors.size === 0) {
    await deferParentLinks(tx);
    if (plan.teams.overwrite)
      await tx
        .update(teams)
        .set({ ...plan.teams.overwrite, updatedAt: sql`now()` })
        .where(sql`${teams.id} = ${teamId}`);
    // New references continue the team's counters (locked with the team row above).
    const added = { tasks: newTasksPerTeam(state).get(teamId) ?? 0, projects: state.counters.get(teamId)?.projects ?? 0 };
    const [base] = await tx
      .update(teams)
      .set({ taskCounter: sql`${teams.taskCounter} + ${added.tasks}`, projectCounter: sql`${teams.projectCounter} + ${added.projects}` })
      .where(sql`${teams.id} = ${teamId}`)
      .returning({
        tasks: sql<number>`${teams.taskCounter} - ${added.tasks}`,
        projects: sql<number>`${teams.projectCounter} - ${added.projects}`,
      });
    bases.set(teamId, { tasks: Number(base.tasks), projects: Number(base.projects) });
    await writeHead(tx, state, plan, bases);
  }
  await writePages(tx, principal, parts, state, source, bases, refusal);
  return { teamId, ids: state.placed() };
}

/** Who may import into a team (POST /teams/{id}/import, an import opened into it): team MEMBER or above; 404 unfound. */
export function requireMayImportTeam(principal: Principal, team: { role: TeamRole | null } | null | undefined): asserts team {
  if (!team) throw notFound("Team");
  requireTeamRole(principal, team.role, "MEMBER", "import into this team");
}

/** Who may import a workspace (POST /workspaces/import, an import opened without a team): its OWNER, on an unbound credential. */
export function requireMayImportWorkspace(principal: Principal): void {
  requireWorkspaceRole(principal, "OWNER", "import a workspace");
  requireUnbound(principal, "import a workspace");
}

/**
 * A workspace export into a new workspace whose OWNER is the caller (POST /workspaces/import, or an import's commit);
 * returns it and where the records the document's files hang on went.
 */
export async function importWorkspace(tx: Tx, principal: Principal, parts: Parts, source: ImportSource) {
  requireMayImportWorkspace(principal);
  const head: ImportHead = await source.head();
  if (head.type !== "workspace" || !head.workspace)
    throw new ValidationError({ [source.typePath]: ["POST /workspaces/import takes a workspace export"] });
  const workspace = await insertWorkspace(tx, head.workspace.name);
  await tx.insert(workspaceMembers).values({ workspaceId: workspace.id, userId: principal.user.id, role: "OWNER" });
  // A new workspace holds nothing yet: every record is created, and the caller is its only member.
  const state = new PlanState(head, {
    workspaceId: workspace.id,
    callerId: principal.user.id,
    update: false,
    members: [{ id: principal.user.id, email: principal.user.email, type: principal.user.type }],
    labels: [],
    comments: new Map(),
    fields: [],
    existing: new Map(),
    teamMembers: new Set(),
  });
  const plan = await planHead(state, source);
  if (state.errors.size === 0) {
    await deferParentLinks(tx);
    const newTasks = newTasksPerTeam(state);
    await insertRows(
      tx,
      teams,
      plan.teams.teams.map(({ members: _m, ...t }) => ({
        ...t,
        workspaceId: workspace.id,
        taskCounter: newTasks.get(t.id) ?? 0,
        projectCounter: state.counters.get(t.id)?.projects ?? 0,
      })),
    );
    await writeHead(tx, state, plan, new Map());
  }
  await writePages(tx, principal, parts, state, source, new Map(), null);
  return { workspace, ids: state.placed() };
}

/** A team import's answer: the team, its members as team-member objects. */
export async function importedTeam(db: Executor, principal: Principal, teamId: string) {
  const team = await getTeam(db, principal.workspace.id, teamId);
  return { ...team, members: await teamMemberships(db, principal.workspace.id, teamId) };
}
