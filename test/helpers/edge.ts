// A simulated Cloudflare location for the edge tests: the real front Worker code (src/front/edge.ts) with a cache of its
// own, bound to an origin (the real API Worker unless a test passes another) and to a clock the test moves.
import { type EdgeDeps, edgeFetch } from "../../src/front/edge";

export interface LocationOptions {
  maxSeconds: number;
  api: EdgeDeps["origin"];
  now: () => number;
}

export async function edgeLocation(name: string, { maxSeconds, api, now }: LocationOptions) {
  const cache = await caches.open(`${name}-${crypto.randomUUID()}`);
  return {
    /** `key` is an API key, or `Bearer <JWT>`; a `body` that is a string goes as it is (a form), with the `headers` it needs. */
    async send(method: string, path: string, key: string, headers: Record<string, string> = {}, body?: unknown) {
      const pending: Promise<unknown>[] = [];
      const credential: Record<string, string> = !key ? {} : key.startsWith("Bearer ") ? { authorization: key } : { "svc-api-key": key };
      const request = new Request(`http://api.test${path}`, {
        method,
        headers: { ...credential, ...(body && typeof body !== "string" ? { "content-type": "application/json" } : {}), ...headers },
        body: typeof body === "string" ? body : body ? JSON.stringify(body) : undefined,
      });
      const res = await edgeFetch(request, { origin: api, cache, maxSeconds, now, originDelayMs: 0, waitUntil: (p) => pending.push(p) });
      const text = await res.text();
      await Promise.all(pending);
      const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
      return { status: res.status, headers: res.headers, body: text && json ? JSON.parse(text) : text };
    },
  };
}
