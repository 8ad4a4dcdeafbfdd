import { and, eq, getTableName, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { teamMembers, teams, users } from "../../../drizzle/schema";
import { TEAM_ROLES, type TeamRole } from "../../auth/roles";
import { iso } from "../../core/dates";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import type { FieldShape, ListParams, ListSpec } from "../../http/list";
import { type UserSummary, userSummaryJson } from "../../records/users";

/**
 * A TeamMemberItem (team_members joined with users), defined once: the member list selects these columns and a
 * team's `members` builds the same keys in SQL.
 */
export const memberItemColumns = {
  id: users.id,
  name: users.name,
  email: users.email,
  avatarUrl: users.avatarUrl,
  role: teamMembers.role,
  membershipId: teamMembers.id,
};

export type TeamMemberItemRow = { id: string; name: string; email: string; avatarUrl: string | null; role: TeamRole; membershipId: string };

export const memberItemShape: FieldShape = Object.fromEntries(Object.keys(memberItemColumns).map((key) => [key, true]));

const memberItemObject = sql.join(
  // The keys are code constants, inlined because json_build_object cannot infer the type of a text parameter.
  Object.entries(memberItemColumns).map(([key, column]) => sql`${sql.raw(`'${key}'`)}, ${column}`),
  sql`, `,
);

/** A team's members as a JSON array (oldest membership first), a correlated subquery: no query per team. */
export function membersJson(teamId: AnyPgColumn): SQL<TeamMemberItemRow[]> {
  return sql<
    TeamMemberItemRow[]
  >`coalesce((select json_agg(json_build_object(${memberItemObject}) order by ${teamMembers.createdAt}, ${teamMembers.id}) from ${teamMembers} join ${users} on ${users.id} = ${teamMembers.userId} where ${teamMembers.teamId} = ${teamId}), '[]'::json)`;
}

/** Columns of a TeamMember object; the query joins `users` on the member's user. */
export const teamMemberColumns = {
  id: teamMembers.id,
  teamId: teamMembers.teamId,
  userId: teamMembers.userId,
  role: teamMembers.role,
  user: userSummaryJson(users) as SQL<UserSummary>,
};

export const teamMemberShape: FieldShape = {
  id: true,
  teamId: true,
  userId: true,
  role: true,
  user: { id: true, name: true, email: true, avatarUrl: true, humanId: true },
};

/** The membership's creation time rides on each item under a symbol: the cursor needs it, the JSON body does not show it. */
const JOINED_AT = Symbol("joinedAt");

export const memberList: ListSpec = {
  resource: "team-members",
  // Items are keyed by user id, unique within a team: it is the tiebreak the cursor carries.
  id: teamMembers.userId,
  fields: {
    id: { expr: teamMembers.userId, kind: "id" },
    name: { expr: users.name, kind: "string" },
    email: { expr: users.email, kind: "string" },
    role: { expr: teamMembers.role, kind: "enum", values: TEAM_ROLES },
    membershipId: { expr: teamMembers.id, kind: "id" },
    createdAt: { expr: teamMembers.createdAt, kind: "datetime", cursorValue: (item) => (item as Record<symbol, unknown>)[JOINED_AT] },
  },
  shape: memberItemShape,
};

/**
 * One page of a team's members. The team is right-joined so that one query tells an unknown team (no row)
 * from a page without members (one row of nulls); filters and the cursor sit in the join condition for that reason.
 */
export async function listMembers(db: Executor, workspaceId: WorkspaceScope, teamId: string, params: ListParams) {
  const rows = await db
    .select({ ...memberItemColumns, joinedAt: teamMembers.createdAt })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .rightJoin(teams, and(eq(teams.id, teamMembers.teamId), params.where))
    .where(and(eq(teams.workspaceId, workspaceId), eq(teams.id, teamId)))
    .orderBy(...params.orderBy)
    .limit(params.limit + 1);
  if (rows.length === 0) throw notFound("Team");
  return rows
    .filter((row) => row.membershipId !== null)
    .map(({ joinedAt, ...item }) => ({ ...(item as TeamMemberItemRow), [JOINED_AT]: iso(joinedAt!) }));
}

/**
 * The TeamMember object of membership `id`; `write` (an INSERT or UPDATE of team_members … RETURNING) runs in the
 * same statement and its row is the one read: nothing when it wrote none.
 */
export async function selectTeamMember(db: Executor, workspaceId: WorkspaceScope, id: string, write?: SQL) {
  // A statement does not see its own writes in the table: a CTE named like it holds the written row.
  const written = write && db.$with(getTableName(teamMembers), { id: sql<string>`id` }).as(write);
  const [row] = await (written ? db.with(written) : db)
    .select(teamMemberColumns)
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(and(eq(teamMembers.workspaceId, workspaceId), eq(teamMembers.id, id)));
  return row;
}

export async function getTeamMember(db: Executor, workspaceId: WorkspaceScope, id: string) {
  const row = await selectTeamMember(db, workspaceId, id);
  if (!row) throw notFound("Team member");
  return row;
}

/** A team's memberships as TeamMember objects, oldest first: the `members` of a team an import answers (spec, Team). */
export function teamMemberships(db: Executor, workspaceId: WorkspaceScope, teamId: string) {
  return db
    .select(teamMemberColumns)
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(and(eq(teamMembers.workspaceId, workspaceId), eq(teamMembers.teamId, teamId)))
    .orderBy(teamMembers.createdAt, teamMembers.id);
}
