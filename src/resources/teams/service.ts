import { and, sql } from "drizzle-orm";
import { teamMembers, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { callerMay, guardedWrite } from "../access";
import { teamForCaller } from "./access";
import { getTeam, mine, updatedTeam } from "./queries";
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

const EDIT = { min: "ADMIN", what: "edit this team" } as const;

/**
 * ONE statement (sent as one transaction) that updates the team under the rule and returns the Team object. A
 * new parent first locks the workspace's team tree and is checked for cycles, in a transaction around the same
 * statement.
 */
export async function updateTeam(db: Db, principal: Principal, id: string, input: TeamUpdateInput) {
  const workspaceId = principal.workspace.id;
  const write = (exec: Executor) =>
    guardedWrite(
      () =>
        updatedTeam(
          exec,
          workspaceId,
          exec
            .update(teams)
            .set({ ...input, updatedAt: sql`now()` })
            .where(and(mine(workspaceId, id), callerMay(principal, teams.id, EDIT.min)))
            .returning()
            .getSQL(),
        ).then((row) => (row ? [row] : [])),
      () => teamForCaller(exec, principal, id, EDIT),
    );
  if (!input.parentId) return write(db);
  const parentId = input.parentId;
  return db.transaction(async (tx) => {
    await teamForCaller(tx, principal, id, EDIT);
    await lockTeamTree(tx, workspaceId);
    await assertValidParent(tx, workspaceId, id, parentId);
    return write(tx);
  });
}

/** Tasks, projects and memberships go with the team (FK cascades); sub-teams stay, top-level. One statement. */
export async function deleteTeam(db: Db, principal: Principal, id: string): Promise<void> {
  await guardedWrite(
    () =>
      db
        .delete(teams)
        .where(and(mine(principal.workspace.id, id), callerMay(principal, teams.id, "OWNER")))
        .returning({ id: teams.id }),
    () => teamForCaller(db, principal, id, { min: "OWNER", what: "delete this team" }),
  );
}
