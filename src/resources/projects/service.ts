import { and, eq, inArray, sql } from "drizzle-orm";
import { projects, teams } from "../../../drizzle/schema";
import { actorMay } from "../../auth/access";
import { type Actor, type Principal, principalActor } from "../../auth/principal";
import { conflict, invalid } from "../../core/errors";
import type { Db, Executor, WorkspaceScope } from "../../db/client";
import { newId } from "../../ids";
import { validateCustomFields } from "../../records/custom-fields";
import { assertWorkspaceLabels, replaceLabels } from "../../records/labels";
import { projectMatch } from "../../records/refs";
import { assertWorkspaceMember } from "../../records/users";
import { teamForCaller } from "../teams/access";
import { projectForCaller } from "./access";
import { selectProjects, serializeProject } from "./queries";
import type { ProjectCreateInput, ProjectUpdateInput } from "./schema";

function assertDateOrder(startDate: string | null | undefined, targetDate: string | null | undefined) {
  // YYYY-MM-DD strings compare as dates.
  if (startDate && targetDate && targetDate < startDate) throw invalid("targetDate", "Must not be before startDate");
}

/** The lead a body names must be a member of the workspace (NOT_FOUND otherwise); labels are checked by setLabels. */
async function assertLead(tx: Executor, workspaceId: string, input: { leadId?: string | null }) {
  if (input.leadId) await assertWorkspaceMember(tx, workspaceId, input.leadId, "Lead");
}

const CREATE = { min: "MEMBER", what: "create projects in this team" } as const;

/**
 * Inserts a project in ONE statement (sent as one transaction in one round trip) and returns the Project object,
 * or undefined when nothing was written (explainRefusedCreate says why). The team's project counter moves (its row
 * lock serialises concurrent creates, so numbers are never shared) only when the team is the workspace's, the
 * caller may create in it and every label is the workspace's; then the project and its labels are inserted. CTEs
 * named `projects` and `project_labels` hold the new rows under the names selectProjects reads.
 */
async function insertProject(db: Executor, actor: Actor, input: ProjectCreateInput, customFields: Record<string, unknown>) {
  const workspaceId = actor.workspace;
  const id = newId("proj");
  const labels = replaceLabels(db, "project", workspaceId, [...new Set(input.labelIds ?? [])], "projects");
  const counter = db.$with("counter", { n: sql<number>`project_counter` }).as(sql`
    update ${teams} set project_counter = project_counter + 1
    where ${teams.id} = ${input.teamId} and ${teams.workspaceId} = ${workspaceId} and ${actorMay(actor, teams.id, CREATE.min)}
      and ${labels.allValid}
    returning project_counter`);
  const inserted = db.$with("projects", { id: sql<string>`id` }).as(sql`
    insert into ${projects} (id, workspace_id, team_id, number, name, description, status, lead_id, start_date, target_date, custom_fields)
    select ${id}, ${workspaceId}, ${input.teamId}, counter.project_counter, ${input.name}, ${input.description ?? ""},
      ${input.status ?? "PLANNING"}::project_status, ${input.leadId ?? null}, ${input.startDate ?? null}::date,
      ${input.targetDate ?? null}::date, ${JSON.stringify(customFields)}::jsonb
    from counter
    returning *`);
  const [row] = await selectProjects(db, null, [labels.valid, counter, inserted, ...labels.links]).where(eq(projects.id, id));
  return row && serializeProject(row);
}

/** Why a create wrote nothing: the team is missing (404) or refuses the caller (403), or a label is foreign (404). */
export async function explainRefusedCreate(db: Executor, principal: Principal, input: ProjectCreateInput): Promise<never> {
  await teamForCaller(db, principal, input.teamId, CREATE);
  if (input.labelIds) await assertWorkspaceLabels(db, principal.workspace.id, input.labelIds);
  throw conflict("The team or its labels changed meanwhile; retry the request");
}

/** A body that needs the checked create (a lead or custom fields to check, dates out of order to refuse). */
export const needsCheckedCreate = (input: ProjectCreateInput) =>
  Boolean(input.leadId || input.customFields || (input.startDate && input.targetDate && input.targetDate < input.startDate));

/**
 * The common create: insertProject alone, one statement that authenticates and authorizes itself when `actor`
 * is the credential's SQL; undefined when it wrote nothing (explainRefusedCreate says why). For bodies without
 * needsCheckedCreate.
 */
export const createProjectAs = (db: Db, actor: Actor, input: ProjectCreateInput) => insertProject(db, actor, input, {});

/**
 * The one project create (insertProject): that statement alone, or, when the body names a lead or custom fields,
 * a transaction that checks them (after the team and the rule) around the same statement.
 */
export async function createProject(db: Db, principal: Principal, input: ProjectCreateInput) {
  assertDateOrder(input.startDate, input.targetDate);
  const workspaceId = principal.workspace.id;
  const actor = principalActor(principal);
  const project =
    input.leadId || input.customFields
      ? await db.transaction(async (tx) => {
          await teamForCaller(tx, principal, input.teamId, CREATE);
          await assertLead(tx, workspaceId, input);
          return insertProject(tx, actor, input, await validateCustomFields(tx, workspaceId, "project", input.customFields));
        })
      : await insertProject(db, actor, input, {});
  return project ?? explainRefusedCreate(db, principal, input);
}

const WRITE = { min: "MEMBER", what: "change this project" } as const;

