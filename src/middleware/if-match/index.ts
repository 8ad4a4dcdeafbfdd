// Lost-update protection (docs/api.md, conventions: conditional writes): a PATCH or DELETE with `If-Match` runs in one transaction
// that locks the resource's row, renders its current representation with the function its GET answers with (so the
// tag is the very ETag a GET answers: anything embedded that changed changes it), compares, and only then lets the
// handler write. A stale tag is 412 and nothing is written; without `If-Match` nothing here runs.
import { sql } from "drizzle-orm";
import type { Context, Next } from "hono";
import { createMiddleware } from "hono/factory";
import { Caller } from "../../auth/caller";
import { readCredential } from "../../auth/credential";
import { AppError } from "../../core/errors";
import type { AppEnv } from "../../http/context";
import { conditionalTable, declaredIn, matchedParams, matchedRoute, type RouteOwner, routeScopes } from "../../http/policy";
import { type AppHandle, type ReadRoute, readsOf } from "../../http/read-route";
import { inRequestTransaction } from "../../http/request-db";

const TYPEID = /^[a-z]+_[0-9a-z]{26}$/;

/** Whether the `If-Match` list (`*`, or entity tags, weak or strong) matches `etag`; compared weakly (RFC 9110 §13.1.1 allows it for a weak validator). */
export function ifMatchSatisfied(header: string, etag: string | null): boolean {
  if (etag === null) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => opaque(tag) === opaque(etag));
}

// hono's etag middleware tags a GET answer with the SHA-1 of its body, taken in 256 KiB chunks each hashed after the
// digest so far; the same here gives a read's answer, and a PATCH's, the very ETag a GET of it answers.
const DIGEST_CHUNK = 256 * 1024;
export async function weakTag(body: Uint8Array): Promise<string | null> {
  let digest: Uint8Array | undefined;
  for (let at = 0; at < body.byteLength; at += DIGEST_CHUNK) {
    const chunk = body.subarray(at, at + DIGEST_CHUNK);
    const input = digest ? new Uint8Array([...digest, ...chunk]) : chunk;
    digest = new Uint8Array(await crypto.subtle.digest("SHA-1", input));
  }
  return digest ? `W/"${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}"` : null;
}

async function tagAnswer(res: Response): Promise<void> {
  const tag = await weakTag(new Uint8Array(await res.clone().arrayBuffer()));
  if (tag) res.headers.set("ETag", tag);
}

/**
 * The middleware: on a matched PATCH or DELETE whose policy (or resource) says it is conditional (src/http/policy.ts),
 * it renders the current representation with the read the GET of the same path answers with (`app`'s,
 * src/http/read-route.ts), under the lock of its resource's row.
 */
export function ifMatch(app: Pick<AppHandle, "routes">) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const route = matchedRoute(c);
    const table = route ? conditionalTable(route) : undefined;
    const get = route && table ? readsOf(app).get(route.path) : undefined;
    if (!table || !get) return next();
    const header = c.req.header("if-match");
    if (header) await checkedWrite(c, header, matchedParams(c).id, { ...route?.owner, table } as Written, get, next);
    else await next();
    if (c.req.method === "PATCH" && c.res.ok) await tagAnswer(c.res);
  });
}

/** The resource's current answer and its ETag, or why there is none (an AppError its GET would answer). */
async function render(c: Context<AppEnv>, { read }: ReadRoute, caller: Caller, id: string) {
  try {
    const body = await read({ caller, param: { id }, query: {}, url: new URL(c.req.url), db: c.get("rdb").db, env: c.env });
    return { body, etag: await weakTag(new TextEncoder().encode(JSON.stringify(body))) };
  } catch (err) {
    if (err instanceof AppError) return { refused: err, etag: null };
    throw err;
  }
}

/** What a conditional write changes: its resource, and the table whose row it locks. */
type Written = RouteOwner & { table: string };

async function checkedWrite(c: Context<AppEnv>, header: string, id: string, { name, table }: Written, get: ReadRoute, next: Next) {
  // The read runs as its GET would: the request's credential with the GET's scopes (none: the write's own 401).
  const credential = await readCredential(c.req, c.env);
  if (!credential) return next();
  const caller = new Caller(
    credential,
    c.get("rdb"),
    c.env,
    routeScopes({ method: "GET", path: get.route.path, ...declaredIn(get.route.middleware) }),
  );
  await inRequestTransaction(c, async (tx) => {
    // Lock the row first (by its id; a reference is resolved by reading once), then read what is locked.
    let lockId = id;
    if (!TYPEID.test(id)) {
      const first = await render(c, get, caller, id);
      lockId = (first.body && (Object.values(first.body)[0] as { id?: string } | undefined)?.id) || id;
    }
    // The table by its name, or `schema.table`.
    const qualified = sql.join(
      table.split(".").map((part) => sql.identifier(part)),
      sql.raw("."),
    );
    await tx.execute(sql`select id from ${qualified} where id = ${lockId} for update`);
    const current = await render(c, get, caller, id);
    // A missing (or foreign) resource keeps the write's own answer (404, or 401 for a bad credential).
    const code = current.refused?.code;
    if (code === "NOT_FOUND" || code === "UNAUTHORIZED") return next();
    if (!current.etag || !ifMatchSatisfied(header, current.etag))
      throw new AppError(
        "PRECONDITION_FAILED",
        `The ${name.replace(/-/g, " ").replace(/s$/, "")} changed since that ETag; read it again and retry`,
        { etag: current.etag },
      );
    await next();
  });
}
