import { and, eq } from "drizzle-orm";
import { apiKeys } from "../../../drizzle/schema";
import { generateApiKey } from "../../auth/api-keys";
import type { Principal } from "../../auth/principal";
import { notFound } from "../../core/errors";
import type { Db, Executor } from "../../db/client";
import { newId } from "../../ids";
import { apiKeyColumns, keysOf, serializeApiKey } from "./queries";
import type { ApiKeyCreateInput } from "./schema";

/** Stores a new key for a workspace member (only its hash); returns the public view and the raw key, shown once. */
export async function insertApiKey(
  db: Executor,
  args: { workspaceId: string; userId: string; name: string; expiresAt?: Date | null },
): Promise<{ apiKey: ReturnType<typeof serializeApiKey>; key: string }> {
  const key = await generateApiKey();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId("apik"),
      workspaceId: args.workspaceId,
      userId: args.userId,
      name: args.name,
      prefix: key.prefix,
      keyHash: key.hash,
      expiresAt: args.expiresAt ?? null,
    })
    .returning(apiKeyColumns);
  return { apiKey: serializeApiKey(row), key: key.raw };
}

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
