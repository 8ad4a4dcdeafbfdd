import { and, eq, type SQL, sql, type WithSubquery } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { teams } from "../../../drizzle/schema";
import { iso } from "../../core/dates";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type FieldSelection, type ListParams, type ListSpec, pageQuery, selects } from "../../http/list";
import { memberItemShape, membersJson, type TeamMemberItemRow } from "../team-members/queries";

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

/**
 * Team, parent and members in one query; the members subquery is skipped when `fields` does not ask for them.
 * `ctes` lead the statement: an update puts the workspace's teams as they are after it under the name `teams`.
 */
function selectTeams(db: Executor, fields: FieldSelection | null, ctes: WithSubquery[] = []) {
  return (ctes.length ? db.with(...ctes) : db)
    .select({
      id: teams.id,
      name: teams.name,
      prefix: teams.prefix,
      description: teams.description,
      parentId: teams.parentId,
      parent: { id: parentTeam.id, name: parentTeam.name },
      // Not shown when unselected: the fields projection drops the key.
      members: selects(fields, "members") ? membersJson(teams.id) : noMembers,
      createdAt: teams.createdAt,
      updatedAt: teams.updatedAt,
    })
    .from(teams)
    .leftJoin(parentTeam, and(eq(parentTeam.id, teams.parentId), eq(parentTeam.workspaceId, teams.workspaceId)));
}

type TeamRow = Awaited<ReturnType<typeof selectTeams>>[number];
const serializeTeam = (t: TeamRow) => ({ ...t, createdAt: iso(t.createdAt), updatedAt: iso(t.updatedAt) });

export const mine = (workspaceId: WorkspaceScope, id: string) => and(eq(teams.workspaceId, workspaceId), eq(teams.id, id));

export async function listTeams(db: Executor, workspaceId: WorkspaceScope, params: ListParams) {
  const rows = await pageQuery(selectTeams(db, params.fields).$dynamic(), eq(teams.workspaceId, workspaceId), params);
  return rows.map(serializeTeam);
}

/**
 * The Team object of the team an update `write` (an UPDATE … RETURNING of the workspace's teams) changed, in the
 * same statement; nothing when it changed none. The parent is read from the workspace's teams as the update
 * leaves them.
 */
export async function updatedTeam(db: Executor, workspaceId: WorkspaceScope, write: SQL) {
  const updated = db.$with("updated", { id: sql<string>`id` }).as(write);
  const after = db.$with("teams", { id: sql<string>`id` }).as(sql`
    select * from updated union all select * from ${teams} where ${teams.workspaceId} = ${workspaceId} and ${teams.id} not in (select id from updated)`);
  const [row] = await selectTeams(db, null, [updated, after]).where(sql`${teams.id} in (select id from updated)`);
  return row && serializeTeam(row);
}

export async function getTeam(db: Executor, workspaceId: WorkspaceScope, id: string, fields: FieldSelection | null = null) {
  const [row] = await selectTeams(db, fields).where(mine(workspaceId, id));
  if (!row) throw notFound("Team");
  return serializeTeam(row);
}
