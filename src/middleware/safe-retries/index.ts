// Safe retries (docs/api.md, conventions): a POST with `Idempotency-Key` runs in one transaction that also stores its answer, so a
// repeat of the same request within 24 h gets that answer (status, body, Location) without doing the work again.
// The same key with another request is 422; a repeat while the first is still running is 409 (advisory lock).
// An upload's bytes stream to storage and are never held: it is told apart by their SHA-256 (hashed on their way to R2,
// or on their way through for a repeat), and its answer is stored in its record's transaction (uploadRetry).
import { type SQL, sql } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { idempotencyKeys, workspaceMembers } from "../../../drizzle/schema";
import { credentialScope, memberColumn, readCredential } from "../../auth/credential";
import { openText, sealText, sha256Hex } from "../../core/crypto";
import { AppError, ValidationError } from "../../core/errors";
import type { Executor, Tx } from "../../db/client";
import { declaredLength, streamSha256 } from "../../files/storage";
import type { AppEnv } from "../../http/context";
import { routePolicy } from "../../http/policy";
import { inRequestTransaction } from "../../http/request-db";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";
const MAX_KEY_LENGTH = 255;
const SEALING_PURPOSE = "idempotency-key answers";

type Stored = { requestHash: string; status: number; location: string | null; sealedBody: string };

/**
 * Whose keys these are: the credential itself (a key, or a token's login; never another key of the same user, whose
 * scopes may be wider: a read-only key must not replay the answer of a key-creating POST), else the client address
 * on public routes. A credential that is not live gets a scope of its own, so it never replays its old answers (the
 * request is then refused).
 */
async function scopeOf(c: Context<AppEnv>): Promise<SQL<string>> {
  const credential = await readCredential(c.req, c.env).catch(() => null);
  if (!credential) return sql`${`ip:${c.req.header("cf-connecting-ip") ?? "local"}`}`;
  const live = memberColumn(credential, workspaceMembers.userId, null);
  return sql`coalesce(case when ${live} is not null then ${credentialScope(credential)} end, ${`dead:${credentialScope(credential)}`})`;
}

/** The key of a POST whose route takes one (undefined: none), checked. */
function retryKey(c: Context<AppEnv>): string | undefined {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  if (c.req.method !== "POST" || key === undefined || routePolicy(c).idempotent === false) return undefined;
  if (key.length < 1 || key.length > MAX_KEY_LENGTH)
    throw new AppError("BAD_REQUEST", `${IDEMPOTENCY_HEADER} must be 1 to ${MAX_KEY_LENGTH} characters`);
  return key;
}

/**
 * One statement: drop this key's expired answer, take the key's lock (held to the end of the transaction; released at
 * once outside one), read a stored answer.
 */
async function lookUp(db: Executor, scope: SQL<string>, key: string) {
  const { rows } = await db.execute<{ scope: string; locked: boolean; stored: Stored | null }>(sql`with
      caller as (select ${scope} as scope),
      expired as (delete from ${idempotencyKeys} where scope = (select scope from caller) and key = ${key}
        and created_at <= now() - interval '24 hours')
      select caller.scope, pg_try_advisory_xact_lock(hashtextextended(caller.scope || ' ' || ${key}, 0)) as locked,
        (select json_build_object('requestHash', i.request_hash, 'status', i.status, 'location', i.location, 'sealedBody', i.sealed_body)
         from ${idempotencyKeys} i where i.scope = caller.scope and i.key = ${key} and i.created_at > now() - interval '24 hours') as stored
      from caller`);
  const { scope: owner, locked, stored } = rows[0];
  if (!locked) throw new AppError("CONFLICT", `A request with this ${IDEMPOTENCY_HEADER} is still in progress; retry once it has finished`);
  return { owner, stored };
}

