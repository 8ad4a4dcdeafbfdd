import { and, eq, isNull, sql } from "drizzle-orm";
import { invites, teamMembers, teams, users, workspaceMembers, workspaces } from "../../../drizzle/schema";
import { joinWorkspaceWithKey, userByEmail } from "../../auth/accounts/membership";
import { normalizeEmail } from "../../auth/accounts/signup";
import type { Principal } from "../../auth/principal";
import { requireWorkspaceRole } from "../../auth/roles";
import { randomToken, sha256Hex } from "../../core/crypto";
import { conflict, forbidden, notFound, ValidationError } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import type { EmailOutbox } from "../../email/outbox";
import { newId } from "../../ids";
import { userSummary } from "../../records/users";
import { pending, serializeInvite } from "./queries";
import { INVITE_TTL_DAYS, type InviteCreateInput, type InviteRedeemInput } from "./schema";

const INVITE_TTL_MS = INVITE_TTL_DAYS * 24 * 60 * 60 * 1000;

/** Workspace ADMIN/OWNER humans invite people (spec); agents never do, whatever their role. */
export function requireInviter(principal: Principal, what = "invite people"): void {
  if (principal.user.type === "AGENT") throw forbidden(`Agents may not ${what}`);
  requireWorkspaceRole(principal, "ADMIN", what);
}

/**
 * Stores a pending invite (the token only as its SHA-256) and its email in the outbox, in one statement of one
 * transaction: an invite never commits without its email, which the relay sends after the commit. A new invite to an
 * address that already has a pending one in this workspace replaces it (the old token stops working): that is how an
 * invite is re-sent.
 */
export async function createInvite(db: Db, outbox: EmailOutbox, principal: Principal, input: InviteCreateInput, redeemUrl: string) {
  requireInviter(principal);
  const workspaceId = principal.workspace.id;
  const email = normalizeEmail(input.email);
  const teamIds = [...new Set(input.teamIds)];
  const ids = teamIds.length
    ? sql.join(
        teamIds.map((id) => sql`${id}`),
        sql`, `,
      )
    : sql`null`;
  return db.transaction(async (tx) => {
    // One statement: the lock queues concurrent invites to the same address (so one replaces the other rather
    // than both staying pending), and the two checks read membership and the teams.
    const [state] = (
      await tx.execute<{ member: boolean; teams: number }>(sql`
        select pg_advisory_xact_lock(hashtext(${`invite:${workspaceId}:${email}`})) as locked,
          exists (select 1 from ${workspaceMembers} join ${users} on ${users.id} = ${workspaceMembers.userId}
            where ${workspaceMembers.workspaceId} = ${workspaceId} and ${users.email} = ${email}) as member,
          (select count(*)::int from ${teams} where ${teams.workspaceId} = ${workspaceId} and ${teams.id} in (${ids})) as teams`)
    ).rows;
    if (state.member) throw conflict("This address already belongs to a member of the workspace");
    if (Number(state.teams) !== teamIds.length) throw notFound("Team");
    await tx.delete(invites).where(and(eq(invites.workspaceId, workspaceId), eq(invites.email, email), isNull(invites.redeemedAt)));
    const token = randomToken(32);
    const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
    const mail = await outbox.add(
      tx,
      {
        to: email,
        template: "invite",
        data: { token, workspaceName: principal.workspace.name, invitedBy: principal.user.name, redeemUrl },
      },
      expiresAt,
    );
    const [row] = await tx
      .with(mail)
      .insert(invites)
      .values({
        id: newId("inv"),
        workspaceId,
        email,
        role: input.role,
        teamRole: input.teamRole,
        teamIds,
        tokenHash: await sha256Hex(token),
        invitedById: principal.user.id,
        expiresAt,
      })
      .returning();
    // The caller sent it, so the summary comes from the principal rather than another query.
    return serializeInvite({ ...row, invitedBy: userSummary(principal.user) });
  });
}

/** Who may see or cancel an invite: workspace ADMIN/OWNER (humans), or whoever sent it. */
export function requireInviteManager(principal: Principal, invitedById: string, what: string): void {
  if (invitedById !== principal.user.id) requireInviter(principal, what);
}

