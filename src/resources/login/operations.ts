// Login's operations: a code by email, then a new API key of the chosen workspace (the login primitives, shared with
// the device and OAuth pages: auth/accounts/login.ts).
import { normalizeEmail } from "../../auth/accounts/codes";
import { completeLoginWith, startLogin as emailLoginCode, type LoginInput } from "../../auth/accounts/login";
import { issueApiKey } from "../../auth/accounts/membership";
import type { Db } from "../../db/client";
import type { EmailOutbox } from "../../email/outbox";

/** POST /login/start: the token that completes the login (a decoy for an address without an account). */
export const startLogin = (db: Db, outbox: EmailOutbox, email: string): Promise<string> =>
  emailLoginCode(db, outbox, normalizeEmail(email));

/** POST /login/complete: a new API key of the chosen workspace for the user. */
export async function completeLogin(db: Db, input: LoginInput) {
  const { login, result: apiToken } = await completeLoginWith(db, input, (tx, l) =>
    issueApiKey(tx, { workspaceId: l.workspace.id, userId: l.user.id, name: "Login key" }),
  );
  return { api_token: apiToken, workspace_slug: login.workspace.slug };
}
