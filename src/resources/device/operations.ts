import { and, eq, gt, sql } from "drizzle-orm";
import { deviceAuthorizations, workspaceMembers } from "../../../drizzle/schema";
import { normalizeEmail } from "../../auth/accounts/codes";
import { LOGIN_REVOKED } from "../../auth/accounts/credentials";
import { completeLoginWith, type LoginInput, startLogin } from "../../auth/accounts/login";
import type { Caller } from "../../auth/caller";
import { type Grants, ofPrincipal } from "../../auth/credential-grants";
import { signAccessToken, verifyAccessToken } from "../../auth/jwt";
import { GRANT_REFRESH_PREFIX, revokeGrantOf } from "../../auth/oauth/grants";
import { randomToken, sha256Hex } from "../../core/crypto";
import { conflict, forbidden, notFound } from "../../core/errors";
import { SCOPES, type Scope } from "../../core/scopes";
import type { Db, Executor } from "../../db/client";
import type { EmailOutbox } from "../../email/outbox";
import type { Env } from "../../env";
import { oauthRefusal } from "../../http/oauth-error-body";
import { newId } from "../../ids";

export const DEVICE_CODE_TTL_SECONDS = 15 * 60;
export const POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 §3.5: each slow_down adds 5 seconds to the interval the client must keep. */
const SLOW_DOWN_STEP_SECONDS = 5;

// RFC 8628 §6.1: consonants only (no vowels, so no words; no 0/O, 1/I/L confusion), case-insensitive input.
const USER_CODE_ALPHABET = "BCDFGHJKMNPQRSTVWXZ";
const USER_CODE_LENGTH = 8;

export function newUserCode(): string {
  const out: string[] = [];
  const buf = new Uint8Array(1);
  while (out.length < USER_CODE_LENGTH) {
    crypto.getRandomValues(buf);
    // Rejection sampling keeps every letter equally likely.
    if (buf[0] < 256 - (256 % USER_CODE_ALPHABET.length)) out.push(USER_CODE_ALPHABET[buf[0] % USER_CODE_ALPHABET.length]);
  }
  return `${out.slice(0, 4).join("")}-${out.slice(4).join("")}`;
}

