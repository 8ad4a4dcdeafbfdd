import { and, eq, inArray, sql } from "drizzle-orm";
import { labels, projectLabels, projects, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Db, Executor } from "../../db/client";
import { invalid, notFound } from "../../http/errors";
import type { FieldSelection } from "../../http/list";
import { newId } from "../../ids";
import { validateCustomFields } from "../fields/values";
import { assertLabelsInWorkspace, replaceLabels } from "../labels/attach";
import { projectMatch } from "../refs";
import { teamForWrite } from "../teams/access";
import { assertWorkspaceMember } from "../users/membership";
import { projectForWrite } from "./access";
import { selectProjects, serializeProject } from "./read";
import type { ProjectCreateInput, ProjectUpdateInput } from "./schema";

function assertDateOrder(startDate: string | null | undefined, targetDate: string | null | undefined) {
  // YYYY-MM-DD strings compare as dates.
  if (startDate && targetDate && targetDate < startDate) throw invalid("targetDate", "Must not be before startDate");
}

/** The Project object of a project of the workspace, by id or reference; NOT_FOUND otherwise. */
export async function getProject(db: Executor, workspaceId: string, idOrRef: string, fields: FieldSelection | null = null) {
  const [row] = await selectProjects(db, fields)
    .where(and(eq(projects.workspaceId, workspaceId), projectMatch(idOrRef)))
    .limit(1);
  if (!row) throw notFound("Project");
  return serializeProject(row);
}

/** Checks the ids a body names (lead, labels) against the workspace: a foreign or unknown one is NOT_FOUND. */
async function assertReferences(tx: Executor, workspaceId: string, input: { leadId?: string | null; labelIds?: string[] }) {
  if (input.leadId) await assertWorkspaceMember(tx, workspaceId, input.leadId, "Lead");
  if (input.labelIds) await assertLabelsInWorkspace(tx, workspaceId, input.labelIds);
}

export async function createProject(db: Db, principal: Principal, input: ProjectCreateInput) {
  assertDateOrder(input.startDate, input.targetDate);
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    await teamForWrite(tx, principal, input.teamId, "MEMBER", "create projects in this team");
    await assertReferences(tx, workspaceId, input);
    const customFields = await validateCustomFields(tx, workspaceId, "project", input.customFields);
    const id = newId("proj");
    const labelIds = [...new Set(input.labelIds ?? [])];
    // One statement: the team's project counter moves and the project (and its labels) is inserted with the
    // new number, so concurrent creates serialize on the team row and never share a number.
    const inserted = await tx.execute<{ id: string }>(sql`
      with n as (
        update ${teams} set project_counter = project_counter + 1
        where ${teams.id} = ${input.teamId} and ${teams.workspaceId} = ${workspaceId}
        returning project_counter
      ), p as (
        insert into ${projects} (id, workspace_id, team_id, number, name, description, status, lead_id, start_date, target_date, custom_fields)
        select ${id}, ${workspaceId}, ${input.teamId}, n.project_counter, ${input.name}, ${input.description ?? ""},
          ${input.status ?? "PLANNING"}::project_status, ${input.leadId ?? null}, ${input.startDate ?? null}::date,
          ${input.targetDate ?? null}::date, ${JSON.stringify(customFields)}::jsonb
        from n
        returning id
      )${labelIds.length ? sql`, l as (
        insert into ${projectLabels} (project_id, label_id)
        select p.id, ${labels.id} from p join ${labels} on ${and(inArray(labels.id, labelIds), eq(labels.workspaceId, workspaceId))}
      )` : sql``}
      select id from p`);
    if (inserted.rows.length === 0) throw notFound("Team");
    return getProject(tx, workspaceId, id);
  });
}

export async function updateProject(db: Db, principal: Principal, idOrRef: string, input: ProjectUpdateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const current = await projectForWrite(tx, principal, idOrRef, { lock: "update" });
    assertDateOrder(
      input.startDate === undefined ? current.startDate : input.startDate,
      input.targetDate === undefined ? current.targetDate : input.targetDate,
    );
    await assertReferences(tx, workspaceId, input);
    const { labelIds, customFields, ...columns } = input;
    const merged = customFields && (await validateCustomFields(tx, workspaceId, "project", customFields, current.customFields));
    if (Object.keys(input).length > 0) {
      await tx
        .update(projects)
        .set({ ...columns, ...(merged && { customFields: merged }), updatedAt: sql`now()` })
        .where(eq(projects.id, current.id));
    }
    if (labelIds) await replaceLabels(tx, "project", current.id, labelIds);
    return getProject(tx, workspaceId, current.id);
  });
}

/** Deletes the project: its milestones and comments go with it; its tasks stay, unlinked (FKs set null). */
export async function deleteProject(db: Db, principal: Principal, idOrRef: string) {
  await db.transaction(async (tx) => {
    const project = await projectForWrite(tx, principal, idOrRef, { what: "delete this project" });
    await tx.delete(projects).where(eq(projects.id, project.id));
  });
}
