// The edge rules (docs/edge.md): two front Workers stand for two Cloudflare locations (the real front
// code, src/front/edge.ts, each with a cache of its own), both bound to the real API Worker on the real database.
// Random interleavings of writes, reads with random `max-age`/`max-stale` and clock moves check, for every read:
// - it is no older than it allowed (every write finished more than its limit ago is in it);
// - read-your-writes per location (every write finished through its location is in it);
// - no cross-credential hit (a hit is an answer the origin made for the same credential, and /me names the caller).
// Then the revocation bound: a key deleted through one location is refused there at once, and at the other once the
// server's maximum has passed.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { joinWorkspaceWithKey } from "../src/auth/accounts/membership";
import { signAccessToken } from "../src/auth/jwt";
import { sha256Hex } from "../src/core/crypto";
import type { EdgeDeps } from "../src/front/edge";
import worker from "../src/index";
import { fetchApp, get, post } from "./helpers/api";
import { edgeLocation } from "./helpers/edge";
import { addMember, joinTeam, type Member, newTeam, newTenant, type Tenant, withDb } from "./helpers/fixtures";
import { deviceLogin, oauthGrant } from "./helpers/oauth";
import { codeIn, mailTo } from "./helpers/signup";

const MAX_SECONDS = 5;

/** How many calls reached the origin. */
let originCalls = 0;
/** Test only: each origin answer names the credential it was made for, and the front Worker stores it with the answer. */
const MADE_FOR = "x-test-made-for";
/** How many of them asked the origin to name the caller's workspace. */
let askedWorkspace = 0;

/** The API Worker, as the Service Binding reaches it; its answer buffered, its after-response work done. */
const origin: EdgeDeps["origin"] = {
  async fetch(request) {
    originCalls++;
    if (request.headers.has("x-pm-edge-workspace")) askedWorkspace++;
    const ctx = createExecutionContext();
    const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, ctx);
    const body = await res.arrayBuffer();
    await waitOnExecutionContext(ctx);
    const answer = new Response(res.status === 204 || res.status === 304 ? null : body, res);
    answer.headers.set(MADE_FOR, request.headers.get("svc-api-key") ?? request.headers.get("authorization") ?? "");
    return answer;
  },
};

/** The test's clock: it moves only when a step says so, so ages are exact. */
let clock = Date.now();

/**
 * The database's clock, which judges a key's expiry, passing the key's expiresAt as that long a wait would: the expiry
 * moved behind the database's now (a real wait for a short expiry raced the key's create on a loaded machine).
 */
const expireKey = (id: string) =>
  withDb((db) => db.execute(sql`update api_keys set expires_at = now() - interval '1 second' where id = ${id}`));

/** A location: its own cache, the real front code (test/helpers/edge.ts), on the test's clock. */
const location = (name: string, maxSeconds = MAX_SECONDS, api: EdgeDeps["origin"] = origin) =>
  edgeLocation(name, { maxSeconds, api, now: () => clock });
type Location = Awaited<ReturnType<typeof location>>;

let owner: Member;
let member: Member;
let taskId: string;
let workspaceId: string;
let team: Awaited<ReturnType<typeof newTeam>>;
const ownTeam = async () => team;
let tenant: Tenant;
beforeAll(async () => {
  tenant = await newTenant("Edge");
  workspaceId = tenant.workspaceId;
  owner = tenant.owner;
  member = await addMember(tenant);
  team = await newTeam(tenant);
  await joinTeam(team, member);
  const created = await post("/tasks", { teamId: team.id, title: "v0" }, owner.key);
  expect(created.status).toBe(201);
  taskId = created.body.task.id;
});