/** The project `idOrRef` names in the workspace, as a subquery of its id (a reference needs the team's prefix). */
const projectIdOf = (db: Executor, workspaceId: WorkspaceScope, idOrRef: string) =>
  db
    .select({ id: projects.id })
    .from(projects)
    .innerJoin(teams, eq(teams.id, projects.teamId))
    .where(and(eq(projects.workspaceId, workspaceId), projectMatch(idOrRef)));

/** assertDateOrder in SQL: the dates after the update (the stored ones where the body leaves them) stay in order. */
function datesInOrder(input: ProjectUpdateInput) {
  const start = input.startDate === undefined ? projects.startDate : sql`${input.startDate}::date`;
  const target = input.targetDate === undefined ? projects.targetDate : sql`${input.targetDate}::date`;
  return sql`(${start} is null or ${target} is null or ${target} >= ${start})`;
}

/**
 * Updates a project in ONE statement (sent as one transaction in one round trip) and returns the Project object,
 * or undefined when nothing was written (explainRefusedUpdate says why). The row changes only when it is the
 * workspace's, the caller may write in its team, the dates stay in order and every label is the workspace's;
 * `labelIds` then replaces the label set in the same statement. CTEs named `projects` and `project_labels` hold
 * the new rows under the names selectProjects reads. An empty body writes nothing visible.
 */
export async function writeProject(
  db: Executor,
  actor: Actor,
  idOrRef: string,
  input: ProjectUpdateInput,
  customFields: Record<string, unknown> | undefined,
) {
  const workspaceId = actor.workspace;
  const { labelIds, customFields: _unmerged, ...columns } = input;
  const labels = labelIds && replaceLabels(db, "project", workspaceId, [...new Set(labelIds)], "projects");
  const update = db
    .update(projects)
    .set({
      ...columns,
      ...(customFields && { customFields }),
      updatedAt: Object.keys(input).length > 0 ? sql`now()` : sql`${projects.updatedAt}`,
    })
    .where(
      and(
        eq(projects.workspaceId, workspaceId),
        inArray(projects.id, projectIdOf(db, workspaceId, idOrRef)),
        actorMay(actor, projects.teamId, WRITE.min),
        datesInOrder(input),
        labels?.allValid,
      ),
    )
    .returning();
  const updated = db.$with("projects", { id: sql<string>`id` }).as(update.getSQL());
  const ctes = labels ? [labels.valid, updated, ...labels.links] : [updated];
  const [row] = await selectProjects(db, null, ctes).where(and(eq(projects.workspaceId, workspaceId), projectMatch(idOrRef)));
  return row && serializeProject(row);
}

const datesAfter = (input: ProjectUpdateInput, current: { startDate: string | null; targetDate: string | null }) =>
  assertDateOrder(
    input.startDate === undefined ? current.startDate : input.startDate,
    input.targetDate === undefined ? current.targetDate : input.targetDate,
  );

/** Why an update wrote nothing, in the checked path's order: 404/403, dates out of order (422), a foreign label (404). */
export async function explainRefusedUpdate(db: Executor, principal: Principal, idOrRef: string, input: ProjectUpdateInput): Promise<never> {
  datesAfter(input, await projectForCaller(db, principal, idOrRef, WRITE));
  if (input.labelIds) await assertWorkspaceLabels(db, principal.workspace.id, input.labelIds);
  throw conflict("The project or its labels changed meanwhile; retry the request");
}

/**
 * The one project update (writeProject). A body that names a lead or custom fields first checks them (the lead
 * a member, the fields merged with the current ones and type-checked) in a transaction around the same statement;
 * otherwise the statement alone is the request's one round trip after the caller's.
 */
export async function updateProject(db: Db, principal: Principal, idOrRef: string, input: ProjectUpdateInput) {
  const workspaceId = principal.workspace.id;
  const { customFields } = input;
  const project =
    input.leadId || customFields
      ? await db.transaction(async (tx) => {
          const current = await projectForCaller(tx, principal, idOrRef, { ...WRITE, lock: "update" });
          datesAfter(input, current);
          await assertLead(tx, workspaceId, input);
          const merged = customFields && (await validateCustomFields(tx, workspaceId, "project", customFields, current.customFields));
          return writeProject(tx, principalActor(principal), current.id, input, merged);
        })
      : await writeProject(db, principalActor(principal), idOrRef, input, undefined);
  return project ?? explainRefusedUpdate(db, principal, idOrRef, input);
}

/** Deletes the project: its milestones and comments go with it; its tasks stay, unlinked (FKs set null). One statement; false when it deleted nothing (explainRefusedDelete). */
export async function deleteProject(db: Db, actor: Actor, idOrRef: string): Promise<boolean> {
  const rows = await db
    .delete(projects)
    .where(
      and(
        eq(projects.workspaceId, actor.workspace),
        inArray(projects.id, projectIdOf(db, actor.workspace, idOrRef)),
        actorMay(actor, projects.teamId, "MEMBER"),
      ),
    )
    .returning({ id: projects.id });
  return rows.length > 0;
}

/** Why deleteProject deleted nothing: 404 or 403; if the project now passes, it changed meanwhile (409). */
export async function explainRefusedDelete(db: Db, principal: Principal, idOrRef: string): Promise<never> {
  await projectForCaller(db, principal, idOrRef, { min: "MEMBER", what: "delete this project" });
  throw conflict("The row changed meanwhile; retry the request");
}
