import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { teamMembers, users } from "../../../drizzle/schema";
import type { TeamRole } from "../../auth/roles";
import type { FieldShape } from "../../http/list";
import { userSummaryJson, type UserSummary } from "../users/serialize";

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
  return sql<TeamMemberItemRow[]>`coalesce((select json_agg(json_build_object(${memberItemObject}) order by ${teamMembers.createdAt}, ${teamMembers.id}) from ${teamMembers} join ${users} on ${users.id} = ${teamMembers.userId} where ${teamMembers.teamId} = ${teamId}), '[]'::json)`;
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
