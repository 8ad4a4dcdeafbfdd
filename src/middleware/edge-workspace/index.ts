// The front Worker (src/front/) keeps read-your-writes per workspace: it must learn the workspace of a successful
// write and of each answer it stores. It asks with the internal request header `x-pm-edge-workspace`; this answers in
// `x-pm-workspace`, and in `x-pm-credential-expires` when the credential expires (ms since the epoch: the front Worker
// serves no stored answer past it), both of which the front Worker strips. Only asked-for, only on success: a JWT names its workspace for free,
// an API key costs the principal's query (beside the database) unless the operation loaded it already.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../http/context";
import type { CallerEnv } from "../../http/with-caller";

export const ASK_WORKSPACE = "x-pm-edge-workspace";
export const WORKSPACE = "x-pm-workspace";
export const CREDENTIAL_EXPIRES = "x-pm-credential-expires";
/**
 * On any answer, whatever its status: the workspace whose credentials the request revoked (a replayed OAuth code or
 * refresh token revokes its grant in a 400). The front Worker records it as a write of that workspace, so nothing
 * stored before it is served there, and strips it.
 */
export const REVOKED = "x-pm-revoked";
/**
 * On a successful write: the other workspaces whose answers it changed, comma-separated (a person's profile, theirs in
 * each workspace they belong to). The front Worker records a write of each, and strips it.
 */
export const ALSO_WRITTEN = "x-pm-also-written";

export const edgeWorkspace = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (!c.req.header(ASK_WORKSPACE) || c.res.status < 200 || c.res.status >= 300) return;
  const caller = (c as unknown as Context<CallerEnv>).get("caller");
  if (!caller) return;
  const [workspace, expiresAt] = await Promise.all([caller.workspaceId(), caller.expiresAt()]).catch(() => [null, null]);
  if (!workspace) return;
  c.res.headers.set(WORKSPACE, workspace);
  if (expiresAt !== null) c.res.headers.set(CREDENTIAL_EXPIRES, String(expiresAt));
});
