// When a failed webhook delivery is tried again (docs/webhooks.md, retries): exponential backoff with jitter, never
// sooner than the receiver's Retry-After, never later than the queue can delay a message.

/** Cloudflare Queues delays a retry by at most 12 hours. */
export const MAX_RETRY_DELAY_SECONDS = 12 * 60 * 60;

/**
 * The wait before the attempt after failed attempt `attempts` (1-based): `base` doubled per attempt, capped at 12 h,
 * times a random 0.8–1.2 (so receivers that failed together are not retried together), and never shorter than the
 * receiver's Retry-After (itself capped at 12 h). Whole seconds, as the queue takes them.
 */
export function retryDelaySeconds(attempts: number, base: number, retryAfterSeconds: number | null = null, random = Math.random()) {
  const backoff = Math.min(MAX_RETRY_DELAY_SECONDS, base * 2 ** (attempts - 1)) * (0.8 + 0.4 * random);
  return Math.min(MAX_RETRY_DELAY_SECONDS, Math.round(Math.max(backoff, retryAfterSeconds ?? 0)));
}

/** Retry-After as seconds from now (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}
