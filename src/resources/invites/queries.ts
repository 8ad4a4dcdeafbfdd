import { and, eq, gt, isNull, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { invites, users } from "../../../drizzle/schema";
import { TEAM_ROLES } from "../../auth/roles";
import { iso } from "../../core/dates";
import { notFound } from "../../core/errors";
import type { Db } from "../../db/client";
import { type ListParams, type ListSpec, pageQuery } from "../../http/list";
import { type UserSummary, userSummaryJson } from "../../records/users";

/** The user who sent the invite, joined so that a page embeds them without a query per row. */
const inviter = alias(users, "inviter");

export const inviteColumns = {
  id: invites.id,
  email: invites.email,
  role: invites.role,
  teamRole: invites.teamRole,
  teamIds: invites.teamIds,
  createdAt: invites.createdAt,
  expiresAt: invites.expiresAt,
  invitedBy: userSummaryJson(inviter) as SQL<UserSummary>,
};

export interface InviteRow {
  id: string;
  email: string;
  role: "MEMBER" | "ADMIN" | "OWNER";
  teamRole: (typeof TEAM_ROLES)[number];
  teamIds: string[];
  createdAt: Date;
  expiresAt: Date;
  invitedBy: UserSummary;
}

export const serializeInvite = (row: InviteRow) => ({
  id: row.id,
  email: row.email,
  // Invites never carry OWNER (the create schema refuses it); the type says what the column could hold.
  role: row.role as "MEMBER" | "ADMIN",
  teamRole: row.teamRole,
  teamIds: row.teamIds,
  createdAt: iso(row.createdAt),
  invitedBy: row.invitedBy,
  expiresAt: iso(row.expiresAt),
});

export const inviteList: ListSpec = {
  resource: "invites",
  id: invites.id,
  fields: {
    id: { expr: invites.id, kind: "id" },
    email: { expr: invites.email, kind: "string" },
    role: { expr: invites.role, kind: "enum", values: ["MEMBER", "ADMIN"] },
    teamRole: { expr: invites.teamRole, kind: "enum", values: TEAM_ROLES },
    createdAt: { expr: invites.createdAt, kind: "datetime" },
    expiresAt: { expr: invites.expiresAt, kind: "datetime" },
  },
  shape: {
    id: true,
    email: true,
    role: true,
    teamRole: true,
    teamIds: true,
    createdAt: true,
    invitedBy: { id: true, name: true, email: true, avatarUrl: true, humanId: true },
    expiresAt: true,
  },
};

/** Pending = neither redeemed nor expired; cancelled invites are deleted, so they are not rows at all. */
export const pending = () => and(isNull(invites.redeemedAt), gt(invites.expiresAt, sql`now()`));

/** A pending invite of the workspace with its sender's id (for the sender-or-admin check); NOT_FOUND otherwise. */
export async function getPendingInvite(db: Db, workspaceId: string, id: string) {
  const [row] = await db
    .select({ ...inviteColumns, invitedById: invites.invitedById })
    .from(invites)
    .innerJoin(inviter, eq(inviter.id, invites.invitedById))
    .where(and(eq(invites.workspaceId, workspaceId), eq(invites.id, id), pending()));
  if (!row) throw notFound("Invite");
  return { invitedById: row.invitedById, invite: serializeInvite(row) };
}

/** One page of the workspace's pending invites, oldest first by default. */
export async function listPendingInvites(db: Db, workspaceId: string, params: ListParams) {
  const rows = await pageQuery(
    db.select(inviteColumns).from(invites).innerJoin(inviter, eq(inviter.id, invites.invitedById)).$dynamic(),
    and(eq(invites.workspaceId, workspaceId), pending()),
    params,
  );
  return rows.map(serializeInvite);
}
