import { z } from "@hono/zod-openapi";
import { TEAM_ROLES } from "../../auth/roles";
import { BodyId, selectable } from "../../http/schemas";
import { UserSummarySchema } from "../../records/users";

export const TeamRoleSchema = z.enum(TEAM_ROLES).openapi("TeamRole");

/** An item of `GET /teams/{id}/members` and of a team's `members`: the user, their team role and the membership id. */
export const TeamMemberItem = z
  .object({
    id: z.string().openapi({ description: "The user id" }),
    name: z.string(),
    email: z.string(),
    avatarUrl: z.string().nullable(),
    role: TeamRoleSchema,
    membershipId: z.string().openapi({ description: "The team-member id (`tmbr_…`), for PATCH/DELETE /team-members/{id}" }),
  })
  .openapi("TeamMemberItem");

export const TeamMember = z
  .object({ id: z.string(), teamId: z.string(), userId: z.string(), role: TeamRoleSchema, user: UserSummarySchema })
  .openapi("TeamMember");

export const TeamMemberCreate = z
  .object({ userId: BodyId, role: TeamRoleSchema.default("MEMBER") })
  .strict()
  .openapi("TeamMemberCreate");
export const TeamMemberUpdate = z.object({ role: TeamRoleSchema }).strict().openapi("TeamMemberUpdate");

export type TeamMemberCreateInput = z.infer<typeof TeamMemberCreate>;

/** As routes that take `fields` answer them (every key optional). */
export const TeamMemberSelection = selectable(TeamMember, "TeamMemberSelection");
export const TeamMemberItemSelection = selectable(TeamMemberItem, "TeamMemberItemSelection");