/** What a person typed (any case, with or without the dash or spaces) in the stored form `ABCD-EFGH`; null if it cannot be one. */
export function normalizeUserCode(input: string): string | null {
  const letters = input.toUpperCase().replace(/[^A-Z]/g, "");
  if (letters.length !== USER_CODE_LENGTH || [...letters].some((ch) => !USER_CODE_ALPHABET.includes(ch))) return null;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

export interface DeviceCodeAnswer {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** RFC 8628 §3.1–3.2: a new pending authorization for `scopes` (null: every scope); the device code is stored only as a hash. */
export async function createDeviceCode(
  db: Db,
  baseUrl: string,
  clientName: string | undefined,
  scopes: Scope[] | null,
): Promise<DeviceCodeAnswer> {
  const deviceCode = randomToken(32);
  const deviceCodeHash = await sha256Hex(deviceCode);
  for (;;) {
    const userCode = newUserCode();
    const [row] = await db
      .insert(deviceAuthorizations)
      .values({
        id: newId("dev"),
        deviceCodeHash,
        userCode,
        clientName: clientName ?? null,
        scopes,
        intervalSeconds: POLL_INTERVAL_SECONDS,
        expiresAt: new Date(Date.now() + DEVICE_CODE_TTL_SECONDS * 1000),
      })
      // A user code taken by an earlier authorization (19^8 codes): draw another.
      .onConflictDoNothing({ target: deviceAuthorizations.userCode })
      .returning({ id: deviceAuthorizations.id });
    if (!row) continue;
    const verificationUri = `${baseUrl}/device`;
    return {
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(userCode)}`,
      expires_in: DEVICE_CODE_TTL_SECONDS,
      interval: POLL_INTERVAL_SECONDS,
    };
  }
}

/** A pending, unexpired authorization by user code (what the page shows before the person signs in). */
export async function pendingDevice(db: Db, userCodeInput: string) {
  const userCode = normalizeUserCode(userCodeInput);
  if (!userCode) return undefined;
  const [row] = await db
    .select({
      id: deviceAuthorizations.id,
      userCode: deviceAuthorizations.userCode,
      clientName: deviceAuthorizations.clientName,
      scopes: deviceAuthorizations.scopes,
    })
    .from(deviceAuthorizations)
    .where(
      and(
        eq(deviceAuthorizations.userCode, userCode),
        eq(deviceAuthorizations.status, "PENDING"),
        gt(deviceAuthorizations.expiresAt, sql`now()`),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Approves (binding it to the user and workspace, with the scopes it asked for within what the approving credential
 * has: `within`, null for a person signing in on the page) or denies a pending, unexpired authorization. A code that is
 * unknown or expired is 404; one already approved or denied is 409.
 */
export async function decideDevice(
  tx: Executor,
  userCodeInput: string,
  decision: { approve: true; userId: string; workspaceId: string; within: Grants | null } | { approve: false },
): Promise<void> {
  const userCode = normalizeUserCode(userCodeInput);
  if (!userCode) throw notFound("Device code");
  const d = deviceAuthorizations;
  const within = decision.approve ? decision.within : null;
  // What it asked for, narrowed to what the approver's credential has (null on either side: no limit from it).
  const scopes = within?.scopes
    ? sql`(select coalesce(array_agg(s), '{}') from unnest(coalesce(${d.scopes}, ${sql.param(within.scopes)}::text[])) s where s = any(${sql.param(within.scopes)}::text[]))`
    : sql`${d.scopes}`;
  const [done] = await tx
    .update(d)
    .set(
      decision.approve
        ? { status: "APPROVED", userId: decision.userId, workspaceId: decision.workspaceId, scopes, teamIds: within?.teamIds ?? null }
        : { status: "DENIED" },
    )
    .where(
      and(
        eq(deviceAuthorizations.userCode, userCode),
        eq(deviceAuthorizations.status, "PENDING"),
        gt(deviceAuthorizations.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: deviceAuthorizations.id });
  if (done) return;
  const [row] = await tx
    .select({ status: deviceAuthorizations.status, expiresAt: deviceAuthorizations.expiresAt })
    .from(deviceAuthorizations)
    .where(eq(deviceAuthorizations.userCode, userCode))
    .limit(1);
  if (!row || row.expiresAt.getTime() <= Date.now()) throw notFound("Device code");
  throw conflict("This device code was already approved or denied");
}

/** POST /device/approve: a person's credential approves the device, which gets what it asked for within what that credential has. */
export async function approveDevice(caller: Caller, userCode: string): Promise<void> {
  const principal = await caller.principal();
  const { user, workspace } = principal;
  if (user.type !== "HUMAN") throw forbidden("Only a person can approve a device");
  await decideDevice(caller.db, userCode, { approve: true, userId: user.id, workspaceId: workspace.id, within: ofPrincipal(principal) });
}

/** The page's first step: emails a login code to the person who signs the device in (as POST /login/start). */
export const startDeviceLogin = (db: Db, outbox: EmailOutbox, email: string): Promise<string> =>
  startLogin(db, outbox, normalizeEmail(email));

/**
 * The page's second step: the same login codes as POST /login/complete, the code used up; Deny decides the device in
 * the same transaction. Approving is the third step's (the workspace chosen): decideDevice, with nothing narrower than
 * what the device asked for (a person signed in by email on the page).
 */
export async function signInDevice(db: Db, userCode: string, input: LoginInput, deny: boolean) {
  const { login } = await completeLoginWith(db, input, async (tx) => {
    if (deny) await decideDevice(tx, userCode, { approve: false });
  });
  return login;
}

export interface AccessTokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  /** What the token may do (RFC 6749 §5.1: it may be less than asked). */
  scope: string;
  /** Renews the login (POST /auth/token); single use, each answer carries the next one. */
  refresh_token: string;
}

/** How long a login lasts unused: each refresh starts it again. */
const REFRESH_TTL_DAYS = 90;

/** A device's login (a consumed authorization) as its tokens carry it. */
type Login = {
  id: string;
  user_id: string;
  workspace_id: string;
  scopes: string[] | null;
  team_ids: string[] | null;
};

/** The access token of a login and the next refresh token, whose hash `refreshHash` the same statement stored. */
async function tokensOf(env: Env, login: Login, refreshToken: string): Promise<AccessTokenAnswer> {
  const scopes = login.scopes === null ? [...SCOPES] : SCOPES.filter((s) => login.scopes!.includes(s));
  const { token, expiresIn } = await signAccessToken(env, {
    sub: login.user_id,
    wid: login.workspace_id,
    sid: login.id,
    ...(login.scopes !== null && { scope: scopes.join(" ") }),
    ...(login.team_ids !== null && { tid: login.team_ids }),
  });
  return { access_token: token, token_type: "Bearer", expires_in: expiresIn, scope: scopes.join(" "), refresh_token: refreshToken };
}

const newRefreshToken = async () => {
  const raw = `pmr_${randomToken(32)}`;
  return { raw, hash: await sha256Hex(raw) };
};

const invalidGrant = () => oauthRefusal("invalid_grant", "Unknown or already used device_code");

/**
 * RFC 8628 §3.4–3.5: one statement locks the authorization, records the poll, widens the interval of a client
 * that polls too fast, and turns APPROVED into CONSUMED, so a token is issued exactly once. The row as it was
 * before the statement decides the answer.
 */
export async function exchangeDeviceCode(db: Db, env: Env, deviceCode: string): Promise<AccessTokenAnswer> {
  const hash = await sha256Hex(deviceCode);
  const refresh = await newRefreshToken();
  const d = deviceAuthorizations;
  const rows = await db.execute<{
    id: string;
    scopes: string[] | null;
    team_ids: string[] | null;
    prev_status: "PENDING" | "APPROVED" | "DENIED" | "CONSUMED";
    expired: boolean;
    too_fast: boolean;
    interval_seconds: number;
    user_id: string | null;
    workspace_id: string | null;
  }>(sql`
    with prev as (
      select ${d.id} as id, ${d.status} as status, ${d.expiresAt} <= now() as expired,
        (${d.lastPolledAt} is not null and ${d.lastPolledAt} > now() - make_interval(secs => ${d.intervalSeconds})) as too_fast
      from ${d} where ${d.deviceCodeHash} = ${hash} for update
    )
    update ${d} set
      last_polled_at = now(),
      interval_seconds = case when prev.status = 'PENDING' and not prev.expired and prev.too_fast
        then ${d.intervalSeconds} + ${SLOW_DOWN_STEP_SECONDS} else ${d.intervalSeconds} end,
      status = case when prev.status = 'APPROVED' and not prev.expired then 'CONSUMED'::device_status else prev.status end,
      refresh_hash = case when prev.status = 'APPROVED' and not prev.expired then ${refresh.hash} else ${d.refreshHash} end,
      refresh_expires_at = case when prev.status = 'APPROVED' and not prev.expired
        then now() + make_interval(days => ${REFRESH_TTL_DAYS}) else ${d.refreshExpiresAt} end
    from prev where ${d.id} = prev.id
    returning prev.status as prev_status, prev.expired, prev.too_fast, ${d.intervalSeconds} as interval_seconds,
      ${d.id} as id, ${d.userId} as user_id, ${d.workspaceId} as workspace_id, ${d.scopes} as scopes, ${d.teamIds} as team_ids`);
  const row = rows.rows[0];
  if (!row || row.prev_status === "CONSUMED") throw invalidGrant();
  if (row.expired) throw oauthRefusal("expired_token", "The device code has expired; request a new one");
  if (row.prev_status === "DENIED") throw oauthRefusal("access_denied", "The user denied this device");
  if (row.prev_status === "PENDING") {
    if (row.too_fast) {
      throw oauthRefusal("slow_down", `Polling too fast: wait at least ${row.interval_seconds} seconds between requests`, {
        interval: row.interval_seconds,
      });
    }
    throw oauthRefusal("authorization_pending", "The user has not approved this device yet", { interval: row.interval_seconds });
  }
  // An approved row always carries both (decideDevice sets them with the status).
  if (!row.user_id || !row.workspace_id) throw invalidGrant();
  return tokensOf(env, { ...row, user_id: row.user_id, workspace_id: row.workspace_id }, refresh.raw);
}

/**
 * RFC 6749 §6: a new access token for a login, from its refresh token, which is used up: the answer carries the next
 * one (rotation), in one statement. A token that is unknown, used, revoked or expired, or whose user left the
 * workspace, is 400 `invalid_grant`.
 */
export async function refreshLogin(db: Db, env: Env, refreshToken: string): Promise<AccessTokenAnswer> {
  const next = await newRefreshToken();
  const d = deviceAuthorizations;
  const { rows } = await db.execute<Login>(sql`
    update ${d} set refresh_hash = ${next.hash}, refresh_expires_at = now() + make_interval(days => ${REFRESH_TTL_DAYS})
    where ${d.refreshHash} = ${await sha256Hex(refreshToken)} and ${d.status} = 'CONSUMED' and ${d.revokedAt} is null
      and ${d.refreshExpiresAt} > now()
      and exists (select 1 from ${workspaceMembers} where ${workspaceMembers.userId} = ${d.userId} and ${workspaceMembers.workspaceId} = ${d.workspaceId})
    returning ${d.id} as id, ${d.userId} as user_id, ${d.workspaceId} as workspace_id, ${d.scopes} as scopes, ${d.teamIds} as team_ids`);
  if (!rows[0]) throw oauthRefusal("invalid_grant", "Unknown, used, revoked or expired refresh_token");
  return tokensOf(env, rows[0], next.raw);
}

/**
 * RFC 7009: ends what `token` belongs to: a device's login, named by its refresh token or by one of its access tokens
 * (`sid`), or an OAuth grant (auth/oauth/grants.ts revokeGrantOf); its access tokens are 401 from the next request on.
 * Anything else is ignored (the answer is the same, as the RFC says). The revoked credential's workspace, or null.
 */
export async function revokeToken(db: Db, env: Env, token: string, clientId?: string): Promise<string | null> {
  const payload = await verifyAccessToken(env, token);
  if (payload?.gid) return revokeGrantOf(db, { grantId: payload.gid }, clientId);
  if (!payload && token.startsWith(GRANT_REFRESH_PREFIX)) return revokeGrantOf(db, { refreshToken: token }, clientId);
  const d = deviceAuthorizations;
  const which = payload ? (payload.sid ? eq(d.id, payload.sid) : undefined) : eq(d.refreshHash, await sha256Hex(token));
  if (!which) return null;
  const [revoked] = await db
    .update(d)
    .set(LOGIN_REVOKED)
    .where(and(which, sql`${d.revokedAt} is null`))
    .returning({ workspaceId: d.workspaceId });
  return revoked?.workspaceId ?? null;
}