describe("edge cache: two locations, random writes and reads", () => {
  it("serves no read older than it allows, keeps read-your-writes per location, never answers across credentials", async () => {
    let version = 0;
    /** Every write: its version, the location it went through, when it finished. */
    const writes: { version: number; loc: number; at: number }[] = [];
    const seen = { hit: 0, stale: 0, forwarded: 0 };

    // Reads weigh most, so entries are stored, hit, outlived and outdated by writes within a run.
    const step = fc.oneof(
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("write" as const), loc: fc.nat(1), cred: fc.nat(1) }) },
      {
        weight: 4,
        arbitrary: fc.record({
          kind: fc.constant("read" as const),
          loc: fc.nat(1),
          cred: fc.nat(1),
          path: fc.constantFrom("task", "task", "me"),
          directive: fc.constantFrom("max-age", "max-age", "max-stale", "none"),
          seconds: fc.nat(MAX_SECONDS + 3),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("tick" as const), ms: fc.nat((MAX_SECONDS + 2) * 1000) }) },
    );

    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 8, maxLength: 30 }), async (steps) => {
        const locs: Location[] = [await location("a"), await location("b")];
        for (const s of steps) {
          if (s.kind === "tick") {
            clock += s.ms;
            continue;
          }
          const cred = [owner, member][s.cred];
          if (s.kind === "write") {
            const next = version + 1;
            const res = await locs[s.loc].send("PATCH", `/tasks/${taskId}`, cred.key, {}, { title: `v${next}` });
            expect(res.status).toBe(200);
            expect(res.headers.get("cache-status")).toBe("pm-edge; fwd=method");
            expect(res.headers.has("x-pm-workspace")).toBe(false);
            version = next;
            writes.push({ version, loc: s.loc, at: clock });
            continue;
          }
          const headers: Record<string, string> = s.directive === "none" ? {} : { "cache-control": `${s.directive}=${s.seconds}` };
          const path = s.path === "task" ? `/tasks/${taskId}` : "/me";
          const res = await locs[s.loc].send("GET", path, cred.key, headers);
          expect(res.status).toBe(200);
          expect(res.headers.has("x-pm-workspace")).toBe(false);
          const status = res.headers.get("cache-status")!;
          const age = Number(res.headers.get("age"));
          if (status === "pm-edge; hit") {
            seen.hit++;
            // No cross-credential hit: the stored answer was made by the origin for this very credential.
            expect(res.headers.get(MADE_FOR)).toBe(cred.key);
            expect(s.directive).not.toBe("none");
            expect(age).toBeLessThanOrEqual(Math.min(s.seconds, MAX_SECONDS));
          } else {
            expect(age).toBe(0);
            if (s.directive === "none") expect(status).toMatch(/^pm-edge; fwd=request/);
            else expect(status).toMatch(/^pm-edge; fwd=(miss|stale)/);
            if (status.includes("fwd=stale")) seen.stale++;
            else seen.forwarded++;
          }
          if (s.path === "me") {
            expect(res.body.user.id).toBe(cred.userId);
            continue;
          }
          const got = Number(res.body.task.title.slice(1));
          const limitMs = s.directive === "none" || !status.endsWith("hit") ? 0 : Math.min(s.seconds, MAX_SECONDS) * 1000;
          for (const w of writes) {
            // No older than allowed: a write that finished more than the limit ago is in the answer.
            if (w.at < clock - limitMs) expect(got).toBeGreaterThanOrEqual(w.version);
            // Read-your-writes: a write through this location that finished before the read is in the answer.
            if (w.loc === s.loc && w.at <= clock && status.endsWith("hit")) expect(got).toBeGreaterThanOrEqual(w.version);
          }
          // A forwarded read is the origin's answer now: the latest version.
          if (!status.endsWith("hit")) expect(got).toBe(version);
        }
      }),
      { numRuns: 12, endOnFailure: true },
    );
    // The runs exercised every path (fast-check's steps make hits and stale entries likely; this says they happened).
    expect(seen.hit).toBeGreaterThan(0);
    expect(seen.stale).toBeGreaterThan(0);
    expect(seen.forwarded).toBeGreaterThan(0);
    // About 150 requests through the locations: seconds at rest, a minute on a machine loaded several times over.
  }, 90_000);

  it("a hit makes no origin call; a stale entry is revalidated by its ETag (304: the stored body, stored again)", async () => {
    const here = await location("c");
    const path = `/tasks/${taskId}`;
    const asked = askedWorkspace;
    const first = await here.send("GET", path, owner.key, { "cache-control": "max-age=5" });
    // The location did not know the credential's workspace: the origin was asked, once.
    expect(askedWorkspace - asked).toBe(1);
    expect(first.headers.get("cache-status")).toMatch(/^pm-edge; fwd=miss; fwd-status=200; stored$/);
    const before = originCalls;
    clock += 2000;
    const hit = await here.send("GET", path, owner.key, { "cache-control": "max-age=5" });
    expect([hit.headers.get("cache-status"), hit.headers.get("age"), originCalls - before]).toEqual(["pm-edge; hit", "2", 0]);
    expect(hit.body).toEqual(first.body);
    // Older than the caller allows: forwarded with If-None-Match, the origin's 304 renews the entry.
    const again = await here.send("GET", path, owner.key, { "cache-control": "max-age=1" });
    expect(again.headers.get("cache-status")).toBe("pm-edge; fwd=stale; fwd-status=304; stored");
    expect([again.status, again.body, originCalls - before, askedWorkspace - asked]).toEqual([200, first.body, 1, 1]);
    // The caller's own If-None-Match on a hit: 304 from the cache.
    const etag = first.headers.get("etag")!;
    const cond = await here.send("GET", path, owner.key, { "cache-control": "max-age=5", "if-none-match": etag });
    expect([cond.status, cond.headers.get("cache-status"), originCalls - before]).toEqual([304, "pm-edge; hit", 1]);
  });

  it("never stores what is not safe to: the dev mailbox, the device page, errors; caching off is a bypass", async () => {
    const here = await location("d");
    const mailbox = await here.send("GET", "/_dev/mailbox?to=nobody@example.com", owner.key, { "cache-control": "max-age=5" });
    expect(mailbox.headers.get("cache-status")).toBe("pm-edge; fwd=uri-miss");
    // Decided on the path as the API routes it: percent-encoded forms of the same paths are never stored either.
    for (const path of ["/%5Fdev/mailbox?to=nobody@example.com", "/%5fdev/webhooks", "/%5Fdev", "/%64evice", "/%E0%A4%A"]) {
      for (let i = 0; i < 2; i++) {
        const res = await here.send("GET", path, owner.key, { "cache-control": "max-age=5" });
        expect([path, res.headers.get("cache-status")]).toEqual([path, "pm-edge; fwd=uri-miss"]);
      }
    }
    const device = await here.send("GET", "/device", "", { "cache-control": "max-age=5" });
    expect(device.headers.get("cache-status")).toBe("pm-edge; fwd=uri-miss");
    const missing = await here.send("GET", "/tasks/NOPE-1", owner.key, { "cache-control": "max-age=5" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cache-status")).toBe("pm-edge; fwd=miss; fwd-status=404");
    const again = await here.send("GET", "/tasks/NOPE-1", owner.key, { "cache-control": "max-age=5" });
    expect(again.headers.get("cache-status")).toBe("pm-edge; fwd=miss; fwd-status=404");
    const off = await location("e", 0);
    const bypass = await off.send("GET", `/tasks/${taskId}`, owner.key, { "cache-control": "max-age=5" });
    expect(bypass.headers.get("cache-status")).toBe("pm-edge; fwd=bypass");
  });
});

