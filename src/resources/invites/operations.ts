// The invite operations, one function each. Inviting loads the caller (agents never invite, and the email names the
// inviter and the workspace) and stores the invite with its email in the outbox; seeing and cancelling an invite are one
// statement each whose guards are the same rule (workspace ADMIN/OWNER humans, or whoever sent it); redeeming is public.
import { and, eq, gt, isNull, type SQL, sql } from "drizzle-orm";
import { invites, teamMembers, teams, users, workspaceMembers, workspaces } from "../../../drizzle/schema";
import { workspaceRoleGuard } from "../../auth/access";
import { normalizeEmail } from "../../auth/accounts/codes";
import { joinWorkspaceWithKey, userByEmail } from "../../auth/accounts/membership";
import type { Caller } from "../../auth/caller";
import type { Principal } from "../../auth/principal";
import { requireBoundInvite, requireWorkspaceRole } from "../../auth/roles";
import { randomToken, sha256Hex } from "../../core/crypto";
import { conflict, forbidden, notFound, ValidationError } from "../../core/errors";
import type { Db } from "../../db/client";
import { inTeams, type TeamScope, teamsValue } from "../../db/scope";
import type { EmailOutbox } from "../../email/outbox";
import { newId } from "../../ids";
import { namedIds } from "../../records/names";
import { type Guard, guardedWrite, readTarget, type Target } from "../../store/guarded";
import { listBody, pageQuery } from "../../store/list";
import { INVITE_TTL_DAYS, type InviteCreateInput, type InviteDto, type InviteRedeemInput, inviteRecord } from "./record";

const INVITE_TTL_MS = INVITE_TTL_DAYS * 24 * 60 * 60 * 1000;

/** Pending = neither redeemed nor expired; cancelled invites are deleted, so they are not rows at all. */
const pending = () => and(isNull(invites.redeemedAt), gt(invites.expiresAt, sql`now()`))!;

/**
 * Invites a credential bound to teams may see: those into its teams only (it makes no other kind), so that another
 * team's id never shows; for every team, all.
 */
const reachable = (teams: TeamScope): SQL =>
  teams === null
    ? sql`true`
    : sql`(${teamsValue(teams)} is null or (cardinality(${invites.teamIds}) > 0 and ${invites.teamIds} <@ (${teamsValue(teams)})::text[]))`;

const agentsRefusal = (what: string) => forbidden(`Agents may not ${what}`);

/** Workspace ADMIN/OWNER humans invite people; agents never do, whatever their role. */
function requireInviter(principal: Principal, what = "invite people"): void {
  if (principal.user.type === "AGENT") throw agentsRefusal(what);
  requireWorkspaceRole(principal, "ADMIN", what);
}

/** requireInviter's rule as guards over an invite, which its sender also passes: who may see or cancel it. */
function managerGuards(caller: Caller, what: string): Guard[] {
  const { actor } = caller;
  const sender = sql`${invites.invitedById} = ${actor.user}`;
  return [
    {
      holds: sql`(${sender} or (select ${users.type} from ${users} where ${users.id} = ${actor.user}) = 'HUMAN')`,
      refusal: () => agentsRefusal(what),
    },
    workspaceRoleGuard(actor, "ADMIN", what, sender),
  ];
}

/** The invite `id` of the caller's workspace (`where`: more conditions), with the guards of the operation on it. */
const inviteTarget = (caller: Caller, id: string, guards: Guard[], where?: SQL): Target => ({
  from: inviteRecord.from,
  where: and(eq(invites.workspaceId, caller.actor.workspace), eq(invites.id, id), reachable(caller.actor.teams), where)!,
  columns: { id: invites.id },
  guards,
  name: "Invite",
  team: null,
  table: invites,
});

/**
 * POST /invites: stores a pending invite (the token only as its SHA-256) and its email in the outbox, in one statement
 * of one transaction: an invite never commits without its email, which the relay sends after the commit. A new invite
 * to an address that already has a pending one in this workspace replaces it (the old token stops working): that is
 * how an invite is re-sent.
 */
export async function createInvite(caller: Caller, outbox: EmailOutbox, input: InviteCreateInput, redeemUrl: string): Promise<InviteDto> {
  const principal = await caller.principal();
  requireInviter(principal);
  requireBoundInvite(principal, input);
  const workspaceId = principal.workspace.id;
  const email = normalizeEmail(input.email);
  // Interactive (the WebSocket): the lock's checks decide (409, 404) before the invite and its mail are written.
  return caller.transaction(async (tx) => {
    // One statement: the lock queues concurrent invites to the same address (so one replaces the other rather
    // than both staying pending), and the two checks read membership and the teams (ids or prefixes, resolved here).
    const [state] = (
      await tx.execute<{ member: boolean; team_ids: (string | null)[]; teams: number }>(sql`
        select pg_advisory_xact_lock(hashtext(${`invite:${workspaceId}:${email}`})) as locked,
          exists (select 1 from ${workspaceMembers} join ${users} on ${users.id} = ${workspaceMembers.userId}
            where ${workspaceMembers.workspaceId} = ${workspaceId} and ${users.email} = ${email}) as member,
          named.ids as team_ids,
          (select count(*)::int from ${teams} where ${teams.workspaceId} = ${workspaceId} and ${teams.id} = any(named.ids)
            and ${inTeams(principal.teamIds, teams.id)}) as teams
        from (select ${namedIds("team", input.teamIds, workspaceId)} as ids) as named`)
    ).rows;
    if (state.member) throw conflict("This address already belongs to a member of the workspace");
    if (Number(state.teams) !== state.team_ids.length) throw notFound("Team");
    const teamIds = state.team_ids as string[];
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
    // The CTE `invites` holds the new row: the answer is built from it in the same statement.
    const written = tx.$with("invites").as(
      tx
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
        .returning(),
    );
    const [row] = await tx.with(mail, written).select({ invite: inviteRecord.json() }).from(inviteRecord.from);
    return row.invite;
  });
}

