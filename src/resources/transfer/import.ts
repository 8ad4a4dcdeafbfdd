// POST /teams/{id}/import and POST /workspaces/import: one transaction that reads the target once, plans the whole
// import (plan.ts: ids, links, values; a bad payload is a 422 before anything is written), then writes each table
// with multi-row statements, a constant number of round trips whatever the size.
import { getTableColumns, inArray, sql } from "drizzle-orm";
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
import {
  isWorkspaceAdmin,
  reachesTeam,
  requireMayGrant,
  requireTeamRole,
  requireUnbound,
  requireWorkspaceRole,
  type TeamRole,
} from "../../auth/roles";
import { AppError, forbidden, notFound, ValidationError } from "../../core/errors";
import type { Executor, Tx } from "../../db/client";
import { subtaskTreeLock } from "../../db/tree-locks";
import { milestoneRecord } from "../../records/milestones";
import { projectRecord } from "../../records/projects";
import { taskRecord } from "../../records/tasks";
import { type Plan, planImport, type Target } from "./plan";
import type { ImportInput } from "./schema";

// PostgreSQL takes at most 65,535 parameters per statement; rows go in chunks well below it.
const MAX_PARAMETERS = 30_000;

/** Inserts `rows` in as few statements as the parameter limit allows; `overwrite` turns each into an upsert on `id`. */
async function insertRows<T extends PgTable>(tx: Executor, table: T, rows: T["$inferInsert"][], overwrite?: string[]) {
  if (rows.length === 0) return;
  const perRow = Object.keys(rows[0]).length;
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / perRow));
  const columns = getTableColumns(table);
  for (let i = 0; i < rows.length; i += size) {
    const insert = tx.insert(table).values(rows.slice(i, i + size));
    if (!overwrite) await insert;
    else
      await insert.onConflictDoUpdate({
        target: columns.id,
        set: Object.fromEntries([...overwrite.map((key) => [key, sql.raw(`excluded.${columns[key].name}`)]), ["updatedAt", sql`now()`]]),
      });
  }
}

const LINKS = { task: taskLabels, project: projectLabels } as const;
/** Replaces the label links of `rows` (the overwritten ones lose their old links first). */
async function linkLabels(tx: Executor, kind: keyof typeof LINKS, rows: Array<{ id: string; labelIds: string[] }>, kept: Set<string>) {
  const table = LINKS[kind];
  const owner = kind === "task" ? taskLabels.taskId : projectLabels.projectId;
  const overwritten = rows.filter((r) => kept.has(r.id)).map((r) => r.id);
  if (overwritten.length) await tx.delete(table).where(inArray(owner, overwritten));
  const links = rows.flatMap((r) => [...new Set(r.labelIds)].map((labelId) => ({ [`${kind}Id`]: r.id, labelId })));
  await insertRows(tx, table, links as (typeof table)["$inferInsert"][]);
}

const RECORD_COLUMNS = {
  project: projectRecord.importedFields(),
  // A milestone's project is set on create only (no request moves it), but an overwrite maps it like any link.
  milestone: [...milestoneRecord.importedFields(), "projectId"],
  task: taskRecord.importedFields(),
};

/** Writes the plan's records (labels and fields first, then teams, projects, milestones, tasks, comments). */
async function writePlan(tx: Tx, plan: Plan, workspaceId: string, bases: Map<string, { tasks: number; projects: number }>) {
  const inWorkspace = { workspaceId };
  await insertRows(
    tx,
    labels,
    plan.labels.insert.map((l) => ({ ...l, ...inWorkspace })),
  );
  await insertRows(
    tx,
    labels,
    plan.labels.overwrite.map((l) => ({ ...l, ...inWorkspace })),
    ["name", "color"],
  );
  await insertRows(
    tx,
    fieldDefinitions,
    plan.fields.map(({ createdAt: _c, updatedAt: _u, ...f }) => ({ ...f, ...inWorkspace })),
  );
  const numbered = <R extends { id: string; teamId: string; number: number }>(rows: R[], kind: "tasks" | "projects") =>
    rows.map((r) => (plan.kept.has(r.id) ? r : { ...r, number: r.number + (bases.get(r.teamId)?.[kind] ?? 0) }));

  const projectRows = numbered(plan.projects, "projects");
  await insertRows(
    tx,
    projects,
    projectRows.map(({ labelIds: _l, ...p }) => ({ ...p, ...inWorkspace }) as typeof projects.$inferInsert),
    RECORD_COLUMNS.project,
  );
  await linkLabels(tx, "project", projectRows, plan.kept);
  await insertRows(
    tx,
    milestones,
    plan.milestones.map((m) => ({ ...m, ...inWorkspace }) as typeof milestones.$inferInsert),
    RECORD_COLUMNS.milestone,
  );
  const taskRows = numbered(plan.tasks, "tasks");
  await insertRows(
    tx,
    tasks,
    taskRows.map(({ labelIds: _l, ...t }) => ({ ...t, ...inWorkspace }) as typeof tasks.$inferInsert),
    RECORD_COLUMNS.task,
  );
  await linkLabels(tx, "task", taskRows, plan.kept);
  await insertRows(
    tx,
    comments,
    plan.comments.map((c) => ({ ...c, ...inWorkspace })),
    ["content"],
  );
}