describe("edge cache: what a hit says of the caller's request", () => {
  it("carries the caller's x-request-id (or a new one) and RateLimit headers, on a 200 and on a 304", async () => {
    const here = await location("hdr");
    const path = `/tasks/${taskId}`;
    const first = await here.send("GET", path, owner.key, { "cache-control": "max-age=5", "x-request-id": "edge-first" });
    expect(first.headers.get("cache-status")).toMatch(/stored$/);
    expect(first.headers.get("x-request-id")).toBe("edge-first");
    const limit = first.headers.get("ratelimit-limit");
    const remaining = Number(first.headers.get("ratelimit-remaining"));
    const reset = Number(first.headers.get("ratelimit-reset"));
    expect(limit).not.toBeNull();
    clock += 1000;
    const hit = await here.send("GET", path, owner.key, { "cache-control": "max-age=5", "x-request-id": "edge-second" });
    expect(hit.headers.get("cache-status")).toBe("pm-edge; hit");
    // The caller's id, echoed; the limit as the origin last said, its window counted down (a hit is not counted).
    expect(hit.headers.get("x-request-id")).toBe("edge-second");
    expect(hit.headers.get("ratelimit-limit")).toBe(limit);
    expect(Number(hit.headers.get("ratelimit-remaining"))).toBe(remaining);
    expect(Number(hit.headers.get("ratelimit-reset"))).toBe(Math.max(0, reset - 1));
    // No id sent (or one the origin would not take): a new one, not the stored answer's.
    for (const sent of [{}, { "x-request-id": "not valid!" }] as Record<string, string>[]) {
      const fresh = await here.send("GET", path, owner.key, { "cache-control": "max-age=5", ...sent });
      expect(fresh.headers.get("cache-status")).toBe("pm-edge; hit");
      expect(fresh.headers.get("x-request-id")).toMatch(/^[\w-]+$/);
      expect(["edge-first", "not valid!"]).not.toContain(fresh.headers.get("x-request-id"));
    }
    const etag = first.headers.get("etag")!;
    const cond = await here.send("GET", path, owner.key, {
      "cache-control": "max-age=5",
      "if-none-match": etag,
      "x-request-id": "edge-304",
    });
    expect([cond.status, cond.headers.get("cache-status"), cond.headers.get("x-request-id")]).toEqual([304, "pm-edge; hit", "edge-304"]);
    expect(cond.headers.get("ratelimit-limit")).toBe(limit);
  });
});

