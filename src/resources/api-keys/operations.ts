// The API-key operations, one function each: the caller's keys and their agents' keys in the current workspace. Deleting
// one is auth/accounts/credentials.ts's, which the account page shares.
import { and, eq, sql } from "drizzle-orm";
import { apiKeys, workspaceMembers } from "../../../drizzle/schema";
import { keysOf } from "../../auth/accounts/credentials";
import { generateApiKey } from "../../auth/api-keys";
import type { Caller } from "../../auth/caller";
import { storedGrants } from "../../auth/credential";
import { type Grants, grantsFor } from "../../auth/credential-grants";
import { notFound } from "../../core/errors";
import { newId } from "../../ids";
import { guardedWrite, type Target } from "../../store/guarded";
import type { FieldSelection, ListParams } from "../../store/list";
import { listRecords } from "../../store/reads";
import { type ApiKey, type ApiKeyCreateInput, apiKeyRecord } from "./record";

/**
 * POST /api-keys: a key of the caller in their current workspace, written by a statement that authenticates itself; raw
 * key once. It may do what the body asks, never more than the caller's own credential (auth/credential-grants.ts, which loads the
 * caller); a body that asks nothing inherits the credential's grants in the statement itself.
 */
export async function createApiKey(caller: Caller, input: ApiKeyCreateInput): Promise<{ apiKey: ApiKey; key: string }> {
  const grants =
    input.scopes === undefined && input.teamIds === undefined
      ? storedGrants(caller.credential)
      : storedValues(await grantsFor(caller.db, await caller.principal(), input));
  const { actor } = caller;
  const key = await generateApiKey();
  const id = newId("apik");
  const membership: Target = {
    from: sql`${workspaceMembers}`,
    where: and(eq(workspaceMembers.workspaceId, actor.workspace), eq(workspaceMembers.userId, actor.user))!,
    columns: { id: workspaceMembers.userId, workspace: workspaceMembers.workspaceId },
    guards: [],
    name: "Member",
    team: null,
  };
  const expiresAt = input.expiresAt ? new Date(input.expiresAt).toISOString() : null;
  const apiKey = await guardedWrite<ApiKey>(caller, membership, (allowed) => ({
    ctes: [
      sql`api_keys as (insert into ${apiKeys} (id, workspace_id, user_id, name, prefix, key_hash, expires_at, scopes, team_ids)
        select ${id}, workspace, ${allowed}, ${input.name}, ${key.prefix}, ${key.hash}, ${expiresAt}::timestamptz,
          ${grants.scopes}, ${grants.teamIds}
        from target where ${allowed} is not null returning *)`,
    ],
    result: sql`(select ${apiKeyRecord.json()} from ${apiKeyRecord.from})`,
  }));
  return { apiKey, key: key.raw };
}

/** Grants as the values of a statement. */
const storedValues = (grants: Grants) => ({
  scopes: sql<string[] | null>`${sql.param(grants.scopes)}::text[]`,
  teamIds: sql<string[] | null>`${sql.param(grants.teamIds)}::text[]`,
});

/** GET /api-keys/{id}, in one statement that authenticates itself. */
export function getApiKey(caller: Caller, id: string, fields: FieldSelection | null = null): Promise<ApiKey> {
  return caller.read(async (actor) => {
    const [row] = await caller.db
      .select({ apiKey: apiKeyRecord.json(fields) })
      .from(apiKeyRecord.from)
      .where(and(eq(apiKeys.id, id), keysOf(actor)));
    if (!row) throw notFound("API key");
    return row.apiKey;
  });
}

/** GET /api-keys: one page of the caller's keys and their agents' keys. */
export function listApiKeys(caller: Caller, params: ListParams): Promise<ApiKey[]> {
  return listRecords(caller, apiKeyRecord, params, keysOf);
}

export { deleteApiKey } from "../../auth/accounts/credentials";
