import { sql } from "drizzle-orm";
import { teamMembers, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Db } from "../../db/client";
import { newId } from "../../ids";
import { teamForCaller } from "./access";
import { getTeam, mine } from "./queries";
import type { TeamCreateInput, TeamUpdateInput } from "./schema";
import { assertValidParent, lockTeamTree } from "./tree";

/** Any workspace member may create a team; the creator becomes its OWNER in the same transaction. */
export function createTeam(db: Db, principal: Principal, input: TeamCreateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const id = newId("team");
    if (input.parentId) await assertValidParent(tx, workspaceId, id, input.parentId);
    await tx.insert(teams).values({
      id,
      workspaceId,
      name: input.name,
      prefix: input.prefix,
      description: input.description ?? "",
      parentId: input.parentId ?? null,
    });
    await tx.insert(teamMembers).values({ id: newId("tmbr"), workspaceId, teamId: id, userId: principal.user.id, role: "OWNER" });
    return getTeam(tx, workspaceId, id);
  });
}

export function updateTeam(db: Db, principal: Principal, id: string, input: TeamUpdateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    await teamForCaller(tx, principal, id, { min: "ADMIN", what: "edit this team" });
    if (input.parentId) {
      await lockTeamTree(tx, workspaceId);
      await assertValidParent(tx, workspaceId, id, input.parentId);
    }
    await tx
      .update(teams)
      .set({ ...input, updatedAt: sql`now()` })
      .where(mine(workspaceId, id));
    return getTeam(tx, workspaceId, id);
  });
}

/** Tasks, projects and memberships go with the team (FK cascades); sub-teams stay, top-level. */
export function deleteTeam(db: Db, principal: Principal, id: string) {
  return db.transaction(async (tx) => {
    await teamForCaller(tx, principal, id, { min: "OWNER", what: "delete this team" });
    await tx.delete(teams).where(mine(principal.workspace.id, id));
  });
}