describe("edge: the API Worker fails mid-request", () => {
  it("a read: 503 UNAVAILABLE in the API's JSON shape when the binding throws or answers workerd's plain text; a write the API cannot be asked after: OUTCOME_UNKNOWN", async () => {
    const failing: EdgeDeps["origin"][] = [
      {
        fetch: async () => {
          throw new Error("Network connection lost.");
        },
      },
      { fetch: async () => new Response("Your worker restarted mid-request. Please try sending the request again.", { status: 503 }) },
      { fetch: async () => new Response("<html>Internal Server Error</html>", { status: 500, headers: { "content-type": "text/html" } }) },
    ];
    for (const api of failing) {
      const here = await location("down", MAX_SECONDS, api);
      for (const [method, headers, code] of [
        ["POST", { "x-request-id": "edge-down" }, "OUTCOME_UNKNOWN"],
        ["GET", { "cache-control": "max-age=5", "x-request-id": "edge-down" }, "UNAVAILABLE"],
        ["GET", {}, "UNAVAILABLE"],
      ] as [string, Record<string, string>, string][]) {
        const res = await here.send(method, "/tasks", owner.key, headers, method === "POST" ? { title: "x" } : undefined);
        expect([res.status, res.headers.get("content-type"), res.body.error?.code]).toEqual([503, "application/json", code]);
        expect(res.body.error.details.requestId).toBe(res.headers.get("x-request-id"));
        if (headers["x-request-id"]) expect(res.headers.get("x-request-id")).toBe("edge-down");
      }
    }
  });

  /** The API Worker behind a binding that loses the answer of every first call (after the API ran it, or before). */
  const dropping = (when: "after" | "before"): EdgeDeps["origin"] => ({
    async fetch(request) {
      if (request.headers.get("x-pm-settle")) return origin.fetch(request);
      if (when === "after") await origin.fetch(request);
      return new Response("Your worker restarted mid-request. Please try sending the request again.", { status: 503 });
    },
  });
  const titled = async (title: string) => {
    const found = await fetchApp(
      new Request(`http://api.test/tasks?filter[eq][title]=${encodeURIComponent(title)}`, { headers: { "svc-api-key": owner.key } }),
    );
    return ((await found.json()) as { tasks: unknown[] }).tasks.length;
  };

  it("a write that committed before its answer was lost: the front Worker asks after it and answers 201 with the record", async () => {
    const here = await location("dropped-after", MAX_SECONDS, dropping("after"));
    const title = `dropped after ${crypto.randomUUID()}`;
    const res = await here.send("POST", "/tasks", owner.key, {}, { teamId: (await ownTeam()).id, title });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.task.title).toBe(title);
    expect(res.headers.get("location")).toBe(`/tasks/${res.body.task.id}`);
    expect(await titled(title)).toBe(1);
  });

  it("a write dropped before the API ran it: 503 UNAVAILABLE, nothing was written, and it never lands", async () => {
    const here = await location("dropped-before", MAX_SECONDS, dropping("before"));
    const title = `dropped before ${crypto.randomUUID()}`;
    const res = await here.send("POST", "/tasks", owner.key, { "x-request-id": "edge-dropped" }, { teamId: (await ownTeam()).id, title });
    expect([res.status, res.body.error?.code, res.headers.get("x-request-id")]).toEqual([503, "UNAVAILABLE", "edge-dropped"]);
    expect(res.body.error.message).toMatch(/nothing was written/);
    expect(await titled(title)).toBe(0);
  });

  it("a caller cannot name the attempt or ask for a settle itself: the front Worker replaces both headers", async () => {
    const seen: Headers[] = [];
    const here = await location("internal", MAX_SECONDS, {
      fetch: async (request) => {
        seen.push(new Headers(request.headers));
        return origin.fetch(request);
      },
    });
    const attempt = crypto.randomUUID();
    const res = await here.send(
      "POST",
      "/tasks",
      owner.key,
      { "x-pm-attempt": attempt, "x-pm-settle": "1" },
      { teamId: (await ownTeam()).id, title: "plain" },
    );
    expect(res.status).toBe(201);
    expect([seen[0].get("x-pm-settle"), seen[0].get("x-pm-attempt") === attempt]).toEqual([null, false]);
  });
});

