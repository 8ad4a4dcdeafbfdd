// The delegation row of `npm run bench` (docs/performance.md, "Delegation to an agent"): how soon an agent hears of a
// task delegated to it. Each run creates a task delegated to an agent (one request: the write, its session and the
// `agent_session.created` event commit together) and waits for that event at the stack's own webhook receiver
// (`/_dev/webhooks`), through the whole path: the relay after the response, the webhook queue and its consumer, the
// signed POST. One delegation at a time, so no run rides on another's queue batch. The time runs from the moment the
// request is sent (before the commit: an upper bound) to the receiver's timestamp of the delivery (same machine clock).

/** The goal (docs/agents.md: an agent hears of its delegation within seconds): p95 at most 2 s. */
export const DELEGATION_TARGET_MS = 2_000;

async function call(baseUrl, apiKey, method, path, body) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "svc-api-key": apiKey, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = res.status === 204 ? null : await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** `runs` delegations, one after another: each one's time from its request to the delivery of its session's creation. */
export async function measureDelegation(baseUrl, fixture, { runs = 30, timeoutMs = 30_000 } = {}) {
  const { agent } = await call(baseUrl, fixture.apiKey, "POST", "/agents", { name: `Bench agent ${Date.now()}` });
  const { webhook } = await call(baseUrl, fixture.apiKey, "POST", "/webhooks", {
    url: `${baseUrl}/_dev/webhooks`,
    events: ["agent_session.created"],
    agentIds: [agent.id],
  });
  const times = [];
  try {
    for (let i = 0; i < runs; i++) {
      const sent = Date.now();
      const { task } = await call(baseUrl, fixture.apiKey, "POST", "/tasks", {
        title: `Delegated ${i}`,
        teamId: fixture.teamId,
        delegateId: agent.id,
      });
      const sessionId = task.session.id;
      for (;;) {
        const { requests } = await call(baseUrl, fixture.apiKey, "GET", "/_dev/webhooks");
        const got = requests.find((r) => r.body.includes(sessionId));
        if (got) {
          times.push(Date.parse(got.createdAt) - sent);
          break;
        }
        if (Date.now() - sent > timeoutMs) throw new Error(`no delivery of ${sessionId} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  } finally {
    await call(baseUrl, fixture.apiKey, "DELETE", `/webhooks/${webhook.id}`).catch(() => {});
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { runs, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1), targetMs: DELEGATION_TARGET_MS };
}
