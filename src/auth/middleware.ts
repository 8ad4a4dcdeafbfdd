import type { SQL } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AppError } from "../core/errors";
import type { RequestDb } from "../db/client";
import type { AppEnv } from "../http/context";
import { type Credential, credentialActor, loadPrincipal, readCredential, type SqlActor } from "./credential";
import { type Principal, touchApiKey } from "./principal";

export const unauthorized = () => new AppError("UNAUTHORIZED", "Authentication required: send a valid svc-api-key header or Bearer token");

/** A route that took the credential only (requireCredential): its query authenticates itself. */
export type CredentialEnv = AppEnv & { Variables: { credential: Credential } };
/** A route that loaded the caller up front (requireAuth): user, workspace and role are known. */
export type PrincipalEnv = AppEnv & { Variables: { credential: Credential; principal: Principal } };

/** Accepts `svc-api-key` or `Authorization: Bearer <JWT>`; sets `principal` (one query) or answers 401. */
export const requireAuth = createMiddleware<PrincipalEnv>(async (c, next) => {
  const credential = await readCredential(c.req, c.env);
  const rdb = c.get("rdb");
  const principal = credential && (await loadPrincipal(rdb.db, credential));
  if (!principal) throw unauthorized();
  c.set("credential", credential);
  c.set("principal", principal);
  touchLater(c.get("rdb"), credential);
  await next();
});

/**
 * For reads that authenticate inside their own query (see gatedRead): checks what can be checked without the
 * database and sets `credential`; a request without a usable credential is 401 at once.
 */
export const requireCredential = createMiddleware<CredentialEnv>(async (c, next) => {
  const credential = await readCredential(c.req, c.env);
  if (!credential) throw unauthorized();
  c.set("credential", credential);
  await next();
});

// Keys whose lastUsedAt this isolate moved recently: the update then runs at most once a minute per key here.
const recentlyTouched = new Map<string, number>();
function touchLater(rdb: RequestDb, credential: Credential) {
  if (credential.kind !== "apiKey") return;
  const now = Date.now();
  if (now - (recentlyTouched.get(credential.keyHash) ?? 0) < 60_000) return;
  recentlyTouched.set(credential.keyHash, now);
  if (recentlyTouched.size > 10_000) recentlyTouched.clear();
  rdb.defer((db) => touchApiKey(db, credential.keyHash));
}

/**
 * One round trip for an authenticated read: `read` scopes its query by the credential's workspace (a scalar
 * subquery that is null for a bad credential) and throws NOT_FOUND when it finds nothing. Only then does a
 * second query tell a bad credential (401) from a missing resource (404).
 */
export async function gatedRead<T>(c: Context<CredentialEnv>, read: (workspace: SQL<string>, actor: SqlActor) => Promise<T>): Promise<T> {
  const credential = c.get("credential");
  try {
    const actor = credentialActor(credential);
    const found = await read(actor.workspace, actor);
    touchLater(c.get("rdb"), credential);
    return found;
  } catch (err) {
    if (err instanceof AppError && err.code === "NOT_FOUND" && !(await loadPrincipal(c.get("rdb").db, credential))) throw unauthorized();
    throw err;
  }
}

/**
 * gatedRead for a list: a page with rows proves the credential; an empty page costs the second query that
 * tells a bad credential (401) from a list that is really empty.
 */
export function gatedList<T>(c: Context<CredentialEnv>, read: (workspace: SQL<string>, actor: SqlActor) => Promise<T[]>): Promise<T[]> {
  return gatedRead(c, async (workspace, actor) => {
    const rows = await read(workspace, actor);
    if (rows.length === 0 && !(await loadPrincipal(c.get("rdb").db, c.get("credential")))) throw unauthorized();
    return rows;
  });
}

/** The principal of a route that took only the credential (requireCredential): one query, or 401. */
export async function requirePrincipal(c: Context<CredentialEnv>): Promise<Principal> {
  const principal = await loadPrincipal(c.get("rdb").db, c.get("credential"));
  if (!principal) throw unauthorized();
  return principal;
}

/**
 * gatedRead for a write made by one statement that authenticates and authorizes itself (its SQL reads the
 * caller from the credential) and returns undefined when it wrote nothing. Only then is the principal loaded:
 * 401 without one, else `fallback` throws the reason (404, 403, …) or, for the cases the statement leaves to a
 * checked transaction (e.g. OWNER changes), does the write itself.
 */
export async function gatedWrite<T>(
  c: Context<CredentialEnv>,
  write: (actor: SqlActor) => Promise<T | undefined>,
  fallback: (principal: Principal) => Promise<T>,
): Promise<T> {
  const credential = c.get("credential");
  const done = await write(credentialActor(credential));
  if (done !== undefined) {
    touchLater(c.get("rdb"), credential);
    return done;
  }
  return fallback(await requirePrincipal(c));
}
