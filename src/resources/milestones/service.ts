import { and, eq, sql } from "drizzle-orm";
import { milestones, projects, teams } from "../../../drizzle/schema";
import { actorMay } from "../../auth/access";
import { type Actor, type Principal, principalActor } from "../../auth/principal";
import { conflict } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { validateCustomFields } from "../../records/custom-fields";
import { projectMatch } from "../../records/refs";
import { projectForCaller } from "../projects/access";
import { milestoneForCaller } from "./access";
import { serializeMilestone } from "./queries";
import type { MilestoneCreateInput, MilestoneUpdateInput } from "./schema";

const CREATE = { min: "MEMBER", what: "add milestones to this project" } as const;

/**
 * ONE statement: the INSERT … SELECT reads the project (in the actor's workspace, by id or reference) and the
 * actor's role in its team, and writes only under the rule; the foreign key keeps the project from going away
 * meanwhile. With `actor` the credential's SQL the statement authenticates itself. Undefined when it wrote
 * nothing (explainRefusedCreate says why).
 */
async function insertMilestone(exec: Executor, actor: Actor, input: MilestoneCreateInput, customFields: Record<string, unknown>) {
  const [row] = await exec
    .insert(milestones)
    .select(
      // Every column in the table's order, as INSERT … SELECT takes them.
      exec
        .select({
          id: sql<string>`${newId("mile")}`.as("id"),
          workspaceId: projects.workspaceId,
          projectId: projects.id,
          name: sql<string>`${input.name}`.as("name"),
          description: sql<string>`${input.description ?? ""}`.as("description"),
          status: sql<string>`${input.status ?? "PLANNED"}::milestone_status`.as("status"),
          targetDate: sql<string | null>`${input.targetDate ?? null}::date`.as("target_date"),
          customFields: sql<Record<string, unknown>>`${JSON.stringify(customFields)}::jsonb`.as("custom_fields"),
          createdAt: sql<Date>`now()`.as("created_at"),
          updatedAt: sql<Date>`now()`.as("updated_at"),
        })
        .from(projects)
        .innerJoin(teams, eq(teams.id, projects.teamId))
        .where(and(eq(projects.workspaceId, actor.workspace), projectMatch(input.projectId), actorMay(actor, projects.teamId, CREATE.min))),
    )
    .returning();
  return row && serializeMilestone(row);
}

/** The common create (no custom fields): insertMilestone alone. */
export const createMilestoneAs = (db: Db, actor: Actor, input: MilestoneCreateInput) => insertMilestone(db, actor, input, {});

/** Why a create wrote nothing: projectForCaller's 404 or 403; if the project now passes, it changed meanwhile (409). */
export async function explainRefusedCreate(db: Executor, principal: Principal, input: MilestoneCreateInput): Promise<never> {
  await projectForCaller(db, principal, input.projectId, CREATE);
  throw conflict("The row changed meanwhile; retry the request");
}

/**
 * The checked create: custom fields are first checked against the definitions, in a transaction that
 * share-locks the project, around the same statement.
 */
export async function createMilestone(db: Db, principal: Principal, input: MilestoneCreateInput) {
  const workspaceId = principal.workspace.id;
  const actor = principalActor(principal);
  const row = input.customFields
    ? await db.transaction(async (tx) => {
        await projectForCaller(tx, principal, input.projectId, { ...CREATE, lock: "key share" });
        return insertMilestone(tx, actor, input, await validateCustomFields(tx, workspaceId, "milestone", input.customFields));
      })
    : await insertMilestone(db, actor, input, {});
  return row ?? explainRefusedCreate(db, principal, input);
}

const WRITE = { min: "MEMBER", what: "change this milestone" } as const;

/** The team of the milestone's project: what the write rule is decided on. */
const milestoneTeam = sql`(select ${projects.teamId} from ${projects} where ${projects.id} = ${milestones.projectId})`;

/** The one milestone update statement (rule included); undefined when it wrote nothing. An empty body writes nothing visible (updatedAt stays). */
export async function writeMilestone(
  exec: Executor,
  actor: Actor,
  id: string,
  input: MilestoneUpdateInput,
  merged?: Record<string, unknown>,
) {
  const { customFields: _unmerged, ...columns } = input;
  const [row] = await exec
    .update(milestones)
    .set({
      ...columns,
      ...(merged && { customFields: merged }),
      updatedAt: Object.keys(input).length > 0 ? sql`now()` : sql`${milestones.updatedAt}`,
    })
    .where(and(eq(milestones.workspaceId, actor.workspace), eq(milestones.id, id), actorMay(actor, milestoneTeam, WRITE.min)))
    .returning();
  return row && serializeMilestone(row);
}

/** Why writeMilestone wrote nothing: milestoneForCaller's 404 or 403; if it now passes, the row changed meanwhile (409). */
export async function explainRefusedUpdate(db: Executor, principal: Principal, id: string): Promise<never> {
  await milestoneForCaller(db, principal, id, WRITE);
  throw conflict("The row changed meanwhile; retry the request");
}

/**
 * The checked update: a body with custom fields first merges and checks them against the current ones and the
 * definitions, in a transaction around the same statement.
 */
export async function updateMilestone(db: Db, principal: Principal, id: string, input: MilestoneUpdateInput) {
  const workspaceId = principal.workspace.id;
  const actor = principalActor(principal);
  const { customFields } = input;
  const row = customFields
    ? await db.transaction(async (tx) => {
        const current = await milestoneForCaller(tx, principal, id, { ...WRITE, lock: "update" });
        const merged = await validateCustomFields(tx, workspaceId, "milestone", customFields, current.customFields);
        return writeMilestone(tx, actor, id, input, merged);
      })
    : await writeMilestone(db, actor, id, input);
  return row ?? explainRefusedUpdate(db, principal, id);
}

/** Deletes the milestone: its comments go with it; its tasks stay, with `milestoneId` cleared (FK set null). One statement; false when it deleted nothing. */
export async function deleteMilestone(db: Db, actor: Actor, id: string): Promise<boolean> {
  const rows = await db
    .delete(milestones)
    .where(and(eq(milestones.workspaceId, actor.workspace), eq(milestones.id, id), actorMay(actor, milestoneTeam, "MEMBER")))
    .returning({ id: milestones.id });
  return rows.length > 0;
}

/** Why deleteMilestone deleted nothing: 404 or 403; if it now passes, the row changed meanwhile (409). */
export async function explainRefusedDelete(db: Db, principal: Principal, id: string): Promise<never> {
  await milestoneForCaller(db, principal, id, { min: "MEMBER", what: "delete this milestone" });
  throw conflict("The row changed meanwhile; retry the request");
}
