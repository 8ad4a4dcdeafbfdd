import { and, asc, eq } from "drizzle-orm";
import { workspaceMembers, workspaces } from "../../../drizzle/schema";
import { ValidationError } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import type { EmailOutbox } from "../../email/outbox";
import { consumeCode, issueCode, verifyCode } from "./codes";
import { userByEmail } from "./membership";

/**
 * Emails a LOGIN code to a person with an account and returns the token that completes the login. An address
 * without a (human) account gets the same answer from the same work, a decoy token that can never complete,
 * and no email: the answer does not tell whether an account exists.
 */
export async function startLogin(db: Db, outbox: EmailOutbox, email: string): Promise<string> {
  const user = await userByEmail(db, email);
  const known = user !== undefined && user.type === "HUMAN";
  return issueCode(db, outbox, "LOGIN", email, { decoy: !known });
}

export interface VerifiedLogin {
  /** The code row, still unconsumed: the caller consumes it (consumeCode) in the transaction that acts on it. */
  codeId: string;
  user: { id: string; name: string; email: string };
  workspace: { id: string; slug: string; name: string };
}

/**
 * Checks a login token and its code (5 tries, 15 minutes; see signup/codes.ts) and picks the workspace: the
 * one named by `workspaceSlug`, else the user's first by membership. A slug the user is not a member of is 422
 * at workspace_slug, whether or not such a workspace exists, and leaves the code usable for a retry.
 */
async function verifyLogin(db: Db, token: string, code: string, workspaceSlug?: string): Promise<VerifiedLogin> {
  const row = await verifyCode(db, "LOGIN", token, code, "login_token");
  const user = await userByEmail(db, row.email);
  // The account was deleted (or became an agent's address) after the code was sent.
  if (user?.type !== "HUMAN") throw new ValidationError({ login_token: ["Unknown or already used token"] });
  const memberships = await db
    .select({ id: workspaces.id, slug: workspaces.slug, name: workspaces.name })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.userId, user.id), workspaceSlug === undefined ? undefined : eq(workspaces.slug, workspaceSlug)))
    .orderBy(asc(workspaceMembers.createdAt), asc(workspaces.id))
    .limit(1);
  const workspace = memberships[0];
  if (!workspace) {
    throw new ValidationError({
      workspace_slug: [
        workspaceSlug === undefined ? "You are not a member of any workspace" : "You are not a member of a workspace with this slug",
      ],
    });
  }
  return { codeId: row.id, user: { id: user.id, name: user.name, email: user.email }, workspace };
}

/** Consumes the code in the caller's transaction; a concurrent request that used it first makes this 422. */
async function consumeLoginCode(tx: Executor, codeId: string): Promise<void> {
  if (!(await consumeCode(tx, codeId))) throw new ValidationError({ login_token: ["Unknown or already used token"] });
}

export type LoginInput = { login_token: string; code: string; workspace_slug?: string };

/**
 * The one login completion: checks the code, then uses it up in the transaction that does what the login is
 * for (`act`: issue an API key, or decide a device), so a code signs in exactly once.
 */
export async function completeLoginWith<T>(db: Db, input: LoginInput, act: (tx: Executor, login: VerifiedLogin) => Promise<T>) {
  const login = await verifyLogin(db, input.login_token, input.code, input.workspace_slug);
  // Interactive (the WebSocket): the caller's `act` runs in it after the code is consumed.
  const result = await db.transaction(async (tx) => {
    await consumeLoginCode(tx, login.codeId);
    return act(tx, login);
  });
  return { login, result };
}
