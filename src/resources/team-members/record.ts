// The team-member records: a membership (TeamMember, `GET /team-members/{id}`) and a team's member as lists and teams
// embed it (TeamMemberItem: the user, with `id` the user id, their team role and the membership id). One field map each.
import { z } from "@hono/zod-openapi";
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { teamMembers, teamRole, users } from "../../../drizzle/schema";
import type { Executor, WorkspaceScope } from "../../db/client";
import { idKind, NameOf, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import { BodyId } from "../../store/schemas";
import { UserSummarySchema, userSummaryJson, userSummaryShape } from "../users/record";

/** How a request names a team-member: by its id (`tmbr_…`) only. */
export const TEAM_MEMBER_ID = idKind("a team-member id", "tmbr");

export const TeamRoleSchema = z.enum(teamRole.enumValues).openapi("TeamRole");

/** A membership with its user; `from` joins the user. */
export const teamMemberRecord = defineRecord({
  name: "TeamMember",
  noun: "Team member",
  resource: "team-members",
  id: teamMembers.id,
  workspace: teamMembers.workspaceId,
  team: teamMembers.teamId,
  from: sql`${teamMembers} join ${users} on ${users.id} = ${teamMembers.userId}`,
  fields: {
    id: f.id(teamMembers.id, { names: named(TEAM_MEMBER_ID), exported: BodyId }),
    teamId: f.id(teamMembers.teamId, { names: named("team") }),
    userId: f.id(teamMembers.userId, { names: named("user"), input: { schema: NameOf("user"), create: "required" }, exported: BodyId }),
    role: f.enum(teamMembers.role, TeamRoleSchema, { input: { schema: TeamRoleSchema, create: { default: "MEMBER" } }, exported: true }),
    user: f.json(userSummaryJson(users), UserSummarySchema, { shape: userSummaryShape }),
  },
});

export const TeamMember = teamMemberRecord.schema;
export type TeamMemberDto = z.infer<typeof TeamMember>;
export const TeamMemberSelection = teamMemberRecord.selection;

export const TeamMemberCreate = z.object(teamMemberRecord.createShape()).strict().openapi("TeamMemberCreate");
export const TeamMemberUpdate = z.object({ role: TeamRoleSchema }).strict().openapi("TeamMemberUpdate");
export type TeamMemberCreateInput = { userId: string; role: z.infer<typeof TeamRoleSchema> };
export type TeamMemberUpdateInput = { role: z.infer<typeof TeamRoleSchema> };

/** The membership's creation time rides on each listed item under a symbol: the cursor needs it, the answer does not show it. */
export const JOINED_AT = Symbol("joinedAt");

/**
 * An item of `GET /teams/{id}/members` and of a team's `members`. Items are keyed by user id (unique within a team);
 * their default order, `createdAt`, is the membership's, which the answer does not show.
 */
export const teamMemberItemRecord = defineRecord({
  name: "TeamMemberItem",
  resource: "team-members",
  id: teamMembers.userId,
  workspace: teamMembers.workspaceId,
  team: teamMembers.teamId,
  from: teamMemberRecord.from,
  fields: {
    id: f.id(users.id, { names: named("user"), list: { expr: teamMembers.userId }, doc: { description: "The user id" } }),
    name: f.text(users.name),
    email: f.text(users.email),
    avatarUrl: f.text(users.avatarUrl, { nullable: true, list: false }),
    role: f.enum(teamMembers.role, TeamRoleSchema),
    membershipId: f.id(teamMembers.id, {
      names: named(TEAM_MEMBER_ID),
      doc: { description: "The team-member id (`tmbr_…`), for PATCH/DELETE /team-members/{id}" },
    }),
    createdAt: f.datetime(teamMembers.createdAt, {
      hidden: true,
      list: { cursorValue: (item: Record<PropertyKey, unknown>) => item[JOINED_AT] },
    }),
  },
});

export const TeamMemberItem = teamMemberItemRecord.schema;
export type TeamMemberItemDto = z.infer<typeof TeamMemberItem>;
export const TeamMemberItemSelection = teamMemberItemRecord.selection;

/** A team's members as a JSON array (oldest membership first), a correlated subquery: no query per team. */
export const membersJson = (teamId: AnyPgColumn): SQL<TeamMemberItemDto[]> =>
  sql<
    TeamMemberItemDto[]
  >`coalesce((select json_agg(${teamMemberItemRecord.json()} order by ${teamMembers.createdAt}, ${teamMembers.id}) from ${teamMemberItemRecord.from} where ${teamMembers.teamId} = ${teamId}), '[]'::json)`;

/** A team's memberships as TeamMember objects, oldest first: the `members` of a team an import answers. */
export async function teamMemberships(db: Executor, workspace: WorkspaceScope, teamId: string): Promise<TeamMemberDto[]> {
  const rows = await db
    .select({ member: teamMemberRecord.json() })
    .from(teamMemberRecord.from)
    .where(and(eq(teamMembers.workspaceId, workspace), eq(teamMembers.teamId, teamId)))
    .orderBy(teamMembers.createdAt, teamMembers.id);
  return rows.map((row) => row.member);
}
