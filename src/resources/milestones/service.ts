import { eq, sql } from "drizzle-orm";
import { milestones } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Db } from "../../db/client";
import { newId } from "../../ids";
import { validateCustomFields } from "../fields/values";
import { projectForCaller } from "../projects/access";
import { milestoneForCaller } from "./access";
import { getMilestone, serializeMilestone } from "./queries";
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

export async function updateMilestone(db: Db, principal: Principal, id: string, input: MilestoneUpdateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const current = await milestoneForCaller(tx, principal, id, { min: "MEMBER", what: "change this milestone", lock: "update" });
    if (Object.keys(input).length === 0) return getMilestone(tx, workspaceId, current.id);
    const { customFields, ...columns } = input;
    const merged = customFields && (await validateCustomFields(tx, workspaceId, "milestone", customFields, current.customFields));
    const [row] = await tx
      .update(milestones)
      .set({ ...columns, ...(merged && { customFields: merged }), updatedAt: sql`now()` })
      .where(eq(milestones.id, current.id))
      .returning();
    return serializeMilestone(row);
  });
}

/** Deletes the milestone: its comments go with it; its tasks stay, with `milestoneId` cleared (FK set null). */
export async function deleteMilestone(db: Db, principal: Principal, id: string) {
  await db.transaction(async (tx) => {
    const milestone = await milestoneForCaller(tx, principal, id, { min: "MEMBER", what: "delete this milestone" });
    await tx.delete(milestones).where(eq(milestones.id, milestone.id));
  });
}