describe("edge cache: a credential's expiry", () => {
  it("an API key's stored answers are never served past its expiresAt", async () => {
    const here = await location("exp-key");
    const expiresAt = Date.now() + 3_600_000;
    const made = await post("/api-keys", { name: "expiring", expiresAt: new Date(expiresAt).toISOString() }, member.key);
    expect(made.status).toBe(201);
    const read = () => here.send("GET", `/tasks/${taskId}`, made.body.key, { "cache-control": `max-age=${MAX_SECONDS}` });
    // The front Worker's clock just before the key's expiresAt (the database's, which judges it, an hour before it).
    clock = expiresAt - 2000;
    expect((await read()).headers.get("cache-status")).toMatch(/stored$/);
    clock = expiresAt - 1;
    expect((await read()).headers.get("cache-status")).toBe("pm-edge; hit");
    // Past the key's expiry (well within max-age): not served. The database's clock passes it too, so the origin
    // answers, and refuses.
    clock = expiresAt;
    await expireKey(made.body.apiKey.id);
    const late = await read();
    expect([late.status, late.headers.get("cache-status")]).toEqual([401, "pm-edge; fwd=stale; fwd-status=401"]);
    clock = Date.now();
  });

  it("a JWT's stored answers are never served past its exp", async () => {
    const here = await location("exp-jwt");
    const { token } = await signAccessToken(env, { sub: member.userId, wid: workspaceId });
    const exp = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).exp * 1000;
    const read = () => here.send("GET", `/tasks/${taskId}`, `Bearer ${token}`, { "cache-control": `max-age=${MAX_SECONDS}` });
    // The front Worker's clock just before the token's exp (the origin's real clock is an hour before it).
    clock = exp - 2000;
    expect((await read()).headers.get("cache-status")).toMatch(/stored$/);
    clock = exp - 1;
    expect((await read()).headers.get("cache-status")).toBe("pm-edge; hit");
    // At exp, within max-age: not served; forwarded (and the origin, an hour earlier, still takes the token).
    clock = exp;
    const late = await read();
    expect([late.status, late.headers.get("cache-status")]).toEqual([200, "pm-edge; fwd=stale; fwd-status=304; stored"]);
    expect((await read()).headers.get("cache-status")).not.toBe("pm-edge; hit");
    clock = Date.now();
  });
});

describe("edge cache: revocation", () => {
  it("a key deleted through one location is refused there at once, at the other after at most the server's maximum", async () => {
    const [here, there] = [await location("rev-a"), await location("rev-b")];
    const made = await post("/api-keys", { name: "edge" }, member.key);
    const { key, apiKey } = made.body;
    const read = (loc: Location) => loc.send("GET", `/tasks/${taskId}`, key, { "cache-control": `max-age=${MAX_SECONDS}` });
    expect((await read(here)).status).toBe(200);
    expect((await read(there)).status).toBe(200);
    const storedAt = clock;
    clock += 1;
    expect((await here.send("DELETE", `/api-keys/${apiKey.id}`, member.key)).status).toBe(204);
    // The revoking location: the deletion is a write of the workspace, so nothing stored before it is served.
    const refused = await read(here);
    expect([refused.status, refused.headers.get("cache-status")]).toEqual([401, "pm-edge; fwd=stale; fwd-status=401"]);
    // Another location may still serve what it stored, no longer than the server's maximum…
    const late = await read(there);
    expect([late.status, late.headers.get("cache-status")]).toEqual([200, "pm-edge; hit"]);
    // …and not a moment past it, whatever the caller asks.
    clock = storedAt + MAX_SECONDS * 1000 + 1;
    const past = await there.send("GET", `/tasks/${taskId}`, key, { "cache-control": "max-stale=3600" });
    expect([past.status, past.headers.get("cache-status")]).toEqual([401, "pm-edge; fwd=stale; fwd-status=401"]);
  });
});

