// `npm start` keeps the webhook deliveries it acknowledged: a burst of writes, then SIGTERM while their deliveries are
// in the local queue (which dies with wrangler), then a start on the same data. Every write's event reaches the
// receiver within the stated bound after the restart (docs/webhooks.md, "Deliveries a restart interrupted": 60 s under
// `npm start`). Before the bound, 4 of 155 were still pending 7 minutes later: a lost message waited for a 5-minute lease
// and for a cron that `npm start` fired only when mail was due. Boots the real start script twice; runs in Node.
import { afterAll, describe, expect, it } from "vitest";
import { STARTUP_MS, signUp, startStack } from "./lib/stack.mjs";

const BURST = 80;
/** The bound docs/webhooks.md states for `npm start`. */
const BOUND_MS = 60_000;
let first;
let second;

afterAll(async () => {
  await (second ?? first)?.stop();
}, 60_000);

/** The event ids the built-in receiver got (it keeps the last 100 requests). */
async function received(stack) {
  const res = await stack.call("GET", "/_dev/webhooks");
  expect(res.status).toBe(200);
  return new Set(res.body.requests.map((r) => r.headers["webhook-id"]));
}

describe("npm start stopped by SIGTERM during a burst of webhook deliveries", () => {
  it(
    "delivers every acknowledged write's event within the bound after the next start",
    async () => {
      first = await startStack();
      const owner = await signUp(first, "webhook-restart");
      const team = await first.call("POST", "/teams", { key: owner.key, body: { name: "Restart", prefix: "RST" } });
      expect(team.status).toBe(201);
      const hook = await first.call("POST", "/webhooks", {
        key: owner.key,
        body: { url: `${first.base}/_dev/webhooks`, events: ["task.created"] },
      });
      expect(hook.status, hook.text).toBe(201);

      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          first.call("POST", "/tasks", { key: owner.key, body: { teamId: "RST", title: `burst ${i}` } }),
        ),
      );
      const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.headers.get("pm-position"));
      expect(acknowledged.length).toBeGreaterThan(BURST / 2);
      const { output } = await first.interrupt("SIGTERM");
      expect(output).toMatch(/SIGTERM: stopping/);

      second = await startStack({ dataDir: first.dataDir, port: Number(new URL(first.base).port) });
      const up = Date.now();
      const before = await received(second);
      const missing = () => acknowledged.filter((id) => !before.has(id));
      console.log(`${missing().length} of ${acknowledged.length} deliveries not yet received at the restart`);
      let late = acknowledged;
      while (late.length > 0 && Date.now() - up < BOUND_MS) {
        await new Promise((r) => setTimeout(r, 1000));
        const got = await received(second);
        late = acknowledged.filter((id) => !got.has(id));
      }
      console.log(`all received ${Date.now() - up} ms after the restart`);
      expect(late, "deliveries not received within the bound").toEqual([]);
    },
    2 * STARTUP_MS + BOUND_MS + 60_000,
  );
});
