import { and, eq, sql } from "drizzle-orm";
import { milestones, projects, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { callerMay, guardedWrite } from "../access";
import { validateCustomFields } from "../fields/values";
import { projectForCaller } from "../projects/access";
import { projectMatch } from "../refs";
import { milestoneForCaller } from "./access";
import { serializeMilestone } from "./queries";
import type { MilestoneCreateInput, MilestoneUpdateInput } from "./schema";

const CREATE = { min: "MEMBER", what: "add milestones to this project" } as const;

/**
 * ONE statement (sent as one transaction): the INSERT … SELECT reads the project (in the workspace, by id or
 * reference) and the caller's role in its team, and writes only under the rule; the foreign key keeps the project
 * from going away meanwhile. Custom fields are first checked against the definitions, in a transaction that
 * share-locks the project, around the same statement.
 */
export async function createMilestone(db: Db, principal: Principal, input: MilestoneCreateInput) {
  const workspaceId = principal.workspace.id;
  const insert = (exec: Executor, customFields: Record<string, unknown>) =>
    guardedWrite(
      () =>
        exec
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
              .where(
                and(
                  eq(projects.workspaceId, workspaceId),
                  projectMatch(input.projectId),
                  callerMay(principal, projects.teamId, CREATE.min),
                ),
              ),
          )
          .returning(),
      () => projectForCaller(exec, principal, input.projectId, CREATE),
    );
  const row = input.customFields
    ? await db.transaction(async (tx) => {
        await projectForCaller(tx, principal, input.projectId, { ...CREATE, lock: "key share" });
        return insert(tx, await validateCustomFields(tx, workspaceId, "milestone", input.customFields));
      })
    : await insert(db, {});
  return serializeMilestone(row);
}

const WRITE = { min: "MEMBER", what: "change this milestone" } as const;

/** The team of the milestone's project: what the write rule is decided on. */
const milestoneTeam = sql`(select ${projects.teamId} from ${projects} where ${projects.id} = ${milestones.projectId})`;

/**
 * The one milestone update: ONE statement (rule included) sent as one transaction. A body with custom fields
 * first merges and checks them against the current ones and the definitions, in a transaction around the same
 * statement. An empty body writes nothing visible (updatedAt stays).
 */
export async function updateMilestone(db: Db, principal: Principal, id: string, input: MilestoneUpdateInput) {
  const workspaceId = principal.workspace.id;
  const { customFields, ...columns } = input;
  const write = (exec: Executor, merged?: Record<string, unknown>) =>
    guardedWrite(
      () =>
        exec
          .update(milestones)
          .set({
            ...columns,
            ...(merged && { customFields: merged }),
            updatedAt: Object.keys(input).length > 0 ? sql`now()` : sql`${milestones.updatedAt}`,
          })
          .where(and(eq(milestones.workspaceId, workspaceId), eq(milestones.id, id), callerMay(principal, milestoneTeam, WRITE.min)))
          .returning(),
      () => milestoneForCaller(exec, principal, id, WRITE),
    );
  const row = customFields
    ? await db.transaction(async (tx) => {
        const current = await milestoneForCaller(tx, principal, id, { ...WRITE, lock: "update" });
        return write(tx, await validateCustomFields(tx, workspaceId, "milestone", customFields, current.customFields));
      })
    : await write(db);
  return serializeMilestone(row);
}

/** Deletes the milestone: its comments go with it; its tasks stay, with `milestoneId` cleared (FK set null). One statement. */
export async function deleteMilestone(db: Db, principal: Principal, id: string) {
  const workspaceId = principal.workspace.id;
  await guardedWrite(
    () =>
      db
        .delete(milestones)
        .where(and(eq(milestones.workspaceId, workspaceId), eq(milestones.id, id), callerMay(principal, milestoneTeam, "MEMBER")))
        .returning({ id: milestones.id }),
    () => milestoneForCaller(db, principal, id, { min: "MEMBER", what: "delete this milestone" }),
  );
}
