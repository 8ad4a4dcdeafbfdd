import { DurableObject } from "cloudflare:workers";

/** One limiter's answer: whether this request fits in the window, and what the RateLimit-* headers say. */
export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends (Retry-After when refused). */
  resetSeconds: number;
  /** When the window ends (epoch ms): a refused key stays refused until then, as its count only grows. */
  resetAt: number;
}

/**
 * A fixed-window counter for one key (a credential or a client IP; one object per key via idFromName). The object
 * is the single source of truth for its key, so its count is exact and kept in memory: an object evicted after
 * idling has no window worth keeping. The caller passes the limit and window (wrangler.toml [vars]), so changing
 * them needs no migration.
 */
export class RateLimiter extends DurableObject {
  private windowStart = 0;
  private count = 0;

  hit(limit: number, windowSeconds: number): RateLimitVerdict {
    const now = Date.now();
    const windowMs = windowSeconds * 1000;
    // The window opens at the key's first request (not at a clock boundary shared by every key): keys do not all
    // reset at once, and a burst is never split across a boundary it happens to straddle.
    if (now >= this.windowStart + windowMs) {
      this.windowStart = now;
      this.count = 0;
    }
    const allowed = this.count < limit;
    if (allowed) this.count++;
    const resetAt = this.windowStart + windowMs;
    return { allowed, limit, remaining: limit - this.count, resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)), resetAt };
  }
}
