// After the response of a delete that wrote (a DELETE, or one through MCP or a batch), the relay sends the due rows of
// the file_deletions outbox to the files queue (src/files/deletions.ts): a stored file's bytes, or those of a deleted
// comment's or task's files, which the trigger queued in the delete's own transaction. The Cron Trigger sends
// again what a lost send left behind.
import { createMiddleware } from "hono/factory";
import { relayFileDeletions } from "../../files/deletions";
import type { AppEnv } from "../../http/context";
import { routePolicy } from "../../http/policy";

export const fileRelay = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const rdb = c.get("rdb");
  // A DELETE, or a JSON-RPC call (an MCP tool's delete), by the matched route's policy.
  if (!rdb.wrote || (c.req.method !== "DELETE" && routePolicy(c).body !== "rpc")) return;
  rdb.defer((db) => relayFileDeletions(db, c.env));
});
