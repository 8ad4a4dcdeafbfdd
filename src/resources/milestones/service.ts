import { and, eq, sql } from "drizzle-orm";
import { milestones, projects } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { callerMay, guardedWrite } from "../access";
import { validateCustomFields } from "../fields/values";
import { projectForCaller } from "../projects/access";
import { milestoneForCaller } from "./access";
import { serializeMilestone } from "./queries";
import type { MilestoneCreateInput, MilestoneUpdateInput } from "./schema";

export async function createMilestone(db: Db, principal: Principal, input: MilestoneCreateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    // Key-share lock: the project cannot be deleted between this check and the insert.
    const project = await projectForCaller(tx, principal, input.projectId, {
      min: "MEMBER",
      what: "add milestones to this project",
      lock: "key share",
    });
    const customFields = await validateCustomFields(tx, workspaceId, "milestone", input.customFields);
    const [row] = await tx
      .insert(milestones)
      .values({
        id: newId("mile"),
        workspaceId,
        projectId: project.id,
        name: input.name,
        description: input.description ?? "",
        targetDate: input.targetDate ?? null,
        status: input.status ?? "PLANNED",
        customFields,
      })
      .returning();
    return serializeMilestone(row);
  });
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
      exec,
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
    db,
    () =>
      db
        .delete(milestones)
        .where(and(eq(milestones.workspaceId, workspaceId), eq(milestones.id, id), callerMay(principal, milestoneTeam, "MEMBER")))
        .returning({ id: milestones.id }),
    () => milestoneForCaller(db, principal, id, { min: "MEMBER", what: "delete this milestone" }),
  );
}
