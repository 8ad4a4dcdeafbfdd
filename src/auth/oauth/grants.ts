// OAuth grants (docs/clients.md, OAuth): a person's consent becomes an authorization code (hashed, with its PKCE
// challenge, 5 minutes); exchanged once, the same row is the grant its access tokens name (`gid`) and its refresh tokens
// renew. Deleting the row revokes every token at once: each request checks that the grant exists (auth/credential.ts).
import { and, eq, inArray, sql } from "drizzle-orm";
import { oauthGrants, oauthRefreshTokens, teams, workspaceMembers } from "../../../drizzle/schema";
import { base64url, randomToken, sha256Hex } from "../../core/crypto";
import { SCOPES, type Scope } from "../../core/scopes";
import type { Db } from "../../db/client";
import type { Env } from "../../env";
import { newId } from "../../ids";
import { signAccessToken } from "../jwt";
import { OAuthError } from "./clients";

const CODE_TTL_SECONDS = 5 * 60;
/** How long a grant's refresh token lasts unused: each refresh starts it again. */
const REFRESH_TTL_DAYS = 90;
/**
 * How long a used refresh token still renews (each time with a new successor) instead of revoking its grant: two
 * refreshes a client sends at once (two tabs, a retry after a lost answer) both get tokens. Later, a used token is a
 * replay (RFC 9700 §4.14.2).
 */
export const REFRESH_GRACE_SECONDS = 5;

export interface Consent {
  userId: string;
  workspaceId: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  /** What the person approved: null scopes is every scope, null teams every team. */
  scopes: Scope[] | null;
  teamIds: string[] | null;
}

/**
 * The grant a person's approval makes, with its authorization code (returned raw once). The teams must be the
 * workspace's and the person a member of it; otherwise nothing is written and the answer is null.
 */
export async function createAuthorizationCode(db: Db, consent: Consent): Promise<string | null> {
  const code = randomToken(32);
  const g = oauthGrants;
  const teamsOk = consent.teamIds
    ? sql`(select count(*) from ${teams} where ${inArray(teams.id, consent.teamIds)} and ${teams.workspaceId} = ${consent.workspaceId}) = ${consent.teamIds.length}`
    : sql`true`;
  const { rows } = await db.execute<{ id: string }>(sql`
    insert into ${g} (id, workspace_id, user_id, client_id, client_name, redirect_uri, scopes, team_ids, code_hash, code_challenge, code_expires_at)
    select ${newId("ogr")}, ${consent.workspaceId}, ${consent.userId}, ${consent.clientId}, ${consent.clientName}, ${consent.redirectUri},
      ${sql.param(consent.scopes)}::text[], ${sql.param(consent.teamIds)}::text[], ${await sha256Hex(code)}, ${consent.codeChallenge},
      now() + make_interval(secs => ${CODE_TTL_SECONDS})
    where exists (select 1 from ${workspaceMembers} where ${and(eq(workspaceMembers.userId, consent.userId), eq(workspaceMembers.workspaceId, consent.workspaceId))})
      and ${teamsOk}
    returning id`);
  return rows[0] ? code : null;
}

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  refresh_token: string;
}

type GrantRow = { id: string; user_id: string; workspace_id: string; scopes: string[] | null; team_ids: string[] | null };

async function tokensOf(env: Env, grant: GrantRow, refreshToken: string): Promise<TokenAnswer> {
  const scopes = grant.scopes === null ? [...SCOPES] : SCOPES.filter((s) => grant.scopes!.includes(s));
  const { token, expiresIn } = await signAccessToken(env, {
    sub: grant.user_id,
    wid: grant.workspace_id,
    gid: grant.id,
    ...(grant.scopes !== null && { scope: scopes.join(" ") }),
    ...(grant.team_ids !== null && { tid: grant.team_ids }),
  });
  return { access_token: token, token_type: "Bearer", expires_in: expiresIn, scope: scopes.join(" "), refresh_token: refreshToken };
}

/** What a grant's refresh tokens start with (a device login's start with `pmr_`). */
export const GRANT_REFRESH_PREFIX = "pmo_";

const newRefreshToken = async () => {
  const raw = `${GRANT_REFRESH_PREFIX}${randomToken(32)}`;
  return { raw, hash: await sha256Hex(raw) };
};

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * RFC 6749 §4.1.3 with PKCE (RFC 7636, S256): one statement turns a live code of this client, redirect URI and verifier
 * into the grant and stores its first refresh token. A code presented again revokes the grant it made (RFC 6749 §4.1.2).
 */
