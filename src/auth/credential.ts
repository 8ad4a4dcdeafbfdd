import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { apiKeys, workspaceMembers } from "../../drizzle/schema";
import type { Env } from "../env";
import { hashApiKey } from "./api-keys";
import { verifyAccessToken } from "./jwt";

/** What the request presented, checked as far as it can be without the database. */
export type Credential = { kind: "apiKey"; keyHash: string } | { kind: "jwt"; userId: string; workspaceId: string };

// Read once per request: the rate limit, the event context, safe retries and the route's auth all ask.
const read = new WeakMap<object, Promise<Credential | null>>();

/** `svc-api-key`, else `Authorization: Bearer <JWT>` (signature, issuer, audience and expiry verified). */
export function readCredential(headers: { header(name: string): string | undefined }, env: Env): Promise<Credential | null> {
  let credential = read.get(headers);
  if (!credential) {
    credential = parseCredential(headers, env);
    read.set(headers, credential);
  }
  return credential;
}

async function parseCredential(headers: { header(name: string): string | undefined }, env: Env): Promise<Credential | null> {
  const key = headers.header("svc-api-key");
  if (key) return { kind: "apiKey", keyHash: await hashApiKey(key) };
  const authorization = headers.header("authorization");
  if (!authorization?.toLowerCase().startsWith("bearer ")) return null;
  const claims = await verifyAccessToken(env, authorization.slice(7).trim());
  return claims ? { kind: "jwt", userId: claims.sub, workspaceId: claims.wid } : null;
}

/**
 * The one statement of what makes a credential live, as the condition of a query over `api_keys` (an API key: known by
 * its hash and not expired) or `workspace_members` (a JWT: its user still a member of its workspace). A key whose user
 * leaves the workspace is deleted with the membership (api_keys_membership_fk), so the key alone is enough.
 */
export function liveCredential(credential: Credential): SQL {
  return credential.kind === "apiKey"
    ? sql`${apiKeys.keyHash} = ${credential.keyHash} and (${apiKeys.expiresAt} is null or ${apiKeys.expiresAt} > now())`
    : and(eq(workspaceMembers.userId, credential.userId), eq(workspaceMembers.workspaceId, credential.workspaceId))!;
}

/** A column of the credential's membership row (its workspace, user or role) as a scalar subquery: null when it is not live. */
export function memberColumn(credential: Credential, column: AnyPgColumn): SQL<string> {
  return credential.kind === "jwt"
    ? sql<string>`(select ${column} from ${workspaceMembers} where ${liveCredential(credential)})`
    : sql<string>`(select ${column} from ${apiKeys} join ${workspaceMembers} on ${and(eq(workspaceMembers.userId, apiKeys.userId), eq(workspaceMembers.workspaceId, apiKeys.workspaceId))} where ${liveCredential(credential)})`;
}

/**
 * What list cursors are bound to, known before any query: the key (by hash) or the token's user and
 * workspace. A cursor of another workspace, key or user is "foreign" (400).
 */
export const credentialScope = (credential: Credential): string =>
  credential.kind === "apiKey" ? `key:${credential.keyHash}` : `user:${credential.userId}:${credential.workspaceId}`;

/** The user a credential acts as, for the events of its writes: the token's user, or the key's user read by its hash. */
export const credentialUser = (credential: Credential): SQL | string =>
  credential.kind === "jwt"
    ? credential.userId
    : sql`(select ${apiKeys.userId} from ${apiKeys} where ${apiKeys.keyHash} = ${credential.keyHash})`;
