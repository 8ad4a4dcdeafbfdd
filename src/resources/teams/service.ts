import { and, sql } from "drizzle-orm";
import { teamMembers, teams } from "../../../drizzle/schema";
import { actorMay } from "../../auth/access";
import { type Actor, type Principal, principalActor } from "../../auth/principal";
import { conflict } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { lockTeamTree } from "../../db/tree-locks";
import { newId } from "../../ids";
import { teamForCaller } from "./access";
import { getTeam, mine, updatedTeam } from "./queries";
import type { TeamCreateInput, TeamUpdateInput } from "./schema";
import { assertValidParent } from "./tree";

/** Contract §4: a sub-team needs team role ADMIN or higher in its parent (or workspace ADMIN/OWNER), on create and on a move. */
const SUBTEAM = { min: "ADMIN", what: "put a sub-team under this team" } as const;
const requireParentRights = (tx: Executor, principal: Principal, parentId: string) =>
  teamForCaller(tx, principal, parentId, SUBTEAM, "Parent team");

/**
 * Any workspace member may create a top-level team; the creator becomes its OWNER in the same transaction. A sub-team
 * needs the parent's rights (requireParentRights).
 */
export function createTeam(db: Db, principal: Principal, input: TeamCreateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const id = newId("team");
    if (input.parentId) await requireParentRights(tx, principal, input.parentId);
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
 * ONE statement that updates the team under the rule and returns the Team object (undefined when it wrote
 * nothing: explainRefusedUpdate); with `actor` the credential's SQL it authenticates itself.
 */
export function writeTeam(exec: Executor, actor: Actor, id: string, input: TeamUpdateInput) {
  return updatedTeam(
    exec,
    actor.workspace,
    exec
      .update(teams)
      .set({ ...input, updatedAt: sql`now()` })
      .where(and(mine(actor.workspace, id), actorMay(actor, teams.id, EDIT.min)))
      .returning()
      .getSQL(),
  );
}

/** Why writeTeam wrote nothing: teamForCaller's 404 or 403; if it now passes, the row changed meanwhile (409). */
export async function explainRefusedUpdate(db: Executor, principal: Principal, id: string): Promise<never> {
  await teamForCaller(db, principal, id, EDIT);
  throw conflict("The row changed meanwhile; retry the request");
}

/**
 * The checked update: a new parent first locks the workspace's team tree and is checked for cycles, in a
 * transaction around the same statement (writeTeam).
 */
export async function updateTeam(db: Db, principal: Principal, id: string, input: TeamUpdateInput) {
  const workspaceId = principal.workspace.id;
  const write = async (exec: Executor) =>
    (await writeTeam(exec, principalActor(principal), id, input)) ?? explainRefusedUpdate(exec, principal, id);
  if (!input.parentId) return write(db);
  const parentId = input.parentId;
  return db.transaction(async (tx) => {
    await teamForCaller(tx, principal, id, EDIT);
    await requireParentRights(tx, principal, parentId);
    await lockTeamTree(tx, workspaceId);
    await assertValidParent(tx, workspaceId, id, parentId);
    return write(tx);
  });
}

/** Tasks, projects and memberships go with the team (FK cascades); sub-teams stay, top-level. One statement; false when it deleted nothing. */
export async function deleteTeam(db: Db, actor: Actor, id: string): Promise<boolean> {
  const rows = await db
    .delete(teams)
    .where(and(mine(actor.workspace, id), actorMay(actor, teams.id, "OWNER")))
    .returning({ id: teams.id });
  return rows.length > 0;
}

/** Why deleteTeam deleted nothing: 404 or 403; if it now passes, the row changed meanwhile (409). */
export async function explainRefusedDelete(db: Db, principal: Principal, id: string): Promise<never> {
  await teamForCaller(db, principal, id, { min: "OWNER", what: "delete this team" });
  throw conflict("The row changed meanwhile; retry the request");
}