export async function exchangeCode(
  db: Db,
  env: Env,
  input: { code: string; clientId: string; redirectUri: string; codeVerifier: string },
): Promise<TokenAnswer> {
  if (!VERIFIER.test(input.codeVerifier)) throw new OAuthError("invalid_grant", "code_verifier must be 43 to 128 unreserved characters");
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input.codeVerifier))));
  const codeHash = await sha256Hex(input.code);
  const refresh = await newRefreshToken();
  const g = oauthGrants;
  const { rows } = await db.execute<GrantRow>(sql`
    with grant_row as (
      update ${g} set code_challenge = null, code_expires_at = null, last_used_at = now()
      where ${g.codeHash} = ${codeHash} and ${g.codeChallenge} = ${challenge} and ${g.codeExpiresAt} > now()
        and ${g.clientId} = ${input.clientId} and ${g.redirectUri} = ${input.redirectUri}
      returning id, user_id, workspace_id, scopes, team_ids
    ), refresh as (insert into ${oauthRefreshTokens} (hash, grant_id) select ${refresh.hash}, id from grant_row)
    select * from grant_row`);
  if (rows[0]) return tokensOf(env, rows[0], refresh.raw);
  // Used before: whoever holds it now is not the client it was issued to, or the client replays it.
  const [revoked] = await db
    .delete(g)
    .where(and(eq(g.codeHash, codeHash), sql`${g.codeChallenge} is null`))
    .returning({ workspaceId: g.workspaceId });
  throw new OAuthError(
    "invalid_grant",
    "The code is unknown, expired, already used, or not for this client, redirect_uri and code_verifier",
    400,
    revoked?.workspaceId ?? null,
  );
}

/**
 * RFC 6749 §6 with rotation (OAuth 2.1 §4.3.1): one statement uses the refresh token up and stores the next. A refresh
 * token used before (within the 30 days used ones are kept) revokes its grant (RFC 9700 §4.14.2): someone else holds a
 * copy; within REFRESH_GRACE_SECONDS of its first use it renews again instead. Two refreshes at once: the second waits for
 * the first's row lock, then finds the token used a moment ago, within the grace.
 */
export async function refreshGrant(db: Db, env: Env, input: { refreshToken: string; clientId: string }): Promise<TokenAnswer> {
  const hash = await sha256Hex(input.refreshToken);
  const graceStart = sql`now() - make_interval(secs => ${REFRESH_GRACE_SECONDS})`;
  const next = await newRefreshToken();
  const g = oauthGrants;
  const t = oauthRefreshTokens;
  const { rows } = await db.execute<GrantRow>(sql`
    with used as (
      update ${t} set used_at = coalesce(${t.usedAt}, now())
      where ${t.hash} = ${hash} and (${t.usedAt} is null or ${t.usedAt} > ${graceStart}) and ${t.createdAt} > now() - make_interval(days => ${REFRESH_TTL_DAYS})
        and exists (select 1 from ${g} where ${g.id} = ${t.grantId} and ${g.clientId} = ${input.clientId} and ${g.codeChallenge} is null)
      returning grant_id
    ), grant_row as (
      update ${g} set last_used_at = now() from used where ${g.id} = used.grant_id
      returning ${g.id} as id, ${g.userId} as user_id, ${g.workspaceId} as workspace_id, ${g.scopes} as scopes, ${g.teamIds} as team_ids
    ), refresh as (insert into ${t} (hash, grant_id) select ${next.hash}, id from grant_row),
    -- Used tokens are kept to catch a replay; after a month one is only clutter.
    pruned as (delete from ${t} where ${t.grantId} = (select id from grant_row) and ${t.usedAt} < now() - interval '30 days')
    select * from grant_row`);
  if (rows[0]) return tokensOf(env, rows[0], next.raw);
  const [revoked] = await db
    .delete(g)
    .where(sql`${g.id} = (select ${t.grantId} from ${t} where ${t.hash} = ${hash} and ${t.usedAt} <= ${graceStart})`)
    .returning({ workspaceId: g.workspaceId });
  throw new OAuthError(
    "invalid_grant",
    "The refresh_token is unknown, expired, revoked, already used, or not this client's",
    400,
    revoked?.workspaceId ?? null,
  );
}

/**
 * RFC 7009 for a grant's tokens: an access token (its grant, `gid`) or a refresh token (used or not) deletes the grant,
 * so every token of it stops at once (§2.1: revoking a refresh token SHOULD end the grant's access tokens; an access
 * token's MAY end its refresh token). A `clientId`, when sent, must be the grant's; anything else revokes nothing.
 * The revoked grant's workspace, or null.
 */
export async function revokeGrantOf(
  db: Db,
  token: { grantId: string } | { refreshToken: string },
  clientId: string | undefined,
): Promise<string | null> {
  const g = oauthGrants;
  const t = oauthRefreshTokens;
  const grant =
    "grantId" in token
      ? sql`${token.grantId}`
      : sql`(select ${t.grantId} from ${t} where ${t.hash} = ${await sha256Hex(token.refreshToken)})`;
  const [revoked] = await db
    .delete(g)
    .where(and(sql`${g.id} = ${grant}`, sql`${g.codeChallenge} is null`, clientId === undefined ? undefined : eq(g.clientId, clientId)))
    .returning({ workspaceId: g.workspaceId });
  return revoked?.workspaceId ?? null;
}

/** Records a grant's use (what GET /oauth/grants shows), at most once a minute, like an API key's. */
export const touchGrant = (db: Db, grantId: string) =>
  db
    .update(oauthGrants)
    .set({ lastUsedAt: sql`now()` })
    .where(
      and(eq(oauthGrants.id, grantId), sql`(${oauthGrants.lastUsedAt} is null or ${oauthGrants.lastUsedAt} < now() - interval '1 minute')`),
    );
