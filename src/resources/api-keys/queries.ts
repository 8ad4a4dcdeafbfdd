import { and, eq, or, type SQL, sql } from "drizzle-orm";
import { apiKeys, users } from "../../../drizzle/schema";
import { notFound } from "../../core/errors";
import type { Executor, WorkspaceScope } from "../../db/client";
import { type ListParams, type ListSpec, pageQuery } from "../../http/list";
import { apiKeyColumns, serializeApiKey } from "../../records/api-keys";

export const apiKeyList: ListSpec = {
  resource: "api-keys",
  id: apiKeys.id,
  fields: {
    id: { expr: apiKeys.id, kind: "id" },
    name: { expr: apiKeys.name, kind: "string" },
    prefix: { expr: apiKeys.prefix, kind: "string" },
    userId: { expr: apiKeys.userId, kind: "id" },
    createdAt: { expr: apiKeys.createdAt, kind: "datetime" },
    lastUsedAt: { expr: apiKeys.lastUsedAt, kind: "datetime", nullable: true },
    expiresAt: { expr: apiKeys.expiresAt, kind: "datetime", nullable: true },
  },
  shape: Object.fromEntries(Object.keys(apiKeyColumns).map((key) => [key, true])),
};

/** Keys of the workspace held by `user` or by an agent `user` owns (`user`: an id, or the credential's user in SQL). */
export const keysOf = (workspaceId: WorkspaceScope, user: string | SQL<string>) =>
  and(
    eq(apiKeys.workspaceId, workspaceId),
    or(eq(apiKeys.userId, user), sql`${apiKeys.userId} in (select ${users.id} from ${users} where ${users.humanId} = ${user})`),
  );

/** One page (limit + 1 rows) of the caller's keys and their agents' keys in the workspace. */
export async function listApiKeys(db: Executor, workspaceId: WorkspaceScope, user: string | SQL<string>, params: ListParams) {
  const rows = await pageQuery(db.select(apiKeyColumns).from(apiKeys).$dynamic(), keysOf(workspaceId, user), params);
  return rows.map(serializeApiKey);
}

/** One of the caller's keys or their agents' keys in the workspace (any other key: 404, as if it did not exist). */
export async function getApiKey(db: Executor, workspaceId: WorkspaceScope, user: string | SQL<string>, id: string) {
  const [row] = await db
    .select(apiKeyColumns)
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), keysOf(workspaceId, user)));
  if (!row) throw notFound("API key");
  return serializeApiKey(row);
}
