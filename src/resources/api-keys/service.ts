import { and, eq } from "drizzle-orm";
import { apiKeys } from "../../../drizzle/schema";
import { insertApiKey } from "../../auth/accounts/membership";
import type { Principal } from "../../auth/principal";
import { notFound } from "../../core/errors";
import type { Db } from "../../db/client";
import type { ApiKeyCreateInput } from "../../records/api-keys";
import { keysOf } from "./queries";

/** A key of the caller in their current workspace: one statement. */
export function createApiKey(db: Db, principal: Principal, input: ApiKeyCreateInput) {
  return insertApiKey(db, {
    workspaceId: principal.workspace.id,
    userId: principal.user.id,
    name: input.name,
    expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
  });
}

/** Deletes one of the caller's keys or their agents' keys in the workspace (anything else: 404); one statement. */
export async function deleteApiKey(db: Db, principal: Principal, id: string) {
  const deleted = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.id, id), keysOf(principal.workspace.id, principal.user.id)))
    .returning({ id: apiKeys.id });
  if (deleted.length === 0) throw notFound("API key");
}