// ---- The revocation walk ----
//
// Every way a credential stops working, through one location: its stored answer is served (a hit) until then, and not
// a moment after (the origin answers, and refuses). An operation of the served document that may end a credential and
// is neither walked nor excluded with a reason fails the walk.

/** A credential's end: the credentials it ends (an API key, or `Bearer <JWT>`) and the request through `loc` that ends them. */
interface Ending {
  credentials: string[];
  end(loc: Location): Promise<void>;
  /** The origin refuses the credential afterwards (an expiry the origin's own clock has not reached yet does not). */
  refused?: boolean;
}

/** The request that ends credentials, through the location, answered as `status`. */
async function through(loc: Location, status: number, method: string, path: string, key: string, body?: unknown) {
  const res = await loc.send(method, path, key, {}, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
  expect(res.headers.has("x-pm-revoked")).toBe(false);
}

const oauthGrantOf = async (person: Member) => {
  const g = await oauthGrant(person, workspaceId);
  const listed = await get("/oauth/grants?limit=250", person.key);
  return { ...g, id: listed.body.oauth_grants.find((x: { clientId: string }) => x.clientId === g.clientId).id as string };
};

const ENDINGS: Record<string, () => Promise<Ending>> = {
  async "DELETE /api-keys/{id}: a key deleted"() {
    const made = await post("/api-keys", { name: "walk" }, member.key);
    return { credentials: [made.body.key], end: (loc) => through(loc, 204, "DELETE", `/api-keys/${made.body.apiKey.id}`, member.key) };
  },
  async "an API key's expiresAt passes"() {
    // An hour ahead, the front Worker's clock just before it; at the end both clocks pass it (expireKey).
    const expiresAt = Date.now() + 3_600_000;
    const made = await post("/api-keys", { name: "walk", expiresAt: new Date(expiresAt).toISOString() }, member.key);
    clock = expiresAt - 2000;
    const end = async () => {
      clock = expiresAt;
      await expireKey(made.body.apiKey.id);
    };
    return { credentials: [made.body.key], end };
  },
  async "a token's exp passes"() {
    const { token } = await signAccessToken(env, { sub: member.userId, wid: workspaceId });
    const exp = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).exp * 1000;
    clock = exp - 2000;
    // The front Worker's clock reaches exp; the origin's, an hour earlier, still takes the token.
    return {
      credentials: [`Bearer ${token}`],
      refused: false,
      end: async () => {
        clock = exp;
      },
    };
  },
  async "DELETE /oauth/grants/{id}: the person revokes a grant"() {
    const g = await oauthGrantOf(member);
    return { credentials: [`Bearer ${g.accessToken}`], end: (loc) => through(loc, 204, "DELETE", `/oauth/grants/${g.id}`, member.key) };
  },
  async "POST /oauth/token: a used refresh token presented again (past the grace) revokes the grant"() {
    const g = await oauthGrant(member, workspaceId);
    const renewed = await post("/oauth/token", { grant_type: "refresh_token", refresh_token: g.refreshToken, client_id: g.clientId });
    expect(renewed.status).toBe(200);
    // The token was used longer ago than the grace for a concurrent refresh (test/oauth.test.ts).
    const hash = await sha256Hex(g.refreshToken);
    await withDb((db) => db.execute(sql`update oauth_refresh_tokens set used_at = now() - interval '1 minute' where hash = ${hash}`));
    const replay = { grant_type: "refresh_token", refresh_token: g.refreshToken, client_id: g.clientId };
    return {
      credentials: [`Bearer ${g.accessToken}`, `Bearer ${renewed.body.access_token}`],
      end: (loc) => through(loc, 400, "POST", "/oauth/token", "", replay),
    };
  },
  async "POST /oauth/token: a used code presented again revokes the grant"() {
    const g = await oauthGrant(member, workspaceId);
    return { credentials: [`Bearer ${g.accessToken}`], end: (loc) => through(loc, 400, "POST", "/oauth/token", "", g.exchange) };
  },
  async "POST /auth/revoke: an OAuth access token (RFC 7009)"() {
    const g = await oauthGrant(member, workspaceId);
    const body = { token: g.accessToken, token_type_hint: "access_token", client_id: g.clientId };
    return { credentials: [`Bearer ${g.accessToken}`], end: (loc) => through(loc, 200, "POST", "/auth/revoke", "", body) };
  },
  async "POST /auth/revoke: an OAuth refresh token ends the grant's access tokens (RFC 7009)"() {
    const g = await oauthGrant(member, workspaceId);
    const body = { token: g.refreshToken, client_id: g.clientId };
    return { credentials: [`Bearer ${g.accessToken}`], end: (loc) => through(loc, 200, "POST", "/auth/revoke", "", body) };
  },
  async "POST /auth/revoke: a device login (pm logout)"() {
    const login = await deviceLogin(member.key);
    const body = { token: login.refreshToken };
    return { credentials: [`Bearer ${login.accessToken}`], end: (loc) => through(loc, 200, "POST", "/auth/revoke", "", body) };
  },
  async "DELETE /users/{id}: a person removed from the workspace, with their key, device login and grant"() {
    const person = await addMember(tenant);
    const [login, g] = await Promise.all([deviceLogin(person.key), oauthGrant(person, workspaceId)]);
    return {
      credentials: [person.key, `Bearer ${login.accessToken}`, `Bearer ${g.accessToken}`],
      end: (loc) => through(loc, 204, "DELETE", `/users/${person.userId}`, owner.key),
    };
  },
  async "POST /account/revoke: a key revoked by its person on the account page"() {
    const person = await addMember(tenant);
    const made = await post("/api-keys", { name: "walk" }, person.key);
    const { cookie, csrf } = await accountSession(person.email);
    const form = new URLSearchParams({ csrf, kind: "key", workspace_id: workspaceId, id: made.body.apiKey.id }).toString();
    const end = async (loc: Location) => {
      const headers = { cookie, "content-type": "application/x-www-form-urlencoded" };
      const res = await loc.send("POST", "/account/revoke", "", headers, form);
      expect(res.status, String(res.body)).toBe(200);
    };
    return { credentials: [made.body.key], end };
  },
  async "DELETE /users/{id}: an agent removed by its owner"() {
    const agent = (await post("/agents", { name: "Walk agent" }, member.key)).body.agent;
    return { credentials: [agent.apiKey], end: (loc) => through(loc, 204, "DELETE", `/users/${agent.id}`, member.key) };
  },
};

