import type { MiddlewareHandler } from "hono";
import { security } from "./openapi";
import { declaring, type RoutePolicy } from "./policy";
import { type CallerEnv, withCaller } from "./with-caller";

/**
 * Common part of every protected route: its tag, its security schemes, its policy (src/http/policy.ts; the defaults
 * when none is given) and the caller (withCaller).
 */
export const protectedRoute = (tag: string, policy: RoutePolicy = {}) => ({
  tags: [tag],
  security,
  middleware: [declaring<CallerEnv>(policy), withCaller] as [MiddlewareHandler<CallerEnv>, MiddlewareHandler<CallerEnv>],
});

/** A public route (no credential): the document says so with an empty security list. */
export const publicRoute = (tag: string, policy?: RoutePolicy) => ({
  tags: [tag],
  security: [] as Array<Record<string, string[]>>,
  ...(policy ? { middleware: declaring(policy) } : {}),
});
