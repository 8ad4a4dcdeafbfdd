import { eq, sql } from "drizzle-orm";
import { projects, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import { invalid, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { validateCustomFields } from "../fields/values";
import { setLabels } from "../labels/attach";
import { teamForCaller } from "../teams/access";
import { assertWorkspaceMember } from "../users/membership";
import { projectForCaller } from "./access";
import { getProject } from "./queries";
import type { ProjectCreateInput, ProjectUpdateInput } from "./schema";

function assertDateOrder(startDate: string | null | undefined, targetDate: string | null | undefined) {
  // YYYY-MM-DD strings compare as dates.
  if (startDate && targetDate && targetDate < startDate) throw invalid("targetDate", "Must not be before startDate");
}

/** The lead a body names must be a member of the workspace (NOT_FOUND otherwise); labels are checked by setLabels. */
async function assertLead(tx: Executor, workspaceId: string, input: { leadId?: string | null }) {
  if (input.leadId) await assertWorkspaceMember(tx, workspaceId, input.leadId, "Lead");
}

export async function createProject(db: Db, principal: Principal, input: ProjectCreateInput) {
  assertDateOrder(input.startDate, input.targetDate);
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    await teamForCaller(tx, principal, input.teamId, { min: "MEMBER", what: "create projects in this team" });
    await assertLead(tx, workspaceId, input);
    const customFields = await validateCustomFields(tx, workspaceId, "project", input.customFields);
    const id = newId("proj");
    // One statement: the team's project counter moves and the project is inserted with the new number, so
    // concurrent creates serialize on the team row and never share a number.
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
      )
      select id from p`);
    if (inserted.rows.length === 0) throw notFound("Team");
    if (input.labelIds?.length) await setLabels(tx, "project", id, workspaceId, input.labelIds);
    return getProject(tx, workspaceId, id);
  });
}

export async function updateProject(db: Db, principal: Principal, idOrRef: string, input: ProjectUpdateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const current = await projectForCaller(tx, principal, idOrRef, { min: "MEMBER", what: "change this project", lock: "update" });
    assertDateOrder(
      input.startDate === undefined ? current.startDate : input.startDate,
      input.targetDate === undefined ? current.targetDate : input.targetDate,
    );
    await assertLead(tx, workspaceId, input);
    const { labelIds, customFields, ...columns } = input;
    const merged = customFields && (await validateCustomFields(tx, workspaceId, "project", customFields, current.customFields));
    if (Object.keys(input).length > 0) {
      await tx
        .update(projects)
        .set({ ...columns, ...(merged && { customFields: merged }), updatedAt: sql`now()` })
        .where(eq(projects.id, current.id));
    }
    if (labelIds) await setLabels(tx, "project", current.id, workspaceId, labelIds);
    return getProject(tx, workspaceId, current.id);
  });
}

/** Deletes the project: its milestones and comments go with it; its tasks stay, unlinked (FKs set null). */
export async function deleteProject(db: Db, principal: Principal, idOrRef: string) {
  await db.transaction(async (tx) => {
    const project = await projectForCaller(tx, principal, idOrRef, { min: "MEMBER", what: "delete this project" });
    await tx.delete(projects).where(eq(projects.id, project.id));
  });
}
