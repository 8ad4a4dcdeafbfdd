// The front Worker (workers/front/wrangler.toml): it runs where the caller is (no Smart Placement) and stands before
// the API Worker, which Smart Placement runs beside the database; a Service Binding joins them. It answers a GET from
// this location's cache when the caller allows it (src/front/edge.ts) and forwards everything else. It imports
// nothing of the API, so it stays small and starts fast at every location.
import { edgeFetch } from "./edge";

export interface FrontEnv {
  /** The API Worker (Service Binding to `pm-api`). */
  API: Fetcher;
  /** The oldest answer, in seconds, the cache may serve (default 60); "0" turns edge caching off. */
  EDGE_CACHE_MAX_SECONDS?: string;
  /** Development only (`npm start`'s stack, option originRttMs): hold each forwarded call N ms, a simulated distance. */
  DEV_ORIGIN_DELAY_MS?: string;
  /**
   * Development only ("true" in the bench's stack): a request's `x-dev-origin-delay-ms` header sets that distance for
   * itself, so one stack measures the edge at 100 ms and everything else at none. Never set in production.
   */
  DEV_ORIGIN_DELAY_HEADER?: string;
}

const DELAY_HEADER = "x-dev-origin-delay-ms";

function originDelayMs(request: Request, env: FrontEnv): number {
  const asked = env.DEV_ORIGIN_DELAY_HEADER === "true" ? request.headers.get(DELAY_HEADER) : null;
  return Math.max(0, Number(asked ?? env.DEV_ORIGIN_DELAY_MS) || 0);
}

const DEFAULT_MAX_SECONDS = 60;

export function maxSecondsOf(env: FrontEnv): number {
  const raw = env.EDGE_CACHE_MAX_SECONDS;
  const n = raw === undefined || raw === "" ? DEFAULT_MAX_SECONDS : Number(raw);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

export default {
  fetch(request, env, ctx) {
    return edgeFetch(request, {
      origin: env.API,
      cache: caches.default,
      maxSeconds: maxSecondsOf(env),
      now: Date.now,
      originDelayMs: originDelayMs(request, env),
      waitUntil: (p) => ctx.waitUntil(p),
    });
  },
  // Local development only: wrangler dev fires no Cron Triggers, and its `/__scheduled` route (which `npm start` uses
  // to relay the email outbox) reaches the first Worker, this one. The API Worker's own cron does the work in
  // production, where this Worker has no trigger and so never runs this.
  // `Fetcher.scheduled` needs the experimental flag service_binding_extra_handlers, which only the dev config sets.
  async scheduled(controller, env) {
    const api = env.API as Fetcher & { scheduled(options: { scheduledTime: Date; cron: string }): Promise<unknown> };
    await api.scheduled({ scheduledTime: new Date(controller.scheduledTime), cron: controller.cron });
  },
} satisfies ExportedHandler<FrontEnv>;