/** The stored answer of `requestHash` under the key (422 when the key's answer is another request's). */
async function replay(c: Context<AppEnv>, stored: Stored, requestHash: string, context: string): Promise<Response> {
  if (stored.requestHash !== requestHash)
    throw new ValidationError({ [IDEMPOTENCY_HEADER]: ["This key was used with a different request in the last 24 hours"] });
  const headers = new Headers({ "content-type": "application/json", [REPLAYED_HEADER]: "true" });
  if (stored.location) headers.set("location", stored.location);
  return new Response(await openText(c.env.CURSOR_SECRET, SEALING_PURPOSE, stored.sealedBody, context), { status: stored.status, headers });
}

type Answer = { status: number; location: string | null; body: string };
const keep = async (c: Context<AppEnv>, tx: Tx, owner: string, key: string, requestHash: string, answer: Answer) =>
  tx.insert(idempotencyKeys).values({
    scope: owner,
    key,
    requestHash,
    status: answer.status,
    location: answer.location,
    sealedBody: await sealText(c.env.CURSOR_SECRET, SEALING_PURPOSE, answer.body, `${owner} ${key}`),
  });

export const safeRetries = createMiddleware<AppEnv>(async (c, next) => {
  const key = retryKey(c);
  if (key === undefined) return next();
  // An upload's bytes stream to storage (its route's body is `upload`): reading them here would hold the whole file.
  if (routePolicy(c).body === "upload") return uploadRetries(c, next, key);
  const body = await c.req.text();
  const requestHash = await sha256Hex(`${c.req.method} ${c.req.path}?${new URL(c.req.url).search}\n${body}`);
  const scope = await scopeOf(c);
  let replayed: Response | undefined;
  await inRequestTransaction(c, async (tx) => {
    const { owner, stored } = await lookUp(tx, scope, key);
    if (stored) {
      replayed = await replay(c, stored, requestHash, `${owner} ${key}`);
      return;
    }
    await next();
    // Only a success is kept: a refused request wrote nothing and may be retried, corrected or not.
    if (!c.res.ok) return;
    const answer = { status: c.res.status, location: c.res.headers.get("location"), body: await c.res.clone().text() };
    await keep(c, tx, owner, key, requestHash, answer);
  });
  if (replayed) c.res = replayed;
});

/**
 * What an upload with `Idempotency-Key` gives its handler: `keep` stores the answer in the record's transaction (a repeat
 * that raced it and finds it there throws StoredAnswer: its own record rolls back and that answer is the response).
 */
export interface UploadRetry {
  keep(tx: Tx, sha256: string, answer: Answer): Promise<void>;
}
/** The stored answer of an upload's repeat, found in its record's transaction. */
export class StoredAnswer extends Error {
  constructor(readonly response: Response) {
    super("replayed");
  }
}
const uploads = new WeakMap<Request, UploadRetry>();
/** The upload's retry of the request (undefined: no Idempotency-Key). */
export const uploadRetry = (request: Request): UploadRetry | undefined => uploads.get(request);

/** An upload's request: its method, path and query, its Content-Type and its bytes' SHA-256. */
const uploadHash = (c: Context<AppEnv>, sha256: string) =>
  sha256Hex(`${c.req.method} ${c.req.path}?${new URL(c.req.url).search}\n${c.req.header("content-type") ?? ""}\nsha-256 ${sha256}`);

async function uploadRetries(c: Context<AppEnv>, next: () => Promise<void>, key: string) {
  const scope = await scopeOf(c);
  const { owner, stored } = await lookUp(c.get("rdb").db, scope, key);
  if (stored) {
    // A repeat: its bytes hashed on their way through (never held) tell the same file from another; nothing is stored.
    c.res = await replay(
      c,
      stored,
      await uploadHash(c, await streamSha256(c.req.raw.body, declaredLength(c.req.header("content-length")))),
      `${owner} ${key}`,
    );
    return;
  }
  uploads.set(c.req.raw, {
    async keep(tx, sha256, answer) {
      const requestHash = await uploadHash(c, sha256);
      const again = await lookUp(tx, scope, key);
      if (again.stored) throw new StoredAnswer(await replay(c, again.stored, requestHash, `${again.owner} ${key}`));
      await keep(c, tx, again.owner, key, requestHash, answer);
    },
  });
  await next();
}
