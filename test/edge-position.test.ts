// PM-Min-Position at the edge (docs/edge.md): a write through one location, then a GET naming the write's
// PM-Position through the same or another location, never gets the record as it was before the write, even when an
// older answer is stored there and the caller allows its age. Two front Workers stand for two locations, both bound to
// the real API Worker and database (test/helpers/edge.ts).
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { EdgeDeps } from "../src/front/edge";
import worker from "../src/index";
import { post } from "./helpers/api";
import { edgeLocation } from "./helpers/edge";
import { newTeam, newTenant, type Tenant } from "./helpers/fixtures";

const MAX_SECONDS = 60;
let originCalls = 0;
const origin: EdgeDeps["origin"] = {
  async fetch(request) {
    originCalls++;
    const ctx = createExecutionContext();
    const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, ctx);
    const body = await res.arrayBuffer();
    await waitOnExecutionContext(ctx);
    return new Response(res.status === 204 || res.status === 304 ? null : body, res);
  },
};
// The front Worker's clock: a millisecond further at each look, as time passes between requests.
let clock = Date.now();
const at = (name: string) => edgeLocation(name, { maxSeconds: MAX_SECONDS, api: origin, now: () => ++clock });

let tenant: Tenant;
let taskId: string;
beforeAll(async () => {
  tenant = await newTenant("Edge position");
  const team = await newTeam(tenant);
  const created = await post("/tasks", { teamId: team.id, title: "v0" }, tenant.owner.key);
  taskId = created.body.task.id;
});

const cached = { "cache-control": "max-age=60" };

describe("PM-Min-Position", () => {
  it("a stored answer from before a write is not served to a read naming the write's position, at either location", async () => {
    const [a, b] = [await at("a"), await at("b")];
    // Both locations store v0 (the second read of each is a hit: the entry is there and would serve).
    for (const loc of [a, b]) {
      await loc.send("GET", `/tasks/${taskId}`, tenant.owner.key, cached);
      const hit = await loc.send("GET", `/tasks/${taskId}`, tenant.owner.key, cached);
      expect(hit.headers.get("cache-status")).toMatch(/hit$/);
    }
    const write = await a.send("PATCH", `/tasks/${taskId}`, tenant.owner.key, {}, { title: "v1" });
    expect(write.status).toBe(200);
    const position = write.headers.get("pm-position")!;
    expect(position).toMatch(/^evt_/);

    // Without the position, the other location still serves v0 (its caller allowed 60 s): what the header is for.
    expect((await b.send("GET", `/tasks/${taskId}`, tenant.owner.key, cached)).body.task.title).toBe("v0");
    for (const loc of [b, a]) {
      const calls = originCalls;
      const read = await loc.send("GET", `/tasks/${taskId}`, tenant.owner.key, { ...cached, "pm-min-position": position });
      expect(read.body.task.title).toBe("v1");
      expect(read.headers.get("cache-status")).toMatch(/fwd=stale/);
      expect(originCalls).toBe(calls + 1);
      // Fetched at that position, the entry now serves it from the location.
      const again = await loc.send("GET", `/tasks/${taskId}`, tenant.owner.key, { ...cached, "pm-min-position": position });
      expect(again.body.task.title).toBe("v1");
      expect(again.headers.get("cache-status")).toMatch(/hit$/);
    }
  });

  it("random writes through either location, each followed by reads naming its position through both, never read back a value from before it", async () => {
    const locations = [await at("p0"), await at("p1")];
    let version = 100;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ writeAt: fc.nat(1), readAt: fc.array(fc.nat(1), { minLength: 1, maxLength: 3 }), warm: fc.boolean() }), {
          minLength: 2,
          maxLength: 6,
        }),
        async (steps) => {
          for (const step of steps) {
            // Old answers stored at both locations first (when drawn), so a stale one is there to be wrongly served.
            if (step.warm) for (const loc of locations) await loc.send("GET", `/tasks/${taskId}`, tenant.owner.key, cached);
            version++;
            const write = await locations[step.writeAt].send("PATCH", `/tasks/${taskId}`, tenant.owner.key, {}, { title: `v${version}` });
            expect(write.status).toBe(200);
            const position = write.headers.get("pm-position")!;
            for (const i of step.readAt) {
              const read = await locations[i].send("GET", `/tasks/${taskId}`, tenant.owner.key, {
                ...cached,
                "pm-min-position": position,
              });
              expect(read.status).toBe(200);
              expect(read.body.task.title).toBe(`v${version}`);
            }
          }
        },
      ),
      { numRuns: 8 },
    );
  });
});
