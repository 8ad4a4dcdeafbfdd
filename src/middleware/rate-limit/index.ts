import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { credentialScope, readCredential } from "../../auth/credential";
import { AppError } from "../../core/errors";
import type { RateLimitVerdict } from "../../core/rate-limiter";
import type { AppEnv } from "../../http/context";
import { errorResponse } from "../../http/error-mapper";
import { routePolicy } from "../../http/policy";

/** A limit from wrangler.toml [vars]: a missing or malformed one fails loudly instead of refusing everything (NaN). */
function setting(
  env: AppEnv["Bindings"],
  name: "RATE_LIMIT_CREDENTIAL" | "RATE_LIMIT_IP" | "RATE_LIMIT_WINDOW_SECONDS" | "RATE_LIMIT_REGISTRATIONS",
): number {
  const value = Number(env[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer (wrangler.toml [vars])`);
  return value;
}

/** An OAuth client registration stores a row for good: a budget of its own per client IP, counted by the hour. */
const REGISTRATION_WINDOW_SECONDS = 3600;

/**
 * The limiter's key, limit and window, known without a database query: the client IP on the routes whose policy says so
 * (the public sign-up, login, invite-redeem, device and OAuth routes; a registration in its own hourly budget), else the credential (an API key by
 * its hash, a JWT by its verified user and workspace). A request without a usable credential is not limited: it is 401
 * before any query (an unknown API key costs the one lookup that refuses it, like any key).
 */
async function limiterKey(c: Context<AppEnv>): Promise<{ name: string; limit: number; windowSeconds: number } | null> {
  const windowSeconds = () => setting(c.env, "RATE_LIMIT_WINDOW_SECONDS");
  const { rateLimit: by } = routePolicy(c);
  if (by) {
    // Cloudflare sets CF-Connecting-IP (a client cannot forge it through the edge); locally every caller is one.
    const ip = c.req.header("cf-connecting-ip") ?? "local";
    if (by === "registration") {
      return { name: `register:${ip}`, limit: setting(c.env, "RATE_LIMIT_REGISTRATIONS"), windowSeconds: REGISTRATION_WINDOW_SECONDS };
    }
    return { name: `ip:${ip}`, limit: setting(c.env, "RATE_LIMIT_IP"), windowSeconds: windowSeconds() };
  }
  const credential = await readCredential(c.req, c.env);
  return (
    credential && { name: credentialScope(credential), limit: setting(c.env, "RATE_LIMIT_CREDENTIAL"), windowSeconds: windowSeconds() }
  );
}

/**
 * Refusals this isolate was given, until their window ends: a refused key stays refused for the rest of its
 * window (its count only grows), so repeating the Durable Object's answer is exact, and a flood over the limit
 * costs neither a call to it nor, for GETs, the read. Keyed with the limit and window, which a deploy may change.
 */
const refusedUntil = new Map<string, number>();

function cachedRefusal(cacheKey: string, limit: number): RateLimitVerdict | null {
  const resetAt = refusedUntil.get(cacheKey);
  if (resetAt === undefined) return null;
  const now = Date.now();
  if (resetAt <= now) {
    refusedUntil.delete(cacheKey);
    return null;
  }
  return { allowed: false, limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)), resetAt };
}

function rememberRefusal(cacheKey: string, verdict: RateLimitVerdict) {
  if (refusedUntil.size >= 10_000) refusedUntil.clear();
  refusedUntil.set(cacheKey, verdict.resetAt);
}

function setHeaders(res: Response, verdict: RateLimitVerdict) {
  res.headers.set("RateLimit-Limit", String(verdict.limit));
  res.headers.set("RateLimit-Remaining", String(verdict.remaining));
  res.headers.set("RateLimit-Reset", String(verdict.resetSeconds));
}

/** The 429, replacing whatever was answered (unset first: Hono would copy that answer's headers, e.g. its ETag). */
function refuse(c: Context<AppEnv>, verdict: RateLimitVerdict) {
  c.res = undefined;
  const res = errorResponse(
    new AppError("RATE_LIMITED", `Rate limit of ${verdict.limit} requests exceeded; retry in ${verdict.resetSeconds} s`),
    c,
  );
  res.headers.set("Retry-After", String(verdict.resetSeconds));
  c.res = res;
}

/**
 * Counts the request in its key's RateLimiter Durable Object (an exact count per key, no database round trip).
 * A GET or HEAD runs beside the count and is replaced by the 429 when over (only the first refused GET of a window
 * in an isolate pays its read: see refusedUntil); any other method waits for the verdict, so a refused write
 * never starts. BENCH_ROUTES (never set in production) lets the bench switch it off
 * per request with `x-bench-rate-limit: off`, to measure its cost.
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  if (c.env.BENCH_ROUTES === "true" && c.req.header("x-bench-rate-limit") === "off") return next();
  const key = await limiterKey(c);
  if (!key) return next();
  const { windowSeconds } = key;
  const cacheKey = `${key.name} ${key.limit}/${windowSeconds}`;
  let verdict = cachedRefusal(cacheKey, key.limit);
  if (verdict) {
    refuse(c, verdict);
  } else {
    const limiter = c.env.RATE_LIMITER;
    const counted = limiter.get(limiter.idFromName(key.name)).hit(key.limit, windowSeconds);
    if (c.req.method === "GET" || c.req.method === "HEAD") {
      [verdict] = await Promise.all([counted, next()]);
    } else {
      verdict = await counted;
      if (verdict.allowed) await next();
    }
    if (!verdict.allowed) {
      rememberRefusal(cacheKey, verdict);
      refuse(c, verdict);
    }
  }
  setHeaders(c.res, verdict);
});