/** Cancels (deletes) a pending invite: workspace ADMIN/OWNER, or whoever sent it. */
export function deleteInvite(db: Db, principal: Principal, id: string) {
  const workspaceId = principal.workspace.id;
  return db.transaction(async (tx) => {
    // Locked, so a redeem running now either finishes first (then 409 here) or waits and finds no invite.
    const [row] = await tx
      .select({ invitedById: invites.invitedById, redeemedAt: invites.redeemedAt, expired: sql<boolean>`${invites.expiresAt} <= now()` })
      .from(invites)
      .where(and(eq(invites.workspaceId, workspaceId), eq(invites.id, id)))
      .for("update");
    if (!row) throw notFound("Invite");
    requireInviteManager(principal, row.invitedById, "cancel it");
    if (row.redeemedAt) throw conflict("This invite was already accepted; it is no longer pending");
    if (row.expired) throw conflict("This invite has expired; it is no longer pending");
    await tx.delete(invites).where(and(eq(invites.workspaceId, workspaceId), eq(invites.id, id)));
  });
}

const refuse = (message: string) => new ValidationError({ token: [message] });

/** Why a token redeemed nothing (one extra query, only on failure). */
async function refusal(tx: Executor, tokenHash: string): Promise<ValidationError> {
  const [row] = await tx
    .select({ redeemedAt: invites.redeemedAt, expired: sql<boolean>`${invites.expiresAt} <= now()` })
    .from(invites)
    .where(eq(invites.tokenHash, tokenHash));
  if (row?.redeemedAt) return refuse("This invite was already accepted");
  if (row?.expired) return refuse("This invite has expired; ask for a new one");
  return refuse("Unknown or cancelled invite token");
}

/**
 * Accepts an invite, in one transaction: marks it redeemed (a conditional update, so of two concurrent
 * redeems exactly one matches), creates the user when the address is new or takes the existing account,
 * adds the workspace role (an existing membership keeps its role), joins the invite's teams that still
 * exist, and issues an API key of the workspace.
 */
export async function redeemInvite(db: Db, input: InviteRedeemInput) {
  const tokenHash = await sha256Hex(input.token);
  return db.transaction(async (tx) => {
    const [invite] = await tx
      .update(invites)
      .set({ redeemedAt: sql`now()` })
      .where(and(eq(invites.tokenHash, tokenHash), pending()))
      .returning({
        workspaceId: invites.workspaceId,
        email: invites.email,
        role: invites.role,
        teamRole: invites.teamRole,
        teamIds: invites.teamIds,
        slug: sql<string>`(select ${workspaces.slug} from ${workspaces} where ${workspaces.id} = ${invites.workspaceId})`,
      });
    if (!invite) throw await refusal(tx, tokenHash);

    // A concurrent sign-up may take the address first: then this joins that account instead of failing.
    const [created] = await tx
      .insert(users)
      .values({ id: newId("user"), name: input.name, email: invite.email })
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id });
    const userId = created?.id ?? (await userByEmail(tx, invite.email))!.id;

    const apiToken = await joinWorkspaceWithKey(tx, { workspaceId: invite.workspaceId, userId, role: invite.role, keyName: "Invite key" });
    if (invite.teamIds.length > 0) {
      // Teams deleted since the invite was sent drop out in the join; an existing membership is kept as it is.
      const rows = sql.join(
        invite.teamIds.map((teamId) => sql`(${newId("tmbr")}, ${teamId})`),
        sql`, `,
      );
      await tx.execute(sql`
        insert into ${teamMembers} (id, workspace_id, team_id, user_id, role)
        select v.id, ${invite.workspaceId}, v.team_id, ${userId}, ${invite.teamRole}::team_role
        from (values ${rows}) as v(id, team_id)
        join ${teams} on ${teams.id} = v.team_id and ${teams.workspaceId} = ${invite.workspaceId}
        on conflict (team_id, user_id) do nothing`);
    }
    return { api_token: apiToken, workspace_slug: invite.slug };
  });
}
