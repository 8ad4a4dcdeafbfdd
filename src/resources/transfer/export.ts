// GET /{tasks|projects|teams|workspaces}/{id}/export: the resource and everything under it, built by PostgreSQL as
// one JSON value in one statement (json_agg per collection), so an export of thousands of tasks is one round trip.
import { type SQL, sql } from "drizzle-orm";
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
import type { Executor } from "../../db/client";
import { inTeams, type TeamScope } from "../../db/scope";
import { commentRecord } from "../../records/comments";
import { fieldRecord } from "../../records/fields";
import { labelRecord } from "../../records/labels";
import { milestoneRecord } from "../../records/milestones";
import { projectRecord } from "../../records/projects";
import { parseProjectRef, parseTaskRef } from "../../records/refs";
import { taskRecord } from "../../records/tasks";
import type { ExportDataDto, ExportDocumentDto, ExportType } from "./schema";

const iso = (column: SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const times = (alias: string) =>
  sql`'createdAt', ${iso(sql.raw(`${alias}.created_at`))}, 'updatedAt', ${iso(sql.raw(`${alias}.updated_at`))}`;
/** `json_agg` of `row`, in `order`, an empty array when there is nothing. */
const agg = (row: SQL, from: SQL, order: string) => sql`(select coalesce(json_agg(${row} order by ${sql.raw(order)}), '[]') ${from})`;

/** The root row's id in the caller's reach (its workspace, within its teams): a task or project may be named by its reference. */
function rootId(type: ExportType, idOrRef: string, { workspace, teams: reach }: { workspace: string; teams: TeamScope }): SQL {
  if (type === "workspace") return sql`(select id from ${workspaces} where id = ${workspace})`;
  if (type === "team")
    return sql`(select id from ${teams} where id = ${idOrRef} and workspace_id = ${workspace} and ${inTeams(reach, sql`id`)})`;
  const table = type === "task" ? tasks : projects;
  const ref = type === "task" ? parseTaskRef(idOrRef) : parseProjectRef(idOrRef);
  return ref
    ? sql`(select r.id from ${table} r join ${teams} tm on tm.id = r.team_id where tm.workspace_id = ${workspace} and tm.prefix = ${ref.prefix} and r.number = ${ref.number} and ${inTeams(reach, sql`r.team_id`)})`
    : sql`(select id from ${table} where id = ${idOrRef} and workspace_id = ${workspace} and ${inTeams(reach, sql`team_id`)})`;
}

/** Which rows each collection takes, given the root id (`root` CTE). */
function scope(type: ExportType, workspace: string) {
  const inWorkspace = sql`workspace_id = ${workspace}`;
  switch (type) {
    case "task":
      return {
        // `union`, not `union all`: each task is taken once, so the walk ends after the subtree even if it held a cycle.
        tasks: sql`select id from ${tasks} where id = (select id from root) union select t.id from ${tasks} t join scope_tasks s on t.parent_id = s.id`,
        projects: sql`select id from ${projects} where false`,
        teams: sql`select id from ${teams} where false`,
      };
    case "project":
      return {
        tasks: sql`select id from ${tasks} where project_id = (select id from root)`,
        projects: sql`select id from root`,
        teams: sql`select id from ${teams} where false`,
      };
    case "team":
      return {
        tasks: sql`select id from ${tasks} where team_id = (select id from root)`,
        projects: sql`select id from ${projects} where team_id = (select id from root)`,
        teams: sql`select id from root`,
      };
    case "workspace":
      return {
        tasks: sql`select id from ${tasks} where ${inWorkspace} and exists (select 1 from root)`,
        projects: sql`select id from ${projects} where ${inWorkspace} and exists (select 1 from root)`,
        teams: sql`select id from ${teams} where ${inWorkspace} and exists (select 1 from root)`,
      };
  }
}

function exportStatement(type: ExportType, idOrRef: string, workspace: string, reach: TeamScope): SQL {
  const s = scope(type, workspace);
  const whole = type === "workspace";
  const _labelIds = (links: typeof taskLabels | typeof projectLabels, owner: string, column: string) =>
    sql`(select coalesce(json_agg(l.label_id order by l.label_id), '[]') from ${links} l where l.${sql.raw(column)} = ${sql.raw(owner)}.id)`;
  const teamRow = sql`json_build_object('id', tm.id, 'name', tm.name, 'prefix', tm.prefix, 'description', tm.description,
    'parentId', tm.parent_id, 'members', ${agg(
      sql`json_build_object('id', mb.id, 'userId', mb.user_id, 'role', mb.role)`,
      sql`from ${teamMembers} mb where mb.team_id = tm.id`,
      "mb.created_at, mb.id",
    )}, ${times("tm")})`;
  const usedKeys = sql`select jsonb_object_keys(custom_fields) from ${tasks} where id in (select id from scope_tasks)
    union select jsonb_object_keys(custom_fields) from ${projects} where id in (select id from scope_projects)
    union select jsonb_object_keys(custom_fields) from ${milestones} where id in (select id from scope_milestones)`;
  // Users a record points at, members first; user-type custom field values too. Only members of the workspace.
  const userValues = (table: typeof tasks | typeof projects | typeof milestones, scoped: string) =>
    sql`select v.value #>> '{}' from ${table} r cross join jsonb_each(r.custom_fields) v join field_definitions f
      on f.workspace_id = ${workspace} and f.key = v.key and f.type = 'user' where r.id in (select id from ${sql.raw(scoped)})`;
  const pointedAt = sql`select user_id from ${teamMembers} where team_id in (select id from scope_teams)
    ${whole ? sql`union select user_id from ${workspaceMembers} where workspace_id = ${workspace}` : sql``}
    union select assignee_id from ${tasks} where id in (select id from scope_tasks)
    union select lead_id from ${projects} where id in (select id from scope_projects)
    union select author_id from ${comments} where id in (select id from scope_comments)
    union ${userValues(tasks, "scope_tasks")} union ${userValues(projects, "scope_projects")} union ${userValues(milestones, "scope_milestones")}`;
  const workspaceRow = sql`(select json_build_object('id', w.id, 'name', w.name, 'slug', w.slug, 'members', ${agg(
    sql`json_build_object('userId', wm.user_id, 'role', wm.role)`,
    sql`from ${workspaceMembers} wm where wm.workspace_id = w.id`,
    "wm.created_at, wm.user_id",
  )}) from ${workspaces} w where w.id = (select id from root))`;

  return sql`with recursive
    root as (select ${rootId(type, idOrRef, { workspace, teams: reach })} as id),
    scope_tasks(id) as (${s.tasks}),
    scope_projects as (${s.projects}),
    scope_teams as (${s.teams}),
    scope_milestones as (select id from ${milestones} where project_id in (select id from scope_projects)),
    scope_comments as (select id from ${comments} where task_id in (select id from scope_tasks)
      or project_id in (select id from scope_projects) or milestone_id in (select id from scope_milestones))
    select case when (select id from root) is null then null else json_build_object(
      'root', (select id from root),
      ${whole ? sql`'workspace', ${workspaceRow},` : sql``}
      'users', ${agg(
        sql`json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'avatarUrl', u.avatar_url, 'type', u.type)`,
        sql`from ${users} u join ${workspaceMembers} wm on wm.user_id = u.id and wm.workspace_id = ${workspace} where u.id in (${pointedAt})`,
        "u.id",
      )},
      'labels', ${agg(
        labelRecord.exportJson(),
        whole
          ? sql`from ${labelRecord.from} where ${labels.workspaceId} = ${workspace}`
          : sql`from ${labelRecord.from} where ${labels.id} in (select label_id from ${taskLabels} where task_id in (select id from scope_tasks)
              union select label_id from ${projectLabels} where project_id in (select id from scope_projects))`,
        `"labels"."created_at", "labels"."id"`,
      )},
      'fields', ${agg(
        fieldRecord.exportJson(),
        sql`from ${fieldRecord.from} where ${fieldDefinitions.workspaceId} = ${workspace} ${whole ? sql`` : sql`and ${fieldDefinitions.key} in (${usedKeys})`}`,
        `"field_definitions"."created_at", "field_definitions"."id"`,
      )},
      'teams', ${agg(teamRow, sql`from ${teams} tm where tm.id in (select id from scope_teams)`, "tm.created_at, tm.id")},
      'projects', ${agg(projectRecord.exportJson(), sql`from ${projectRecord.from} where ${projects.id} in (select id from scope_projects)`, `"teams"."prefix", "projects"."number"`)},
      'milestones', ${agg(milestoneRecord.exportJson(), sql`from ${milestoneRecord.from} where ${milestones.id} in (select id from scope_milestones)`, `"milestones"."created_at", "milestones"."id"`)},
      'tasks', ${agg(taskRecord.exportJson(), sql`from ${taskRecord.from} where ${tasks.id} in (select id from scope_tasks)`, `"teams"."prefix", "tasks"."number"`)},
      'comments', ${agg(commentRecord.exportJson(), sql`from ${commentRecord.from} where ${comments.id} in (select id from scope_comments)`, `"comments"."created_at", "comments"."id"`)}
    ) end as data`;
}

/** The export document of a task, project, team or workspace of the caller's workspace (404 otherwise). */
export async function exportResource(db: Executor, principal: Principal, type: ExportType, idOrRef: string): Promise<ExportDocumentDto> {
  if (type === "workspace") {
    // Another workspace is not found, whatever the caller's role; the whole of one's own (every member's email,
    // every record) is for its owners only.
    if (idOrRef !== principal.workspace.id) throw notFound(type);
    requireWorkspaceRole(principal, "OWNER", "export the workspace");
    requireUnbound(principal, "export the whole workspace");
  }
  const statement = exportStatement(type, idOrRef, principal.workspace.id, principal.teamIds);
  const result = await db.execute<{ data: ExportDataDto | null }>(statement);
  const data = result.rows[0]?.data;
  if (!data) throw notFound(type);
  return { type, version: 1, data, exportedAt: new Date().toISOString() };
}
