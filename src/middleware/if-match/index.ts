// Lost-update protection (docs/api.md, conventions: conditional writes): a PATCH or DELETE with `If-Match` runs in one transaction
// that locks the resource's row, renders its current representation with the resource's own GET (so the tag is the
// very ETag a GET answers: anything embedded that changed changes it), compares, and only then lets the handler
// write. A stale tag is 412 and nothing is written; without `If-Match` nothing here runs.
import { eq } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Context, Next } from "hono";
import { createMiddleware } from "hono/factory";
import {
  apiKeys,
  comments,
  fieldDefinitions,
  invites,
  labels,
  milestones,
  projects,
  tasks,
  teamMembers,
  teams,
  users,
  webhooks,
  workspaces,
} from "../../../drizzle/schema";
import { AppError } from "../../core/errors";
import type { AppEnv } from "../../http/context";
import { type AppHandle, dispatchGet, outerOf } from "../../http/dispatch";
import { inRequestTransaction } from "../../http/request-db";

/** The resources whose PATCH or DELETE honours If-Match: path segment → the table whose row the write changes. */
export const CONDITIONAL: Record<string, PgTable & { id: AnyPgColumn }> = {
  "api-keys": apiKeys,
  tasks,
  projects,
  milestones,
  comments,
  teams,
  labels,
  fields: fieldDefinitions,
  "team-members": teamMembers,
  users,
  workspaces,
  invites,
  webhooks,
};

const TYPEID = /^[a-z]+_[0-9a-z]{26}$/;

/** Whether the `If-Match` list (`*`, or entity tags, weak or strong) matches `etag`; compared weakly (RFC 9110 §13.1.1 allows it for a weak validator). */
export function ifMatchSatisfied(header: string, etag: string | null): boolean {
  if (etag === null) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => opaque(tag) === opaque(etag));
}

// hono's etag middleware tags GET answers only: a PATCH answer gets the same weak tag of its body (SHA-1, as hono
// computes it for bodies under its 256 KiB chunk), which is the ETag the next GET answers, so writes can chain.
const DIGEST_CHUNK = 256 * 1024;
async function tagAnswer(res: Response): Promise<void> {
  const body = new Uint8Array(await res.clone().arrayBuffer());
  if (body.byteLength === 0 || body.byteLength >= DIGEST_CHUNK) return;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", body));
  res.headers.set("ETag", `W/"${Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")}"`);
}

/** The middleware; `app` is the built app, through which the current representation is rendered. */
export function ifMatch(app: AppHandle) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const [, resource, id, more] = c.req.path.split("/");
    const table = resource ? CONDITIONAL[resource] : undefined;
    if ((c.req.method !== "PATCH" && c.req.method !== "DELETE") || !table || !id || more !== undefined) return next();
    const header = c.req.header("if-match");
    if (header) await checkedWrite(app, c, header, resource, id, table, next);
    else await next();
    if (c.req.method === "PATCH" && c.res.ok) await tagAnswer(c.res);
  });
}

async function checkedWrite(
  app: AppHandle,
  c: Context<AppEnv>,
  header: string,
  resource: string,
  id: string,
  table: PgTable & { id: AnyPgColumn },
  next: Next,
) {
  const outer = outerOf(c);
  const render = () => dispatchGet(app, outer, c.req.path, `${outer.requestId}-if-match`);
  await inRequestTransaction(c, async (tx) => {
    // Lock the row first (by its id; a reference is resolved by rendering once), then render what is locked.
    let lockId = id;
    if (!TYPEID.test(id)) {
      const first = await render();
      const body = first.ok ? ((await first.json()) as Record<string, { id?: string }>) : null;
      lockId = (body && Object.values(body)[0]?.id) || id;
    }
    await tx.select({ id: table.id }).from(table).where(eq(table.id, lockId)).for("update");
    const current = await render();
    await current.body?.cancel();
    // A missing (or foreign) resource keeps the write's own answer (404, or 401 for a bad credential).
    if (current.status === 404 || current.status === 401) return next();
    if (!current.ok || !ifMatchSatisfied(header, current.headers.get("etag")))
      throw new AppError(
        "PRECONDITION_FAILED",
        `The ${resource.replace(/-/g, " ").replace(/s$/, "")} changed since that ETag; read it again and retry`,
        {
          etag: current.headers.get("etag"),
        },
      );
    await next();
  });
}