/** A person signed in on the account page (straight at the origin): the session cookie and the page's CSRF token. */
async function accountSession(email: string) {
  const page = async (path: string, cookie: string, form?: Record<string, string>) => {
    const headers = { cookie, ...(form && { "content-type": "application/x-www-form-urlencoded" }) };
    const res = await fetchApp(
      new Request(`http://api.test${path}`, { method: form ? "POST" : "GET", headers, body: form && new URLSearchParams(form) }),
    );
    const text = await res.text();
    return { cookie: res.headers.get("set-cookie")?.split(";")[0] ?? cookie, csrf: /name="csrf" value="([^"]*)"/.exec(text)![1], text };
  };
  const start = await page("/account", "");
  const step = await page("/account/signin", start.cookie, { csrf: start.csrf, email });
  const loginToken = /name="login_token" value="([^"]*)"/.exec(step.text)![1];
  return page("/account/signin/code", step.cookie, { csrf: step.csrf, login_token: loginToken, code: codeIn(await mailTo(email)) });
}

/** Operations of the document that may end a credential, left out of the walk, each with why. */
const ENDS_NOTHING: Record<string, string> = {
  "POST /auth/device/code": "starts a device login: ends nothing",
  "POST /auth/device/approve": "approves a device login: ends nothing",
  "POST /auth/device/token": "hands out a device login's first tokens; a second exchange is refused and ends nothing",
  "POST /auth/token": "renews a device login: the used refresh token is unknown from then on, the login lives on",
  "PATCH /users/{id}":
    "changes a role (narrows, ends nothing): a successful write of the workspace, so nothing stored before it is served here",
  "POST /agents": "makes an agent and its key: ends nothing",
  "POST /api-keys": "makes a key: ends nothing",
  "POST /oauth/register": "registers a client, which holds no grant",
  "POST /oauth/authorize": "the consent page's email step: ends nothing",
  "POST /oauth/authorize/signin": "the consent page's sign-in: ends nothing",
  "POST /oauth/authorize/consent": "a consent makes a grant: ends nothing",
  "POST /account/signin": "the account page's email step: ends nothing",
  "POST /account/signin/code": "the account page's sign-in: ends nothing",
  "POST /account/signout": "ends the page's own session, which is no credential of the API",
};
/** Operations that may end a credential: they delete keys, people, grants, or take tokens. */
const ENDING = /^(POST|PUT|PATCH|DELETE) \/(api-keys|users|agents|oauth|auth|account)\b/;

