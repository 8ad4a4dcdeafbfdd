import { createMiddleware } from "hono/factory";
import { AppError } from "../http/errors";
import type { AppEnv } from "../http/context";
import { hashApiKey } from "./api-keys";
import { verifyAccessToken } from "./jwt";
import { principalByKeyHash, principalByUser, needsTouch, touchApiKey, type Principal } from "./principal";

const unauthorized = () => new AppError("UNAUTHORIZED", "Authentication required: send a valid svc-api-key header or Bearer token");

/** Accepts `svc-api-key` or `Authorization: Bearer <JWT>`; sets `principal` or answers 401. */
export const requireAuth = createMiddleware<AppEnv>(async (c, next) => {
  const rdb = c.get("rdb");
  const { db } = rdb;
  const key = c.req.header("svc-api-key");
  const authorization = c.req.header("authorization");
  let principal: Principal | null = null;
  if (key) {
    principal = await principalByKeyHash(db, await hashApiKey(key));
  } else if (authorization?.toLowerCase().startsWith("bearer ")) {
    const claims = await verifyAccessToken(c.env, authorization.slice(7).trim());
    if (claims) principal = await principalByUser(db, claims.sub, claims.wid);
  }
  if (!principal) throw unauthorized();
  c.set("principal", principal);
  const apiKeyId = principal.apiKey?.id;
  if (apiKeyId && needsTouch(principal)) rdb.defer((db) => touchApiKey(db, apiKeyId));
  await next();
});
