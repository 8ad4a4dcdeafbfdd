// A person's credentials and how each is revoked, one rule each: whose API keys a caller holds (their own and their
// agents'), whose OAuth grants, whose device logins. The API's operations (DELETE /api-keys/{id}, DELETE
// /oauth/grants/{id}, POST /auth/revoke) and the account page (resources/account) revoke through these same functions,
// so a revoked credential is 401 from the next request on, whichever way it went.
import { and, asc, eq, or, type SQL, sql } from "drizzle-orm";
import { apiKeys, deviceAuthorizations, oauthGrants, users, workspaceMembers, workspaces } from "../../../drizzle/schema";
import type { Executor } from "../../db/client";
import { guardedDelete, guardedWrite } from "../../store/guarded";
import type { Actor, StatementCaller } from "../../store/statement-caller";
import type { Credential } from "../credential";

/** Keys of the caller's workspace held by the caller or by an agent the caller owns; any other key is as if it did not exist. */
export const keysOf = ({ workspace, user }: Pick<Actor, "workspace" | "user">): SQL =>
  and(
    eq(apiKeys.workspaceId, workspace),
    or(eq(apiKeys.userId, user), sql`${apiKeys.userId} in (select ${users.id} from ${users} where ${users.humanId} = ${user})`),
  )!;

/** The caller's OAuth grants in the current workspace (a pending code is not a grant yet). */
export const grantsOf = ({ workspace, user }: Pick<Actor, "workspace" | "user">): SQL =>
  and(eq(oauthGrants.workspaceId, workspace), eq(oauthGrants.userId, user), sql`${oauthGrants.codeChallenge} is null`)!;

/** The caller's device logins in the current workspace: approved, exchanged for tokens, not revoked. */
export const loginsOf = ({ workspace, user }: Pick<Actor, "workspace" | "user">): SQL =>
  and(
    eq(deviceAuthorizations.workspaceId, workspace),
    eq(deviceAuthorizations.userId, user),
    eq(deviceAuthorizations.status, "CONSUMED"),
    sql`${deviceAuthorizations.revokedAt} is null`,
  )!;

/** What revoking a device login writes: its tokens name it (`sid`) and stop at once; its refresh token is forgotten. */
export const LOGIN_REVOKED = { revokedAt: sql`now()`, refreshHash: null };

/** DELETE /api-keys/{id}: one of the caller's keys or their agents' keys (anything else: 404); 401 from the next request on. */
export async function deleteApiKey(caller: StatementCaller, id: string): Promise<void> {
  const target = {
    from: sql`${apiKeys}`,
    where: and(eq(apiKeys.id, id), keysOf(caller.actor))!,
    columns: { id: apiKeys.id },
    guards: [],
    name: "API key",
    team: null,
  };
  await guardedDelete(caller, target, apiKeys);
}

/** DELETE /oauth/grants/{id}: one of the caller's grants (anything else: 404); its tokens are 401 from the next request on. */
export async function deleteOAuthGrant(caller: StatementCaller, id: string): Promise<void> {
  const target = {
    from: sql`${oauthGrants}`,
    where: and(eq(oauthGrants.id, id), grantsOf(caller.actor))!,
    columns: { id: oauthGrants.id },
    guards: [],
    name: "OAuth grant",
    team: null,
  };
  await guardedDelete(caller, target, oauthGrants);
}

/** One of the caller's device logins, by id (anything else: 404): as POST /auth/revoke does with one of its tokens. */
export async function revokeDeviceLogin(caller: StatementCaller, id: string): Promise<void> {
  const d = deviceAuthorizations;
  const target = {
    from: sql`${d}`,
    where: and(eq(d.id, id), loginsOf(caller.actor))!,
    columns: { id: d.id },
    guards: [],
    name: "Device login",
    team: null,
  };
  await guardedWrite(caller, target, (allowed) => {
    const update = caller.db.update(d).set(LOGIN_REVOKED).where(sql`${d.id} = ${allowed}`).returning({ id: d.id });
    return { ctes: [sql`revoked as (${update.getSQL()})`], result: sql<boolean | null>`(select true from revoked)` };
  });
}

/**
 * The person `userId` acting in `workspaceId` (the account page, signed in by an emailed code), as a credential: live
 * while they are a member there, with every scope their role has, until `expiresAt`.
 */
export const personIn = (userId: string, workspaceId: string, expiresAt: number): Credential => ({
  kind: "jwt",
  userId,
  workspaceId,
  sessionId: null,
  grantId: null,
  scopes: null,
  teamIds: null,
  expiresAt,
});

/** The workspaces a person belongs to, first joined first (what the consent, device and account pages offer). */
export const workspacesOf = (db: Executor, userId: string) =>
  db
    .select({ id: workspaces.id, name: workspaces.name, slug: workspaces.slug })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(workspaceMembers.userId, userId))
    .orderBy(asc(workspaceMembers.createdAt), asc(workspaces.id));
