// The Invite record: its one field map (answer, schema, `fields` shape, list spec, create body), and the redeem bodies.
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { invites, users } from "../../../drizzle/schema";
import { formsOf, idKind, NamesOf, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import { TeamRoleSchema } from "../team-members/record";
import { UserName, UserSummarySchema, userSummaryJson, userSummaryShape } from "../users/record";

/** How a request names an invite: by its id (`inv_…`) only. */
export const INVITE_ID = idKind("an invite id", "inv");

/** How long an invite can be redeemed after it was sent (a new invite to the same address replaces it). */
export const INVITE_TTL_DAYS = 7;

// OWNER is never given by invite: invite as ADMIN, then promote with PATCH /users/{id}.
const InviteRole = z
  .enum(["MEMBER", "ADMIN"], { error: "Must be MEMBER or ADMIN (OWNER cannot be given by invite)" })
  .openapi("InviteRole");

/** The user who sent the invite, joined so that a page embeds them without a query per row. */
const inviter = alias(users, "inviter");

export const inviteRecord = defineRecord({
  name: "Invite",
  resource: "invites",
  id: invites.id,
  workspace: invites.workspaceId,
  team: null,
  from: sql`${invites} join ${users} as ${sql.identifier("inviter")} on ${inviter.id} = ${invites.invitedById}`,
  fields: {
    id: f.id(invites.id, { names: named(INVITE_ID) }),
    email: f.text(invites.email, { input: { schema: z.email().max(254), create: "required" } }),
    role: f.enum(invites.role, InviteRole, { input: { schema: InviteRole, create: { default: "MEMBER" } } }),
    teamRole: f.enum(invites.teamRole, TeamRoleSchema, { input: { schema: TeamRoleSchema, create: { default: "MEMBER" } } }),
    teamIds: f.json(invites.teamIds, z.array(z.string()), {
      input: {
        schema: NamesOf("team", 100).openapi({
          description: `Teams of this workspace the invitee joins on acceptance, each ${formsOf("team")}; answered as ids`,
        }),
        create: { default: [] },
      },
    }),
    createdAt: f.datetime(invites.createdAt),
    invitedBy: f.json(userSummaryJson(inviter), UserSummarySchema, { shape: userSummaryShape }),
    expiresAt: f.datetime(invites.expiresAt, {
      doc: { description: `createdAt + ${INVITE_TTL_DAYS} days; afterwards the token is refused` },
    }),
  },
});

export const Invite = inviteRecord.schema;
export type InviteDto = z.infer<typeof Invite>;
/** An invite narrowed by `fields` (GET /invites/{id}, GET /invites). */
export const InviteSelection = inviteRecord.selection;

export const InviteCreate = z.object(inviteRecord.createShape()).strict().openapi("InviteCreate");
export type InviteCreateInput = {
  email: string;
  role: z.infer<typeof InviteRole>;
  teamRole: z.infer<typeof TeamRoleSchema>;
  teamIds: string[];
} & Record<string, unknown>;

export const InviteRedeem = z
  .object({
    token: z.string().min(1).max(200).openapi({ description: "The token from the invite email" }),
    name: UserName.openapi({ description: "Display name of a new account (an existing account keeps its name)" }),
  })
  .strict()
  .openapi("InviteRedeem");

export const InviteRedeemed = z.object({ data: z.object({ api_token: z.string(), workspace_slug: z.string() }) }).openapi("InviteRedeemed");

export type InviteRedeemInput = z.infer<typeof InviteRedeem>;
