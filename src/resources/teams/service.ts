import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { teamMembers, teams } from "../../../drizzle/schema";
import type { Principal } from "../../auth/principal";
import type { Db, Executor, WorkspaceScope } from "../../db/client";
import { notFound } from "../../core/errors";
import type { FieldSelection, ListParams, ListSpec } from "../../http/list";
import { iso } from "../../core/dates";
import { newId } from "../../ids";
import { memberItemShape, membersJson, type TeamMemberItemRow } from "../team-members/serialize";
import { teamForWrite } from "./access";
import type { TeamCreateInput, TeamUpdateInput } from "./schema";
import { assertValidParent, lockTeamTree } from "./tree";

export const teamList: ListSpec = {
  resource: "teams",
  id: teams.id,
  fields: {
    id: { expr: teams.id, kind: "id" },
    name: { expr: teams.name, kind: "string" },
    prefix: { expr: teams.prefix, kind: "string" },
    description: { expr: teams.description, kind: "string" },
    parentId: { expr: teams.parentId, kind: "id", nullable: true },
    createdAt: { expr: teams.createdAt, kind: "datetime" },
    updatedAt: { expr: teams.updatedAt, kind: "datetime" },
  },
  shape: {
    id: true,
    name: true,
    prefix: true,
    description: true,
    parentId: true,
    parent: { id: true, name: true },
    members: memberItemShape,
    createdAt: true,
    updatedAt: true,
  },
};

const parentTeam = alias(teams, "parent");
const noMembers = sql<TeamMemberItemRow[]>`'[]'::json`;

/** Team, parent and members in one query; the members subquery is skipped when `fields` does not ask for them. */
function selectTeams(db: Executor, fields: FieldSelection | null) {
  const wantsMembers = fields === null || Object.hasOwn(fields, "members");
  return db
    .select({
      id: teams.id,
      name: teams.name,
      prefix: teams.prefix,
      description: teams.description,
      parentId: teams.parentId,
      parent: { id: parentTeam.id, name: parentTeam.name },
      // Not shown when unselected: the fields projection drops the key.
      members: wantsMembers ? membersJson(teams.id) : noMembers,
      createdAt: teams.createdAt,
      updatedAt: teams.updatedAt,
    })
    .from(teams)
    .leftJoin(parentTeam, and(eq(parentTeam.id, teams.parentId), eq(parentTeam.workspaceId, teams.workspaceId)));
}

type TeamRow = Awaited<ReturnType<typeof selectTeams>>[number];
const serializeTeam = (t: TeamRow) => ({ ...t, createdAt: iso(t.createdAt), updatedAt: iso(t.updatedAt) });

const mine = (workspaceId: WorkspaceScope, id: string) => and(eq(teams.workspaceId, workspaceId), eq(teams.id, id));

export async function listTeams(db: Db, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await selectTeams(db, params.fields)
    .where(and(eq(teams.workspaceId, workspaceId), params.where))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  return rows.map(serializeTeam);
}

export async function getTeam(db: Executor, workspaceId: WorkspaceScope, id: string, fields: FieldSelection | null = null) {
  const [row] = await selectTeams(db, fields).where(mine(workspaceId, id));
  if (!row) throw notFound("Team");
  return serializeTeam(row);
}

/** Any workspace member may create a team; the creator becomes its OWNER in the same transaction. */
export function createTeam(db: Db, principal: Principal, input: TeamCreateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    const id = newId("team");
    if (input.parentId) await assertValidParent(tx, workspaceId, id, input.parentId);
    await tx.insert(teams).values({ id, workspaceId, name: input.name, prefix: input.prefix, description: input.description ?? "", parentId: input.parentId ?? null });
    await tx.insert(teamMembers).values({ id: newId("tmbr"), workspaceId, teamId: id, userId: principal.user.id, role: "OWNER" });
    return getTeam(tx, workspaceId, id);
  });
}

export function updateTeam(db: Db, principal: Principal, id: string, input: TeamUpdateInput) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    await teamForWrite(tx, principal, id, "ADMIN", "edit this team");
    if (input.parentId) {
      await lockTeamTree(tx, workspaceId);
      await assertValidParent(tx, workspaceId, id, input.parentId);
    }
    await tx.update(teams).set({ ...input, updatedAt: sql`now()` }).where(mine(workspaceId, id));
    return getTeam(tx, workspaceId, id);
  });
}

/** Tasks, projects and memberships go with the team (FK cascades); sub-teams stay, top-level. */
export function deleteTeam(db: Db, principal: Principal, id: string) {
  return db.transaction(async (tx) => {
    await teamForWrite(tx, principal, id, "OWNER", "delete this team");
    await tx.delete(teams).where(mine(principal.workspace.id, id));
  });
}
