import { and, eq, type SQL, sql } from "drizzle-orm";
import { apiKeys, users, workspaceMembers, workspaces } from "../../drizzle/schema";
import type { Db, WorkspaceScope } from "../db/client";

export type WorkspaceRole = "MEMBER" | "ADMIN" | "OWNER";

/** Who is calling, in which workspace, with which role: everything authorization needs, from one query. */
export interface Principal {
  user: { id: string; name: string; email: string; avatarUrl: string | null; humanId: string | null; type: "HUMAN" | "AGENT" };
  workspace: { id: string; name: string; slug: string; createdAt: Date; updatedAt: Date };
  role: WorkspaceRole;
}

/**
 * Who acts, for a statement that authenticates and authorizes itself: plain values of a loaded principal, or
 * SQL read from the credential (credentialActor), null for a bad one.
 */
export interface Actor {
  workspace: WorkspaceScope;
  user: string | SQL<string>;
  role: string | SQL<string>;
}

export const principalActor = (p: Principal) => ({ workspace: p.workspace.id, user: p.user.id, role: p.role }) satisfies Actor;

const principalColumns = {
  user: {
    id: users.id,
    name: users.name,
    email: users.email,
    avatarUrl: users.avatarUrl,
    humanId: users.humanId,
    type: users.type,
  },
  workspace: {
    id: workspaces.id,
    name: workspaces.name,
    slug: workspaces.slug,
    createdAt: workspaces.createdAt,
    updatedAt: workspaces.updatedAt,
  },
  role: workspaceMembers.role,
};

/** The principal of an API key, by hash; expired keys and keys whose user left the workspace find nothing. */
export async function principalByKeyHash(db: Db, keyHash: string): Promise<Principal | null> {
  const [row] = await db
    .select(principalColumns)
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .innerJoin(workspaceMembers, and(eq(workspaceMembers.userId, apiKeys.userId), eq(workspaceMembers.workspaceId, apiKeys.workspaceId)))
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .where(and(eq(apiKeys.keyHash, keyHash), sql`(${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > now())`))
    .limit(1);
  return row ?? null;
}

/** The principal of a verified JWT (`sub` user in workspace `wid`). */
export async function principalByUser(db: Db, userId: string, workspaceId: string): Promise<Principal | null> {
  const [row] = await db
    .select(principalColumns)
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(and(eq(workspaceMembers.userId, userId), eq(workspaceMembers.workspaceId, workspaceId)))
    .limit(1);
  return row ?? null;
}

/** Records a key's use; the condition keeps lastUsedAt to one move a minute, whichever isolate asks. */
export const touchApiKey = (db: Db, keyHash: string) =>
  db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.keyHash, keyHash), sql`(${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < now() - interval '1 minute')`));
