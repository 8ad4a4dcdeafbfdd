import { sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { taskLabels, tasks, teamMembers, teams, users } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Executor, WorkspaceScope } from "../../db/client";
import { workspaceLabels } from "../labels/attach";
import { userSummaryJson } from "../users/serialize";
import { serializeTask } from "./read";
import type { TaskDto } from "./schema";

export interface TaskColumns {
  title: string;
  description: string;
  status: string;
  priority: string;
  dueDate: string | null;
  projectId: string | null;
  milestoneId: string | null;
  parentId: string | null;
  assigneeId: string | null;
  customFields: Record<string, unknown>;
}

const assignee = alias(users, "assignee");

/** Who creates: plain values from a loaded principal, or SQL from the credential (credentialActor). */
export interface Actor {
  workspace: WorkspaceScope;
  user: string | SQL<string>;
  role: string | SQL<string>;
}

export const principalActor = (p: Principal): Actor => ({ workspace: p.workspace.id, user: p.user.id, role: p.role });

/**
 * Creates a task in ONE statement, returning the Task object: the team's counter moves (its row lock serialises
 * concurrent creates, so numbers are consecutive and never reused) only when the caller may write in the team
 * and every label is the workspace's; then the task and its labels are inserted. Nothing is written — and
 * undefined comes back — when a condition fails, so the caller can say which.
 */
export async function insertTask(
  db: Executor,
  actor: Actor,
  id: string,
  teamId: string,
  c: TaskColumns,
  labelIds: string[],
): Promise<TaskDto | undefined> {
  const workspaceId = actor.workspace;
  // Contract §4: workspace ADMIN/OWNER, or team role MEMBER or higher.
  const mayWrite = sql`(${actor.role} in ('ADMIN', 'OWNER') or exists (select 1 from ${teamMembers} where ${teamMembers.teamId} = ${teams.id} and ${teamMembers.userId} = ${actor.user} and ${teamMembers.role} <> 'VIEWER'))`;
  const result = await db.execute(sql`
    with valid as (${workspaceLabels(workspaceId, labelIds)}), counter as (
      update ${teams} set task_counter = task_counter + 1
      where ${teams.id} = ${teamId} and ${teams.workspaceId} = ${workspaceId} and ${mayWrite}
        and (select count(*) from valid) = ${labelIds.length}
      returning id, workspace_id, name, prefix, task_counter
    ), ins as (
      insert into ${tasks} (id, workspace_id, team_id, number, title, description, status, priority, due_date,
        project_id, milestone_id, parent_id, assignee_id, creator_id, custom_fields)
      select ${id}, counter.workspace_id, counter.id, counter.task_counter, ${c.title}, ${c.description}, ${c.status}::task_status,
        ${c.priority}::task_priority, ${c.dueDate}::date, ${c.projectId}, ${c.milestoneId}, ${c.parentId}, ${c.assigneeId},
        ${actor.user}, ${JSON.stringify(c.customFields)}::jsonb
      from counter
      returning *
    ), attached as (
      insert into ${taskLabels} (task_id, label_id) select ins.id, valid.id from ins cross join valid
    )
    select ins.id, ins.number, ins.title, ins.status, ins.priority, ins.description,
      to_char(ins.due_date, 'YYYY-MM-DD') as "dueDate", ins.team_id as "teamId",
      json_build_object('id', counter.id, 'name', counter.name, 'prefix', counter.prefix) as team,
      ins.project_id as "projectId", ins.milestone_id as "milestoneId", ins.parent_id as "parentId",
      ins.assignee_id as "assigneeId", ${userSummaryJson(assignee)} as assignee,
      coalesce((select json_agg(json_build_object('id', v.id, 'name', v.name, 'color', v.color) order by v.name, v.id) from valid v), '[]'::json) as labels,
      ins.custom_fields as "customFields", ins.created_at as "createdAt", ins.updated_at as "updatedAt"
    from ins cross join counter
    left join ${users} ${sql.identifier("assignee")} on ${assignee.id} = ins.assignee_id`);
  const row = result.rows[0] as Parameters<typeof serializeTask>[0] | undefined;
  return row && serializeTask({ ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) });
}
