import { and, eq, gt, sql } from "drizzle-orm";
import { deviceAuthorizations } from "../../../drizzle/schema";
import { signAccessToken } from "../../auth/jwt";
import { randomToken, sha256Hex } from "../../core/crypto";
import { AppError, conflict, notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import type { Env } from "../../env";
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

/** RFC 8628 §3.1–3.2: a new pending authorization; the device code is stored only as a hash. */
export async function createDeviceCode(db: Db, baseUrl: string, clientName: string | undefined): Promise<DeviceCodeAnswer> {
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
    .select({ id: deviceAuthorizations.id, userCode: deviceAuthorizations.userCode, clientName: deviceAuthorizations.clientName })
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
 * Approves (binding it to the user and workspace) or denies a pending, unexpired authorization. A code that is
 * unknown or expired is 404; one already approved or denied is 409.
 */
export async function decideDevice(
  tx: Executor,
  userCodeInput: string,
  decision: { approve: true; userId: string; workspaceId: string } | { approve: false },
): Promise<void> {
  const userCode = normalizeUserCode(userCodeInput);
  if (!userCode) throw notFound("Device code");
  const [done] = await tx
    .update(deviceAuthorizations)
    .set(decision.approve ? { status: "APPROVED", userId: decision.userId, workspaceId: decision.workspaceId } : { status: "DENIED" })
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

export interface AccessTokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
}

const invalidGrant = () => new AppError("BAD_REQUEST", "Unknown or already used device_code", { error: "invalid_grant" });

/**
 * RFC 8628 §3.4–3.5: one statement locks the authorization, records the poll, widens the interval of a client
 * that polls too fast, and turns APPROVED into CONSUMED, so a token is issued exactly once. The row as it was
 * before the statement decides the answer.
 */
export async function exchangeDeviceCode(db: Db, env: Env, deviceCode: string): Promise<AccessTokenAnswer> {
  const hash = await sha256Hex(deviceCode);
  const d = deviceAuthorizations;
  const rows = await db.execute<{
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
      status = case when prev.status = 'APPROVED' and not prev.expired then 'CONSUMED'::device_status else prev.status end
    from prev where ${d.id} = prev.id
    returning prev.status as prev_status, prev.expired, prev.too_fast, ${d.intervalSeconds} as interval_seconds,
      ${d.userId} as user_id, ${d.workspaceId} as workspace_id`);
  const row = rows.rows[0];
  if (!row || row.prev_status === "CONSUMED") throw invalidGrant();
  if (row.expired) throw new AppError("EXPIRED_TOKEN", "The device code has expired; request a new one");
  if (row.prev_status === "DENIED") throw new AppError("ACCESS_DENIED", "The user denied this device");
  if (row.prev_status === "PENDING") {
    if (row.too_fast) {
      throw new AppError("SLOW_DOWN", `Polling too fast: wait at least ${row.interval_seconds} seconds between requests`, {
        interval: row.interval_seconds,
      });
    }
    throw new AppError("AUTHORIZATION_PENDING", "The user has not approved this device yet", { interval: row.interval_seconds });
  }
  // An approved row always carries both (decideDevice sets them with the status).
  if (!row.user_id || !row.workspace_id) throw invalidGrant();
  const { token, expiresIn } = await signAccessToken(env, { sub: row.user_id, wid: row.workspace_id });
  return { access_token: token, token_type: "Bearer", expires_in: expiresIn };
}
