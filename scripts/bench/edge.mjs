// The edge rows of `npm run bench` (docs/performance.md): one GET of a task through the front Worker with
// the API Worker ORIGIN_RTT ms away (each forwarded call held that long, x-dev-origin-delay-ms), at one connection, so
// a row's p50 is what one caller waits. Three cases:
// - hit: `Cache-Control: max-age=60` on an answer stored a moment ago: served by the front Worker;
// - revalidate: `max-age=0`, so the stored answer is always too old: forwarded with its ETag, the origin's 304;
// - miss: a key never seen (a new Accept parameter per request, which the key holds): forwarded, answered and stored.
// Origin round trips are the p50 over the distance (as the database latency table counts them), checked against the
// Cache-Status each answer carries.
import autocannon from "autocannon";

/** The target at a 100 ms distance: a hit's p50 at most this share of a miss's, and no origin round trip. */
export const HIT_TARGET = 0.1;

async function one(baseUrl, s) {
  const res = await fetch(baseUrl + s.path, { headers: s.headers(0) });
  await res.arrayBuffer();
  return res.headers.get("cache-status");
}

export async function measureEdge(baseUrl, fixture, { originRttMs, durationSeconds }) {
  const path = `/tasks/${fixture.prefix}-${Math.ceil(fixture.taskIds.length / 3)}`;
  const base = { "svc-api-key": fixture.apiKey, "x-dev-origin-delay-ms": String(originRttMs) };
  const cases = [
    { name: "edge GET, hit", path, headers: () => ({ ...base, "cache-control": "max-age=60" }) },
    { name: "edge GET, revalidated (304)", path, headers: () => ({ ...base, "cache-control": "max-age=0" }) },
    {
      name: "edge GET, miss",
      path,
      headers: (n) => ({ ...base, "cache-control": "max-age=60", accept: `application/json; bench=${Date.now()}-${n}` }),
    },
  ];
  const rows = [];
  for (const s of cases) {
    await one(baseUrl, s); // stores the entry the hit and the revalidation find…
    await new Promise((r) => setTimeout(r, 200)); // …after the answer (waitUntil)
    const probe = await one(baseUrl, s);
    let n = 0;
    const result = await autocannon({
      url: baseUrl + s.path,
      connections: 1,
      duration: durationSeconds,
      requests: [{ setupRequest: (req) => ({ ...req, headers: s.headers(++n) }) }],
    });
    rows.push({
      name: s.name,
      cacheStatus: probe,
      p50: result.latency.p50,
      p99: result.latency.p99,
      rps: result.requests.average,
      errors: result.errors + result.timeouts + result.non2xx,
      originRoundTrips: result.latency.p50 / originRttMs,
    });
  }
  const [hit, , miss] = rows;
  return { originRttMs, rows, hitToMiss: hit.p50 / miss.p50, met: hit.p50 <= HIT_TARGET * miss.p50 && hit.cacheStatus === "pm-edge; hit" };
}
