import { and, eq, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { apiKeys, deviceAuthorizations, oauthGrants, workspaceMembers } from "../../drizzle/schema";
import { parseScopeString, SCOPES, type Scope } from "../core/scopes";
import { EVERY_SCOPE } from "../db/scope";
import type { Env } from "../env";
import { hashApiKey } from "./api-keys";
import { verifyAccessToken } from "./jwt";

/**
 * What the request presented, checked as far as it can be without the database. A token carries what it may do (its
 * scopes and teams; null: all) and, for a device's login, that login (`sessionId`), for an OAuth grant, that grant
 * (`grantId`); a key's are in its row.
 */
export type Credential =
  | { kind: "apiKey"; keyHash: string }
  | {
      kind: "jwt";
      userId: string;
      workspaceId: string;
      sessionId: string | null;
      grantId: string | null;
      scopes: Scope[] | null;
      teamIds: string[] | null;
      /** The token's `exp`, in ms since the epoch. */
      expiresAt: number;
    };

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
  const payload = await verifyAccessToken(env, authorization.slice(7).trim());
  if (!payload) return null;
  return {
    kind: "jwt",
    userId: payload.sub,
    workspaceId: payload.wid,
    sessionId: payload.sid ?? null,
    grantId: payload.gid ?? null,
    scopes: payload.scope === undefined ? null : parseScopeString(payload.scope).scopes,
    teamIds: payload.tid ?? null,
    expiresAt: payload.exp * 1000,
  };
}

/**
 * The one statement of what makes a credential live, as the condition of a query over `api_keys` (an API key: known by
 * its hash and not expired, pm_key_member's rule) or `workspace_members` (a JWT: its user still a member of its
 * workspace, and a device's login not revoked, an OAuth grant not deleted). A key (or grant) whose user leaves the
 * workspace is deleted with the membership (api_keys_membership_fk), so the key alone is enough.
 */
export function liveCredential(credential: Credential): SQL {
  if (credential.kind === "apiKey")
    return sql`${apiKeys.keyHash} = ${credential.keyHash} and ${keyMember(credential.keyHash, null, "user_id")} is not null`;
  const member = and(eq(workspaceMembers.userId, credential.userId), eq(workspaceMembers.workspaceId, credential.workspaceId))!;
  if (credential.grantId) {
    const g = oauthGrants;
    return sql`${member} and exists (select 1 from ${g} where ${g.id} = ${credential.grantId} and ${g.codeChallenge} is null)`;
  }
  if (!credential.sessionId) return member;
  const d = deviceAuthorizations;
  return sql`${member} and exists (select 1 from ${d} where ${d.id} = ${credential.sessionId} and ${d.revokedAt} is null)`;
}

/** Whether a token grants one of `scopes` (null: the operation needs none), known from the token itself. */
const tokenGrants = (token: Extract<Credential, { kind: "jwt" }>, scopes: readonly Scope[] | null): boolean =>
  scopes === null || token.scopes === null || scopes.some((scope) => token.scopes?.includes(scope));

/**
 * A column of the membership a live key granting one of `scopes` (null: the operation needs none) acts as, or null:
 * the key's rule in one SQL function (migrations/functions/pm_key_member.sql), which PL/pgSQL plans once per backend,
 * where the same join inlined was planned anew in every statement that names the caller (several times in most).
 */
const keyMember = (keyHash: string, scopes: readonly Scope[] | null, column: string): SQL =>
  sql`(select (pm_key_member(${keyHash}, ${scopes === null ? null : sql.param([...scopes])}::text[])).${sql.identifier(column)})`;

/**
 * A column of the credential's membership row (its workspace, user or role) as a scalar subquery: null when it is not
 * live, or does not grant `scope` (the caller then tells 401 from 403, Caller.refusal).
 */
export function memberColumn(credential: Credential, column: AnyPgColumn, scopes: readonly Scope[] | null): SQL<string> {
  if (credential.kind === "apiKey") return keyMember(credential.keyHash, scopes, column.name) as SQL<string>;
  const granted = tokenGrants(credential, scopes) ? sql`true` : sql`false`;
  return sql<string>`(select ${column} from ${workspaceMembers} where ${liveCredential(credential)} and ${granted})`;
}

/** The scopes a credential grants (every scope for a stored null): a value for a token, a scalar subquery for a key. */
export const credentialScopes = (credential: Credential): SQL<string[]> =>
  credential.kind === "jwt"
    ? sql<string[]>`${sql.param(credential.scopes ?? [...SCOPES])}::text[]`
    : sql<string[]>`(select coalesce(${apiKeys.scopes}, ${EVERY_SCOPE}) from ${apiKeys} where ${apiKeys.keyHash} = ${credential.keyHash})`;

/** What a credential grants as stored (null scopes: every scope; null teams: every team), in SQL: what a new key inherits. */
export const storedGrants = (credential: Credential): { scopes: SQL<string[] | null>; teamIds: SQL<string[] | null> } => {
  if (credential.kind === "jwt") {
    return { scopes: sql`${sql.param(credential.scopes)}::text[]`, teamIds: sql`${sql.param(credential.teamIds)}::text[]` };
  }
  const column = (c: AnyPgColumn) => sql<string[] | null>`(select ${c} from ${apiKeys} where ${apiKeys.keyHash} = ${credential.keyHash})`;
  return { scopes: column(apiKeys.scopes), teamIds: column(apiKeys.teamIds) };
};

/** The teams a credential is bound to (null: every team): a value for a token, a scalar subquery for a key. */
export const credentialTeams = (credential: Credential): SQL<string[] | null> | string[] | null =>
  credential.kind === "jwt" ? credential.teamIds : storedGrants(credential).teamIds;

/**
 * What list cursors are bound to, known before any query: the key (by hash) or the token's user and
 * workspace. A cursor of another workspace, key or user is "foreign" (400).
 */
export const credentialScope = (credential: Credential): string => {
  if (credential.kind === "apiKey") return `key:${credential.keyHash}`;
  if (credential.grantId) return `grant:${credential.grantId}`;
  return credential.sessionId ? `login:${credential.sessionId}` : `user:${credential.userId}:${credential.workspaceId}`;
};

/** The user a credential acts as, for the events of its writes: the token's user, or the key's user read by its hash. */
export const credentialUser = (credential: Credential): SQL | string =>
  credential.kind === "jwt"
    ? credential.userId
    : sql`(select ${apiKeys.userId} from ${apiKeys} where ${apiKeys.keyHash} = ${credential.keyHash})`;

/** The workspace a credential acts in, for a write's position (src/db/position.ts): the token's, or the key's read by its hash. */
export const credentialWorkspace = (credential: Credential): SQL | string =>
  credential.kind === "jwt"
    ? credential.workspaceId
    : sql`(select ${apiKeys.workspaceId} from ${apiKeys} where ${apiKeys.keyHash} = ${credential.keyHash})`;
