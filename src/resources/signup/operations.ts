// Sign-up's operations: a code by email, then the user, its first workspace (OWNER) and an API key in one transaction.
import { users } from "../../../drizzle/schema";
import { consumeCode, issueCode, normalizeEmail, verifyCode } from "../../auth/accounts/codes";
import { insertWorkspace, joinWorkspaceWithKey, userByEmail } from "../../auth/accounts/membership";
import { conflict, ValidationError } from "../../core/errors";
import type { Db } from "../../db/client";
import type { EmailOutbox } from "../../email/outbox";
import { newId } from "../../ids";

/** POST /signup/start: emails a 6-digit code and returns the token that completes the sign-up with it. */
export function startSignup(db: Db, outbox: EmailOutbox, email: string): Promise<string> {
  return issueCode(db, outbox, "SIGNUP", normalizeEmail(email));
}

/** POST /signup/complete: the user, its first workspace (OWNER) and an API key, the code used up with them. */
export async function completeSignup(db: Db, input: { signup_token: string; code: string; name: string; workspace_name: string }) {
  const row = await verifyCode(db, "SIGNUP", input.signup_token, input.code, "signup_token");
  if (await userByEmail(db, row.email)) throw conflict("An account with this email already exists; sign in instead");
  // Interactive (the WebSocket): the code's consumption decides, and the workspace and key use the user's row.
  return db.transaction(async (tx) => {
    if (!(await consumeCode(tx, row.id))) throw new ValidationError({ signup_token: ["Unknown or already used token"] });
    const [user] = await tx
      .insert(users)
      .values({ id: newId("user"), name: input.name, email: row.email })
      .returning();
    const workspace = await insertWorkspace(tx, input.workspace_name);
    const apiToken = await joinWorkspaceWithKey(tx, {
      workspaceId: workspace.id,
      userId: user.id,
      role: "OWNER",
      keyName: "Sign-up key",
    });
    return { api_token: apiToken, workspace_slug: workspace.slug, workspace_name: workspace.name };
  });
}