type TargetRow = {
  role: TeamRole | null;
  members: Target["members"];
  labels: Target["labels"];
  comments: Array<{ id: string; content: string; editable: boolean }>;
  fields: Target["fields"];
  teamMembers: string[];
  existing: Array<{ id: string; number: number | null }>;
};

/**
 * The target team and everything the plan needs from its workspace, in one statement; null when the team is not there.
 * It locks the team row (its counters) and the team's subtask tree: overwritten tasks may change parents, serialised
 * with PATCH /tasks re-parenting there, so no race builds a cycle.
 */
async function readTarget(db: Executor, principal: Principal, teamId: string, exportIds: string[]): Promise<TargetRow | null> {
  const workspace = principal.workspace.id;
  const actor = principalActor(principal);
  const ids = sql`${sql.param(exportIds)}::text[]`;
  const { rows } = await db.execute<{ target: TargetRow | null }>(sql`select json_build_object(
      'role', ${callerTeamRole(principal.user.id, teams.id)},
      'members', (select coalesce(json_agg(json_build_object('id', u.id, 'email', u.email)), '[]') from ${workspaceMembers} wm
        join ${users} u on u.id = wm.user_id where wm.workspace_id = ${workspace}),
      'labels', (select coalesce(json_agg(json_build_object('id', id, 'name', name, 'color', color,
        'editable', coalesce(${mayEditLabel(actor)}, false))), '[]') from ${labels} where workspace_id = ${workspace}),
      'comments', (select coalesce(json_agg(json_build_object('id', id, 'content', content,
        'editable', coalesce(${mayEditComment(actor)}, false))), '[]') from ${comments} where workspace_id = ${workspace} and id = any(${ids})),
      'fields', (select coalesce(json_agg(json_build_object('id', id, 'key', key, 'type', type, 'metadata', metadata,
        'recordTypes', record_types)), '[]') from ${fieldDefinitions} where workspace_id = ${workspace}),
      'teamMembers', (select coalesce(json_agg(user_id), '[]') from ${teamMembers} where team_id = teams.id),
      'existing', (select coalesce(json_agg(json_build_object('id', e.id, 'number', e.number)), '[]') from (
          select id, number from ${tasks} where team_id = teams.id and id = any(${ids})
          union all select id, number from ${projects} where team_id = teams.id and id = any(${ids})
          union all select m.id, null from ${milestones} m join ${projects} p on p.id = m.project_id where p.team_id = teams.id and m.id = any(${ids})
          union all select c.id, null from ${comments} c where c.workspace_id = ${workspace} and c.id = any(${ids}) and (
            c.task_id in (select id from ${tasks} where team_id = teams.id) or c.project_id in (select id from ${projects} where team_id = teams.id)
            or c.milestone_id in (select m.id from ${milestones} m join ${projects} p on p.id = m.project_id where p.team_id = teams.id))
          union all select id, null from ${labels} where workspace_id = ${workspace} and id = any(${ids})
        ) e)
    ) as target, ${subtaskTreeLock(sql`teams.id`)}
    from ${teams} where teams.id = ${teamId} and teams.workspace_id = ${workspace}
    for update`);
  return rows[0]?.target ?? null;
}

/** Every id the export carries (what `update` may find in the target). */
function exportIds(input: ImportInput): string[] {
  const d = input.data.data;
  return [d.labels, d.projects, d.milestones, d.tasks, d.comments].flatMap((list) => list.map((r) => r.id));
}

/**
 * An import does what the operations it stands for may do, by their rules: creating fields (POST /fields: workspace
 * ADMIN/OWNER), adding team members (POST /teams/{id}/members: no role above one's own), changing labels (PATCH /labels:
 * their creator or workspace ADMIN/OWNER) and comments (PATCH /comments: their author). 403 before anything is written.
 */
