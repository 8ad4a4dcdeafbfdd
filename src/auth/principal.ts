import { and, eq, type SQL, sql } from "drizzle-orm";
import { apiKeys, users, workspaceMembers, workspaces } from "../../drizzle/schema";
import type { Db, WorkspaceScope } from "../db/client";
import { type Credential, liveCredential } from "./credential";

export type WorkspaceRole = "MEMBER" | "ADMIN" | "OWNER";

/** Who is calling, in which workspace, with which role: everything authorization needs, from one query. */
export interface Principal {
  user: { id: string; name: string; email: string; avatarUrl: string | null; humanId: string | null; type: "HUMAN" | "AGENT" };
  workspace: { id: string; name: string; slug: string; createdAt: Date; updatedAt: Date };
  role: WorkspaceRole;
}

/**
 * Who acts, in a statement that authenticates and authorizes itself: plain values of a loaded principal, or SQL read
 * from the credential in the statement (null for a credential that is not live).
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

/** The principal of a credential, in one indexed query; null when it is not live (unknown, expired, or no longer a member). */
export async function loadPrincipal(db: Db, credential: Credential): Promise<Principal | null> {
  const member = db.select(principalColumns).from(workspaceMembers);
  const query =
    credential.kind === "apiKey"
      ? member
          .innerJoin(apiKeys, and(eq(apiKeys.userId, workspaceMembers.userId), eq(apiKeys.workspaceId, workspaceMembers.workspaceId)))
          .innerJoin(users, eq(users.id, workspaceMembers.userId))
          .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
      : member
          .innerJoin(users, eq(users.id, workspaceMembers.userId))
          .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId));
  const [row] = await query.where(liveCredential(credential)).limit(1);
  return row ?? null;
}

/** Records a key's use; the condition keeps lastUsedAt to one move a minute, whichever isolate asks. */
export const touchApiKey = (db: Db, keyHash: string) =>
  db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.keyHash, keyHash), sql`(${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < now() - interval '1 minute')`));