describe("edge cache: the revocation walk", () => {
  it("each operation that may end a credential is walked, or excluded with the reason", async () => {
    const doc = (await get("/openapi.json")).body;
    const ops = Object.entries<any>(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .filter((op) => ENDING.test(op));
    const walked = new Set(Object.keys(ENDINGS).map((way) => way.split(":")[0]));
    expect(ops.filter((op) => !walked.has(op) && !(op in ENDS_NOTHING))).toEqual([]);
  });

  it("every way a credential stops working stops its stored answers at once, through the location it went through", async () => {
    for (const [way, prepare] of Object.entries(ENDINGS)) {
      clock = Date.now();
      const here = await location("walk");
      const ending = await prepare();
      const read = (credential: string) => here.send("GET", "/me", credential, { "cache-control": `max-age=${MAX_SECONDS}` });
      for (const credential of ending.credentials) {
        expect((await read(credential)).headers.get("cache-status"), way).toMatch(/stored$/);
      }
      clock += 1;
      for (const credential of ending.credentials) expect((await read(credential)).headers.get("cache-status"), way).toBe("pm-edge; hit");
      await ending.end(here);
      for (const credential of ending.credentials) {
        const after = await read(credential);
        expect([way, after.headers.get("cache-status")]).not.toEqual([way, "pm-edge; hit"]);
        if (ending.refused !== false) expect([way, after.status]).toEqual([way, 401]);
      }
    }
    clock = Date.now();
  });
});

describe("public documents", () => {
  it("/openapi.json, /docs and /.well-known/jwks.json: public, five minutes, revalidated by their ETag", async () => {
    for (const path of ["/openapi.json", "/docs", "/.well-known/jwks.json"]) {
      const res = await fetchApp(new Request(`http://api.test${path}`));
      await res.arrayBuffer();
      expect([path, res.status, res.headers.get("cache-control")]).toEqual([path, 200, "public, max-age=300"]);
      const etag = res.headers.get("etag")!;
      expect(etag).toMatch(/^W\//);
      const again = await fetchApp(new Request(`http://api.test${path}`, { headers: { "if-none-match": etag } }));
      expect([path, again.status, again.headers.get("cache-control")]).toEqual([path, 304, "public, max-age=300"]);
    }
  });
});

describe("edge cache: a write that changes another workspace's answers", () => {
  it("a person renamed through workspace B: workspace A's stored /me of them is not served again", async () => {
    const a = await newTenant("Edge profile A");
    const b = await newTenant("Edge profile B");
    const person = await addMember(a, "MEMBER");
    const keyInB = await withDb((db) =>
      joinWorkspaceWithKey(db, { workspaceId: b.workspaceId, userId: person.userId, role: "MEMBER", keyName: "b" }),
    );
    const here = await location("profile");
    const stored = { "cache-control": "max-age=60" };
    expect((await here.send("GET", "/me", person.key, stored)).status).toBe(200);
    const hit = await here.send("GET", "/me", person.key, stored);
    expect(hit.headers.get("cache-status")).toContain("hit");

    const renamed = await here.send("PATCH", `/users/${person.userId}`, keyInB, {}, { name: "Renamed through B" });
    expect(renamed.status).toBe(200);
    // The front Worker's own header: recorded, and stripped from the answer.
    expect(renamed.headers.get("x-pm-also-written")).toBeNull();

    const after = await here.send("GET", "/me", person.key, stored);
    expect(after.headers.get("cache-status")).not.toContain("hit");
    expect(JSON.stringify(after.body)).toContain("Renamed through B");
  });
});