function requireRights(principal: Principal, plan: Plan, teamRole: TeamRole | null) {
  if (plan.fields.length && !isWorkspaceAdmin(principal))
    throw forbidden(`Only a workspace ADMIN or OWNER may create the fields this import needs: ${plan.fields.map((f) => f.key).join(", ")}`);
  for (const member of plan.teamMembers) requireMayGrant(principal, teamRole, member.role);
  if (plan.labels.refused.length) throw forbidden(`${LABEL_EDIT_REFUSAL}: ${plan.labels.refused.join(", ")}`);
  if (plan.refusedComments.length)
    throw new AppError("FORBIDDEN", `${COMMENT_EDIT_REFUSAL}; this import changes other people's comments`, {
      paths: plan.refusedComments.map((p) => `data.data.${p}`),
    });
}

/** POST /teams/{id}/import: a task, project or team export into team `teamId`, in one transaction. */
export async function importIntoTeam(db: Executor, principal: Principal, teamId: string, input: ImportInput): Promise<void> {
  if (input.data.type === "workspace")
    throw new ValidationError({ "data.type": ["A workspace export is imported with POST /workspaces/import"] });
  await db.transaction(async (tx) => {
    const found = reachesTeam(principal, teamId)
      ? await readTarget(tx, principal, teamId, input.update ? exportIds(input) : [])
      : undefined;
    if (!found) throw notFound("Team");
    requireTeamRole(principal, found.role, "MEMBER", "import into this team");
    const plan = planImport(input.data, {
      workspaceId: principal.workspace.id,
      callerId: principal.user.id,
      teamId,
      update: input.update,
      members: found.members,
      labels: found.labels,
      comments: new Map(found.comments.map(({ id, ...c }) => [id, c])),
      fields: found.fields,
      existing: new Map(found.existing.map((e) => [e.id, e.number])),
      teamMembers: new Set(found.teamMembers),
    });
    requireRights(principal, plan, found.role);
    if (plan.teamOverwrite) {
      requireTeamRole(principal, found.role, "ADMIN", "overwrite this team");
      await tx
        .update(teams)
        .set({ ...plan.teamOverwrite, updatedAt: sql`now()` })
        .where(sql`${teams.id} = ${teamId}`);
    }
    await insertRows(
      tx,
      teamMembers,
      plan.teamMembers.map((m) => ({ ...m, workspaceId: principal.workspace.id })),
    );
    // New references continue the team's counters (locked with the team row above).
    const added = plan.counters.get(teamId) ?? { tasks: 0, projects: 0 };
    const [base] = await tx
      .update(teams)
      .set({ taskCounter: sql`${teams.taskCounter} + ${added.tasks}`, projectCounter: sql`${teams.projectCounter} + ${added.projects}` })
      .where(sql`${teams.id} = ${teamId}`)
      .returning({
        tasks: sql<number>`${teams.taskCounter} - ${added.tasks}`,
        projects: sql<number>`${teams.projectCounter} - ${added.projects}`,
      });
    await writePlan(tx, plan, principal.workspace.id, new Map([[teamId, { tasks: Number(base.tasks), projects: Number(base.projects) }]]));
  });
}

/** POST /workspaces/import: a workspace export into a new workspace whose OWNER is the caller; returns it. */
export async function importWorkspace(db: Executor, principal: Principal, input: ImportInput) {
  requireWorkspaceRole(principal, "OWNER", "import a workspace");
  requireUnbound(principal, "import a workspace");
  if (input.data.type !== "workspace" || !input.data.data.workspace)
    throw new ValidationError({ "data.type": ["POST /workspaces/import takes a workspace export"] });
  const source = input.data.data.workspace;
  return db.transaction(async (tx) => {
    const workspace = await insertWorkspace(tx, source.name);
    await tx.insert(workspaceMembers).values({ workspaceId: workspace.id, userId: principal.user.id, role: "OWNER" });
    // A new workspace holds nothing yet: every record is created, and the caller is its only member.
    const plan = planImport(input.data, {
      workspaceId: workspace.id,
      callerId: principal.user.id,
      update: false,
      members: [{ id: principal.user.id, email: principal.user.email }],
      labels: [],
      comments: new Map(),
      fields: [],
      existing: new Map(),
      teamMembers: new Set(),
    });
    const teamRows = plan.teams.map(({ members: _m, ...t }) => {
      const counts = plan.counters.get(t.id) ?? { tasks: 0, projects: 0 };
      return { ...t, workspaceId: workspace.id, taskCounter: counts.tasks, projectCounter: counts.projects };
    });
    await insertRows(tx, teams, teamRows);
    await insertRows(
      tx,
      teamMembers,
      plan.teamMembers.map((m) => ({ ...m, workspaceId: workspace.id })),
    );
    await writePlan(tx, plan, workspace.id, new Map());
    return workspace;
  });
}
