import { z } from "@hono/zod-openapi";
import { selectable } from "../../http/schemas";
import { TeamRoleSchema } from "../../records/team-members";
import { UserSummarySchema } from "../../records/users";

/** How long an invite can be redeemed after it was sent (a new invite to the same address replaces it). */
export const INVITE_TTL_DAYS = 7;

// OWNER is never given by invite (spec): invite as ADMIN, then promote with PATCH /users/{id}.
const InviteRole = z
  .enum(["MEMBER", "ADMIN"], { error: "Must be MEMBER or ADMIN (OWNER cannot be given by invite)" })
  .openapi("InviteRole");

export const Invite = z
  .object({
    id: z.string(),
    email: z.string(),
    role: InviteRole,
    teamRole: TeamRoleSchema,
    teamIds: z.array(z.string()),
    createdAt: z.string(),
    invitedBy: UserSummarySchema,
    expiresAt: z.string().openapi({ description: `createdAt + ${INVITE_TTL_DAYS} days; afterwards the token is refused` }),
  })
  .openapi("Invite");

export const InviteCreate = z
  .object({
    email: z.email().max(254),
    role: InviteRole.default("MEMBER"),
    teamRole: TeamRoleSchema.default("MEMBER"),
    teamIds: z
      .array(z.string().min(1).max(100))
      .max(100)
      .default([])
      .openapi({ description: "Teams of this workspace the invitee joins on acceptance" }),
  })
  .strict()
  .openapi("InviteCreate");

export const InviteRedeem = z
  .object({
    token: z.string().min(1).max(200).openapi({ description: "The token from the invite email" }),
    name: z.string().trim().min(1).max(200).openapi({ description: "Display name of a new account (an existing account keeps its name)" }),
  })
  .strict()
  .openapi("InviteRedeem");

export const InviteRedeemed = z.object({ data: z.object({ api_token: z.string(), workspace_slug: z.string() }) }).openapi("InviteRedeemed");

export type InviteCreateInput = z.infer<typeof InviteCreate>;
export type InviteRedeemInput = z.infer<typeof InviteRedeem>;

/** An invite narrowed by `fields` (GET /invites/{id}, GET /invites). */
export const InviteSelection = selectable(Invite, "InviteSelection");
