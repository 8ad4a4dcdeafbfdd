import { and, eq, sql } from "drizzle-orm";
import { apiKeys, users, workspaceMembers, workspaces } from "../../drizzle/schema";
import { SCOPES, type Scope } from "../core/scopes";
import type { Db } from "../db/client";
import type { Actor } from "../store/statement-caller";
import { type Credential, liveCredential, storedGrants } from "./credential";

export type WorkspaceRole = "MEMBER" | "ADMIN" | "OWNER";

/** Who is calling, in which workspace, with which role: everything authorization needs, from one query. */
export interface Principal {
  user: { id: string; name: string; email: string; avatarUrl: string | null; humanId: string | null; type: "HUMAN" | "AGENT" };
  workspace: { id: string; name: string; slug: string; createdAt: Date; updatedAt: Date };
  role: WorkspaceRole;
  /** What the credential may do (docs/api.md, "Least privilege"): its scopes, and its teams (null: every team). */
  scopes: Scope[];
  teamIds: string[] | null;
  /** When the credential stops being live (a key's `expiresAt`, a token's `exp`), in ms since the epoch; null: never. */
  expiresAt: number | null;
}

export const principalActor = (p: Principal) =>
  ({ workspace: p.workspace.id, user: p.user.id, role: p.role, teams: p.teamIds }) satisfies Actor;

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

/** A stored scope list as the scopes it grants (null: every scope; a name no longer known grants nothing). */
const grantedScopes = (stored: string[] | null): Scope[] => (stored === null ? [...SCOPES] : SCOPES.filter((s) => stored.includes(s)));

/**
 * The principal of a credential, in one indexed query; null when it is not live (unknown, expired, revoked, or no
 * longer a member).
 */
export async function loadPrincipal(db: Db, credential: Credential): Promise<Principal | null> {
  const grants = storedGrants(credential);
  // A key's expiry from its row (joined below); a token's is its `exp`, known already.
  const expiresAt =
    credential.kind === "apiKey"
      ? sql<number | null>`floor(extract(epoch from ${apiKeys.expiresAt}) * 1000)::float8`
      : sql<number>`${credential.expiresAt}::float8`;
  const member = db
    .select({ ...principalColumns, scopes: grants.scopes, teamIds: grants.teamIds, expiresAt })
    .from(workspaceMembers)
    .innerJoin(users, eq(users.id, workspaceMembers.userId))
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .$dynamic();
  const query =
    credential.kind === "apiKey"
      ? member.innerJoin(apiKeys, and(eq(apiKeys.userId, workspaceMembers.userId), eq(apiKeys.workspaceId, workspaceMembers.workspaceId)))
      : member;
  const [row] = await query.where(liveCredential(credential)).limit(1);
  return row ? { ...row, scopes: grantedScopes(row.scopes) } : null;
}

/** Records a key's use; the condition keeps lastUsedAt to one move a minute, whichever isolate asks. */
export const touchApiKey = (db: Db, keyHash: string) =>
  db
    .update(apiKeys)
    .set({ lastUsedAt: sql`now()` })
    .where(and(eq(apiKeys.keyHash, keyHash), sql`(${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < now() - interval '1 minute')`));
