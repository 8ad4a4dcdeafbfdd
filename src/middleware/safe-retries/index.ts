// Safe retries (docs/api.md, conventions): a POST with `Idempotency-Key` runs in one transaction that also stores its answer, so a
// repeat of the same request within 24 h gets that answer (status, body, Location) without doing the work again.
// The same key with another request is 422; a repeat while the first is still running is 409 (advisory lock).
import { type SQL, sql } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { idempotencyKeys, workspaceMembers } from "../../../drizzle/schema";
import { credentialScope, memberColumn, readCredential } from "../../auth/credential";
import { openText, sealText, sha256Hex } from "../../core/crypto";
import { AppError, ValidationError } from "../../core/errors";
import type { AppEnv } from "../../http/context";
import { inRequestTransaction } from "../../http/request-db";
import { UPLOAD_PATH } from "../../http/urls";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const REPLAYED_HEADER = "Idempotent-Replayed";
const MAX_KEY_LENGTH = 255;
const SEALING_PURPOSE = "idempotency-key answers";
/** POSTs that are not one request and one answer: MCP is JSON-RPC with its own request ids (and may stream). */
const EXEMPT = new Set(["/mcp"]);

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

export const safeRetries = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header(IDEMPOTENCY_HEADER);
  // An upload's bytes stream to storage: reading them here would hold the whole file (docs/api.md, "Attachments").
  if (c.req.method !== "POST" || key === undefined || EXEMPT.has(c.req.path) || UPLOAD_PATH.test(c.req.path)) return next();
  if (key.length < 1 || key.length > MAX_KEY_LENGTH)
    throw new AppError("BAD_REQUEST", `${IDEMPOTENCY_HEADER} must be 1 to ${MAX_KEY_LENGTH} characters`);
  const body = await c.req.text();
  const requestHash = await sha256Hex(`${c.req.method} ${c.req.path}?${new URL(c.req.url).search}\n${body}`);
  const scope = await scopeOf(c);
  const secret = c.env.CURSOR_SECRET;
  let replay: Response | undefined;
  await inRequestTransaction(c, async (tx) => {
    // One statement: drop this key's expired answer, take the key's lock (held to the end of the transaction),
    // read a stored answer.
    const { rows } = await tx.execute<{ scope: string; locked: boolean; stored: Stored | null }>(sql`with
        caller as (select ${scope} as scope),
        expired as (delete from ${idempotencyKeys} where scope = (select scope from caller) and key = ${key}
          and created_at <= now() - interval '24 hours')
        select caller.scope, pg_try_advisory_xact_lock(hashtextextended(caller.scope || ' ' || ${key}, 0)) as locked,
          (select json_build_object('requestHash', i.request_hash, 'status', i.status, 'location', i.location, 'sealedBody', i.sealed_body)
           from ${idempotencyKeys} i where i.scope = caller.scope and i.key = ${key} and i.created_at > now() - interval '24 hours') as stored
        from caller`);
    const { scope: owner, locked, stored } = rows[0];
    if (!locked)
      throw new AppError("CONFLICT", `A request with this ${IDEMPOTENCY_HEADER} is still in progress; retry once it has finished`);
    const context = `${owner} ${key}`;
    if (stored) {
      if (stored.requestHash !== requestHash)
        throw new ValidationError({ [IDEMPOTENCY_HEADER]: ["This key was used with a different request in the last 24 hours"] });
      const headers = new Headers({ "content-type": "application/json", [REPLAYED_HEADER]: "true" });
      if (stored.location) headers.set("location", stored.location);
      replay = new Response(await openText(secret, SEALING_PURPOSE, stored.sealedBody, context), { status: stored.status, headers });
      return;
    }
    await next();
    // Only a success is kept: a refused request wrote nothing and may be retried, corrected or not.
    if (!c.res.ok) return;
    await tx.insert(idempotencyKeys).values({
      scope: owner,
      key,
      requestHash,
      status: c.res.status,
      location: c.res.headers.get("location"),
      sealedBody: await sealText(secret, SEALING_PURPOSE, await c.res.clone().text(), context),
    });
  });
  if (replay) c.res = replay;
});
