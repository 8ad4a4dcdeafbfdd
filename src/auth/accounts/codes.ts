import { and, eq, isNull, lt, sql } from "drizzle-orm";
import { authCodes } from "../../../drizzle/schema";
import { randomToken, sha256Hex, sixDigitCode, timingSafeEqual } from "../../core/crypto";
import { ValidationError } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import type { EmailOutbox } from "../../email/outbox";
import { newId } from "../../ids";

/** An email as codes, accounts and invites compare it: trimmed, lower case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const CODE_TTL_MS = 15 * 60 * 1000;
export const MAX_CODE_ATTEMPTS = 5;
type Purpose = "SIGNUP" | "LOGIN";

/**
 * Issues a one-time code for an email and the email that carries it, in one statement: returns the token the client
 * keeps. `decoy`: for an address without an account the same row is written (same answer, same round trips), but its
 * code hash is of a random token, which no 6-character code can match: the token can never complete; it gets no email.
 */
export async function issueCode(
  db: Db,
  outbox: EmailOutbox,
  purpose: Purpose,
  email: string,
  opts: { decoy?: boolean } = {},
): Promise<string> {
  const token = randomToken(32);
  const code = opts.decoy ? randomToken(16) : sixDigitCode();
  const expiresAt = new Date(Date.now() + CODE_TTL_MS);
  const template = purpose === "SIGNUP" ? "signup_code" : "login_code";
  const mail = opts.decoy ? [] : [await outbox.add(db, { to: email, template, data: { code } }, expiresAt)];
  await db
    .with(...mail)
    .insert(authCodes)
    .values({
      id: newId("code"),
      purpose,
      email,
      tokenHash: await sha256Hex(token),
      codeHash: await sha256Hex(code),
      expiresAt,
    });
  return token;
}

const fail = (field: string, message: string) => new ValidationError({ [field]: [message] });

/**
 * Checks a code against its token. A wrong code counts an attempt; the fifth wrong one invalidates the code.
 * Returns the code row (still unconsumed) when the code is right; the caller consumes it in its transaction.
 */
export async function verifyCode(db: Db, purpose: Purpose, token: string, code: string, tokenField: string) {
  const [row] = await db
    .select()
    .from(authCodes)
    .where(and(eq(authCodes.tokenHash, await sha256Hex(token)), eq(authCodes.purpose, purpose)))
    .limit(1);
  if (!row || row.consumedAt) throw fail(tokenField, "Unknown or already used token");
  if (row.expiresAt.getTime() <= Date.now()) throw fail("code", "The code has expired; start again");
  if (row.attempts >= MAX_CODE_ATTEMPTS) throw fail("code", "Too many wrong codes; start again");
  if (!timingSafeEqual(await sha256Hex(code), row.codeHash)) {
    // Counted in the statement that reads the count back: of concurrent wrong codes, each gets its own number, and
    // none past the limit is counted or told it has attempts left.
    const [counted] = await db
      .update(authCodes)
      .set({ attempts: sql`${authCodes.attempts} + 1` })
      .where(and(eq(authCodes.id, row.id), lt(authCodes.attempts, MAX_CODE_ATTEMPTS)))
      .returning({ attempts: authCodes.attempts });
    const left = counted ? MAX_CODE_ATTEMPTS - counted.attempts : 0;
    throw fail("code", left > 0 ? `Invalid code (${left} attempts left)` : "Invalid code; too many wrong codes, start again");
  }
  return row;
}

/** Marks the code used inside the caller's transaction; false if a concurrent request used it first. */
export async function consumeCode(tx: Executor, id: string): Promise<boolean> {
  const used = await tx
    .update(authCodes)
    .set({ consumedAt: sql`now()` })
    .where(and(eq(authCodes.id, id), isNull(authCodes.consumedAt), lt(authCodes.attempts, MAX_CODE_ATTEMPTS)))
    .returning({ id: authCodes.id });
  return used.length === 1;
}
