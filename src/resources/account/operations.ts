// What the account page shows and does: a person's credentials in every workspace they belong to, read in one
// statement by the same rules the API's lists use (keysOf, grantsOf, loginsOf), and revoked by the API's own operations
// (auth/accounts/credentials.ts) as the person in the credential's workspace.
import { type SQL, sql } from "drizzle-orm";
import { apiKeys, deviceAuthorizations, oauthGrants, users, workspaceMembers, workspaces } from "../../../drizzle/schema";
import { deleteApiKey, deleteOAuthGrant, grantsOf, keysOf, loginsOf, personIn, revokeDeviceLogin } from "../../auth/accounts/credentials";
import { Caller } from "../../auth/caller";
import { AppError, notFound } from "../../core/errors";
import type { Db, RequestDb } from "../../db/client";
import { EVERY_SCOPE } from "../../db/scope";
import type { Env } from "../../env";

export interface Held {
  id: string;
  workspaceId: string;
  /** What it is called: a key's name, an app's or a device's name. */
  name: string;
  /** A key's first 10 characters; null for the others. */
  prefix: string | null;
  /** A key's holder: the person's agent (its name), or null for the person. */
  agent: string | null;
  scopes: string[];
  teamIds: string[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export type Overview = {
  workspaces: Array<{ id: string; name: string; slug: string }>;
  keys: Held[];
  grants: Held[];
  logins: Held[];
};

/** The kinds of credential the page revokes, each by the API's own operation. */
export const REVOKE = { key: deleteApiKey, grant: deleteOAuthGrant, login: revokeDeviceLogin } as const;
export type Kind = keyof typeof REVOKE;
const NOUN: Record<Kind, string> = { key: "API key", grant: "OAuth grant", login: "Device login" };

// Each list runs over the person's memberships (m), so every rule is the API's for that workspace.
const inWorkspace = (userId: string) => ({ workspace: sql<string>`m.workspace_id`, user: userId });
const iso = (column: SQL | unknown) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

function listOf(userId: string, from: SQL, rule: SQL, row: Record<string, SQL | unknown>, order: SQL): SQL {
  const fields = sql.join(
    Object.entries(row).map(([k, v]) => sql`${sql.raw(`'${k}'`)}, ${v}`),
    sql`, `,
  );
  return sql`(select coalesce(json_agg(json_build_object(${fields}) order by ${order}), '[]'::json)
    from ${workspaceMembers} m join ${from} where m.user_id = ${userId} and ${rule})`;
}

/** The person's workspaces and, in each, their keys and their agents' keys, their apps (OAuth grants) and device logins. */
export async function accountOverview(db: Db, userId: string): Promise<Overview> {
  const k = apiKeys;
  const g = oauthGrants;
  const d = deviceAuthorizations;
  const where = inWorkspace(userId);
  const keys = listOf(
    userId,
    sql`${k} on ${k.workspaceId} = m.workspace_id join ${users} holder on holder.id = ${k.userId}`,
    keysOf(where),
    {
      id: k.id,
      workspaceId: k.workspaceId,
      name: k.name,
      prefix: k.prefix,
      agent: sql`case when holder.id = ${userId} then null else holder.name end`,
      scopes: sql`coalesce(${k.scopes}, ${EVERY_SCOPE})`,
      teamIds: k.teamIds,
      createdAt: iso(k.createdAt),
      lastUsedAt: iso(k.lastUsedAt),
      expiresAt: iso(k.expiresAt),
    },
    sql`m.created_at, ${k.createdAt}, ${k.id}`,
  );
  const grants = listOf(
    userId,
    sql`${g} on ${g.workspaceId} = m.workspace_id`,
    grantsOf(where),
    {
      id: g.id,
      workspaceId: g.workspaceId,
      name: g.clientName,
      prefix: sql`null`,
      agent: sql`null`,
      scopes: sql`coalesce(${g.scopes}, ${EVERY_SCOPE})`,
      teamIds: g.teamIds,
      createdAt: iso(g.createdAt),
      lastUsedAt: iso(g.lastUsedAt),
      expiresAt: sql`null`,
    },
    sql`m.created_at, ${g.createdAt}, ${g.id}`,
  );
  const logins = listOf(
    userId,
    sql`${d} on ${d.workspaceId} = m.workspace_id`,
    loginsOf(where),
    {
      id: d.id,
      workspaceId: d.workspaceId,
      name: sql`coalesce(${d.clientName}, 'A device')`,
      prefix: sql`null`,
      agent: sql`null`,
      scopes: sql`coalesce(${d.scopes}, ${EVERY_SCOPE})`,
      teamIds: d.teamIds,
      createdAt: iso(d.createdAt),
      lastUsedAt: sql`null`,
      // Unused that long, the login ends (each renewal moves it).
      expiresAt: iso(d.refreshExpiresAt),
    },
    sql`m.created_at, ${d.createdAt}, ${d.id}`,
  );
  const spaces = sql`(select coalesce(json_agg(json_build_object('id', w.id, 'name', w.name, 'slug', w.slug) order by m.created_at, w.id), '[]'::json)
    from ${workspaceMembers} m join ${workspaces} w on w.id = m.workspace_id where m.user_id = ${userId})`;
  const { rows } = await db.execute<Overview>(
    sql`select ${spaces} as workspaces, ${keys} as keys, ${grants} as grants, ${logins} as logins`,
  );
  return rows[0];
}

/**
 * Revokes one of the person's credentials of `kind` in `workspaceId` with the API's operation, as the person in that
 * workspace: a credential that is not theirs (or another workspace's, or gone) is 404, as the API answers; a workspace
 * they are not a member of is the same 404 here (the page names no credential of it).
 */
export async function revoke(
  rdb: RequestDb,
  env: Env,
  person: { id: string; expiresAt: number },
  what: { kind: Kind; workspaceId: string; id: string },
): Promise<void> {
  const caller = new Caller(personIn(person.id, what.workspaceId, person.expiresAt), rdb, env, null);
  try {
    await REVOKE[what.kind](caller, what.id);
  } catch (err) {
    if (err instanceof AppError && err.code === "UNAUTHORIZED") throw notFound(NOUN[what.kind]);
    throw err;
  }
}
