import { and, eq, type SQL, sql } from "drizzle-orm";
import { apiKeys, workspaceMembers } from "../../drizzle/schema";
import type { Db } from "../db/client";
import type { Env } from "../env";
import { hashApiKey } from "./api-keys";
import { verifyAccessToken } from "./jwt";
import { type Principal, principalByKeyHash, principalByUser } from "./principal";

/** What the request presented, checked as far as it can be without the database. */
export type Credential = { kind: "apiKey"; keyHash: string } | { kind: "jwt"; userId: string; workspaceId: string };

/** `svc-api-key`, else `Authorization: Bearer <JWT>` (signature, issuer, audience and expiry verified). */
export async function readCredential(headers: { header(name: string): string | undefined }, env: Env): Promise<Credential | null> {
  const key = headers.header("svc-api-key");
  if (key) return { kind: "apiKey", keyHash: await hashApiKey(key) };
  const authorization = headers.header("authorization");
  if (!authorization?.toLowerCase().startsWith("bearer ")) return null;
  const claims = await verifyAccessToken(env, authorization.slice(7).trim());
  return claims ? { kind: "jwt", userId: claims.sub, workspaceId: claims.wid } : null;
}

export function loadPrincipal(db: Db, credential: Credential): Promise<Principal | null> {
  return credential.kind === "apiKey"
    ? principalByKeyHash(db, credential.keyHash)
    : principalByUser(db, credential.userId, credential.workspaceId);
}

/**
 * The workspace the credential acts in, as a scalar subquery: null when the key is unknown or expired or its
 * user has left the workspace. A read scoped by it authenticates in the same round trip as it reads.
 */
export function credentialWorkspace(credential: Credential): SQL<string> {
  if (credential.kind === "jwt") {
    return sql<string>`(select ${workspaceMembers.workspaceId} from ${workspaceMembers} where ${and(
      eq(workspaceMembers.userId, credential.userId),
      eq(workspaceMembers.workspaceId, credential.workspaceId),
    )})`;
  }
  // api_keys_membership_fk deletes a user's keys when they leave the workspace: the key alone is enough.
  return sql<string>`(select ${apiKeys.workspaceId} from ${apiKeys} where ${apiKeys.keyHash} = ${credential.keyHash} and (${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > now()))`;
}

/** The caller as SQL for a statement that authenticates itself: workspace, user and workspace role. */
export interface SqlActor {
  workspace: SQL<string>;
  user: SQL<string>;
  role: SQL<string>;
}

export function credentialActor(credential: Credential): SqlActor {
  const member = (column: SQL | typeof workspaceMembers.role) =>
    credential.kind === "jwt"
      ? sql<string>`(select ${column} from ${workspaceMembers} where ${and(eq(workspaceMembers.userId, credential.userId), eq(workspaceMembers.workspaceId, credential.workspaceId))})`
      : sql<string>`(select ${column} from ${apiKeys} join ${workspaceMembers} on ${and(eq(workspaceMembers.userId, apiKeys.userId), eq(workspaceMembers.workspaceId, apiKeys.workspaceId))} where ${apiKeys.keyHash} = ${credential.keyHash} and (${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > now()))`;
  return {
    workspace: credentialWorkspace(credential),
    user: member(sql`${workspaceMembers.userId}`),
    role: member(workspaceMembers.role),
  };
}

/**
 * What list cursors are bound to, known before any query: the key (by hash) or the token's user and
 * workspace. A cursor of another workspace, key or user is "foreign" (400).
 */
export const credentialScope = (credential: Credential): string =>
  credential.kind === "apiKey" ? `key:${credential.keyHash}` : `user:${credential.userId}:${credential.workspaceId}`;