/**
 * GET /invites: one page of the workspace's pending invites (workspace ADMIN/OWNER humans), oldest first by default. The
 * rule decides before the list's parameters are read, so a refused caller is 403 whatever they ask for.
 */
export async function listInvites(caller: Caller, query: URLSearchParams) {
  const principal = await caller.principal();
  requireInviter(principal, "list invites");
  const params = await caller.listParams(inviteRecord.list, query);
  const rows = await pageQuery(
    caller.db
      .select({ invite: inviteRecord.json(params.fields) })
      .from(inviteRecord.from)
      .$dynamic(),
    and(eq(invites.workspaceId, principal.workspace.id), reachable(principal.teamIds), pending()),
    params,
  );
  return listBody(
    "invites",
    params,
    rows.map((row) => row.invite),
  );
}

/** GET /invites/{id}: a pending invite, for workspace ADMIN/OWNER humans and its sender, in one statement. */
export function getInvite(caller: Caller, id: string): Promise<InviteDto> {
  const target = inviteTarget(caller, id, managerGuards(caller, "see it"), pending());
  return caller.read(async () => {
    const row = await readTarget<{ invite: InviteDto }>(caller.db, caller, {
      ...target,
      columns: { ...target.columns, invite: inviteRecord.json() },
    });
    return row.invite;
  });
}

/**
 * DELETE /invites/{id}: cancels (deletes) a pending invite; workspace ADMIN/OWNER humans, or whoever sent it. An
 * accepted or expired invite is no longer pending (409); a redeem that commits first leaves it alone (409 too).
 */
export async function deleteInvite(caller: Caller, id: string): Promise<void> {
  const guards: Guard[] = [
    ...managerGuards(caller, "cancel it"),
    { holds: isNull(invites.redeemedAt), refusal: () => conflict("This invite was already accepted; it is no longer pending") },
    { holds: gt(invites.expiresAt, sql`now()`), refusal: () => conflict("This invite has expired; it is no longer pending") },
  ];
  await guardedWrite(caller, inviteTarget(caller, id, guards), (allowed) => ({
    ctes: [sql`deleted as (delete from ${invites} where ${invites.id} = ${allowed} and ${pending()} returning id)`],
    result: sql<boolean | null>`(select true from deleted)`,
  }));
}

const refuse = (message: string) => new ValidationError({ token: [message] });

interface Redeemed {
  workspaceId: string;
  email: string;
  role: "MEMBER" | "ADMIN" | "OWNER";
  teamRole: "VIEWER" | "MEMBER" | "ADMIN" | "OWNER";
  teamIds: string[];
  slug: string;
}

/**
 * POST /invites/redeem (public): accepts an invite, in one transaction. One statement marks it redeemed (a conditional
 * update, so of concurrent redeems exactly one matches) and reads the token's invite under a lock, which says why when
 * it matched none (a redeem that won meanwhile shows as accepted); then the user is created when the address is new or
 * the existing account taken, joins with the invite's workspace role (an existing membership keeps its role) and the
 * invite's teams that still exist, and gets an API key of the workspace.
 */
export async function redeemInvite(db: Db, input: InviteRedeemInput) {
  const tokenHash = await sha256Hex(input.token);
  // Interactive (the WebSocket): what the redeemed invite holds decides the membership written next.
  return db.transaction(async (tx) => {
    const { rows } = await tx.execute<{ invite: Redeemed | null; found: { redeemed: boolean; expired: boolean } | null }>(sql`
      with redeemed as (
        update ${invites} set redeemed_at = now() where ${invites.tokenHash} = ${tokenHash} and ${pending()}
        returning json_build_object('workspaceId', ${invites.workspaceId}, 'email', ${invites.email}, 'role', ${invites.role},
          'teamRole', ${invites.teamRole}, 'teamIds', ${invites.teamIds},
          'slug', (select ${workspaces.slug} from ${workspaces} where ${workspaces.id} = ${invites.workspaceId})) as invite
      ),
      found as (
        select ${invites.redeemedAt} is not null as redeemed, ${invites.expiresAt} <= now() as expired
        from ${invites} where ${invites.tokenHash} = ${tokenHash} for update
      )
      select (select invite from redeemed) as invite, (select row_to_json(found) from found) as found`);
    const { invite, found } = rows[0];
    if (!invite) {
      if (found?.redeemed) throw refuse("This invite was already accepted");
      if (found?.expired) throw refuse("This invite has expired; ask for a new one");
      throw refuse("Unknown or cancelled invite token");
    }

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
