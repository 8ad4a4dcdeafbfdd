// Rate limiting (docs/security.md): one RateLimiter Durable Object per credential, or per client IP on the public sign-up,
// login, invite-redeem and device routes. The suite runs with generous limits (vitest.config.ts); the tests that
// reach a limit call the app with a copy of env carrying low ones, against the same Durable Object namespace.
import { createExecutionContext, env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { labels, oauthClients } from "../../../drizzle/schema";
import { api, get, post, uniqueEmail } from "../../../test/helpers/api";
import { newTeam, newTenant, withDb } from "../../../test/helpers/fixtures";
import { assertConforms, servedOpenApi } from "../../../test/helpers/openapi-conformance";
import { app } from "../../app";
import { signAccessToken } from "../../auth/jwt";

interface Limits {
  RATE_LIMIT_CREDENTIAL?: string;
  RATE_LIMIT_IP?: string;
  RATE_LIMIT_WINDOW_SECONDS?: string;
}

/** The app's answer under `limits`, checked against the served document like every other answer of the suite. */
async function limited(limits: Limits, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const request = new Request(`http://api.test${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await app.fetch(request, { ...env, ...limits }, createExecutionContext());
  const text = await res.text();
  await assertConforms(method, request.url, res.status, res.headers, text);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const rateHeaders = (headers: Headers) => ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"].map((h) => headers.get(h));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("rate limits per credential", () => {
  it("every authenticated answer carries RateLimit-* and Remaining counts down", async () => {
    const t = await newTenant();
    const first = await get("/me", t.owner.key);
    const second = await get("/users", t.owner.key);
    expect(first.status).toBe(200);
    const [limit, remaining, reset] = rateHeaders(first.headers);
    expect(limit).toBe(env.RATE_LIMIT_CREDENTIAL);
    expect(Number(remaining)).toBe(Number(limit) - 1);
    expect(Number(reset)).toBeGreaterThan(0);
    expect(Number(reset)).toBeLessThanOrEqual(Number(env.RATE_LIMIT_WINDOW_SECONDS));
    expect(Number(second.headers.get("RateLimit-Remaining"))).toBe(Number(remaining) - 1);
  });

  it("over the limit: 429 RATE_LIMITED with Retry-After, a refused write writes nothing, another credential is unaffected", async () => {
    const t = await newTenant();
    const other = await newTenant();
    const low = { RATE_LIMIT_CREDENTIAL: "3", RATE_LIMIT_WINDOW_SECONDS: "60" };
    const key = { "svc-api-key": t.owner.key };
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await limited(low, "GET", "/me", key);
      expect(res.status).toBe(200);
      remaining.push(res.headers.get("RateLimit-Remaining")!);
    }
    expect(remaining).toEqual(["2", "1", "0"]);

    const refused = await limited(low, "GET", "/me", key);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: { code: "RATE_LIMITED", message: expect.any(String) } });
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(rateHeaders(refused.headers)).toEqual(["3", "0", String(retryAfter)]);
    expect(refused.headers.get("ETag")).toBeNull();
    // The rest of the window is refused by this isolate from the limiter's answer: no read, no call.
    const again = await limited(low, "GET", "/me", key);
    expect(again.status).toBe(429);
    expect(again.headers.get("Server-Timing")).toContain('desc="0 queries"');
    expect(Number(again.headers.get("Retry-After"))).toBeLessThanOrEqual(retryAfter);

    // The verdict comes before a write: the refused POST creates no label.
    const write = await limited(low, "POST", "/labels", key, { name: "over the limit", color: "#123456" });
    expect(write.status).toBe(429);
    const written = await withDb((db) => db.select().from(labels).where(eq(labels.workspaceId, t.workspaceId)));
    expect(written).toEqual([]);

    const fresh = await limited(low, "GET", "/me", { "svc-api-key": other.owner.key });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get("RateLimit-Remaining")).toBe("2");
  });

  it("a JWT is limited per user and workspace: every token of theirs shares one budget, the user's API key has its own", async () => {
    const t = await newTenant();
    const low = { RATE_LIMIT_CREDENTIAL: "2", RATE_LIMIT_WINDOW_SECONDS: "60" };
    const claims = { sub: t.owner.userId, wid: t.workspaceId };
    const bearer = async () => ({ authorization: `Bearer ${(await signAccessToken(env, claims)).token}` });
    expect((await limited(low, "GET", "/me", await bearer())).status).toBe(200);
    expect((await limited(low, "GET", "/me", await bearer())).status).toBe(200);
    expect((await limited(low, "GET", "/me", await bearer())).status).toBe(429);
    expect((await limited(low, "GET", "/me", { "svc-api-key": t.owner.key })).status).toBe(200);
  });

  it("the window resets: after Retry-After seconds the credential is served again", async () => {
    const t = await newTenant();
    const low = { RATE_LIMIT_CREDENTIAL: "2", RATE_LIMIT_WINDOW_SECONDS: "2" };
    const key = { "svc-api-key": t.owner.key };
    let refused: Awaited<ReturnType<typeof limited>> | undefined;
    // Fixed windows: the third request of a window is refused. Three side by side reach the limiter together (one by
    // one, a loaded machine spread them over more than the 2 s window); a window may still end within a burst, so a few.
    for (let i = 0; i < 4 && !refused; i++) {
      const burst = await Promise.all([1, 2, 3].map(() => limited(low, "GET", "/me", key)));
      refused = burst.find((res) => res.status === 429);
    }
    expect(refused?.status).toBe(429);
    await sleep(Number(refused!.headers.get("Retry-After")) * 1000 + 50);
    const again = await limited(low, "GET", "/me", key);
    expect(again.status).toBe(200);
    expect(again.headers.get("RateLimit-Remaining")).toBe("1");
  });

  it("a request without a usable credential is 401 as before, uncounted", async () => {
    const none = await get("/me");
    expect(none.status).toBe(401);
    expect(none.headers.get("RateLimit-Limit")).toBeNull();
    const badJwt = await api("GET", "/me", { bearer: "not.a.jwt" });
    expect(badJwt.status).toBe(401);
    expect(badJwt.headers.get("RateLimit-Limit")).toBeNull();
  });

  it("the limiter adds no database query: GET /tasks/{ref} costs the same with it and without it", async () => {
    const t = await newTenant();
    const team = await newTeam(t);
    const task = (await post("/tasks", { title: "counted", teamId: team.id }, t.owner.key)).body.task;
    const on = await get(`/tasks/${task.reference}`, t.owner.key);
    // BENCH_ROUTES (test and bench only) lets a request skip the limiter.
    const off = await api("GET", `/tasks/${task.reference}`, { key: t.owner.key, headers: { "x-bench-rate-limit": "off" } });
    expect(on.status).toBe(200);
    expect(on.headers.get("RateLimit-Limit")).not.toBeNull();
    expect(off.headers.get("RateLimit-Limit")).toBeNull();
    expect([on.queries, on.transactions]).toEqual([off.queries, off.transactions]);
    expect(on.queries).toBe(1);

    const low = { RATE_LIMIT_CREDENTIAL: "1" };
    const key = { "svc-api-key": t.owner.key };
    await limited(low, "POST", "/labels", key, { name: "first", color: "#123456" });
    const refused = await limited(low, "POST", "/labels", key, { name: "second", color: "#123456" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Server-Timing")).toContain('desc="0 queries"');
  });
});

describe("rate limits per client IP on public routes", () => {
  it("sign-up from one IP is limited; another IP is not", async () => {
    const low = { RATE_LIMIT_IP: "2", RATE_LIMIT_WINDOW_SECONDS: "60" };
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
    const from = (address: string) => ({ "cf-connecting-ip": address });
    for (let i = 0; i < 2; i++)
      expect((await limited(low, "POST", "/signup/start", from(ip), { email: uniqueEmail("rl") })).status).toBe(200);
    const refused = await limited(low, "POST", "/signup/start", from(ip), { email: uniqueEmail("rl") });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("RATE_LIMITED");
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    // The same IP is refused on the other public routes too (one budget per IP), and not on an authenticated one.
    expect((await limited(low, "POST", "/login/start", from(ip), { email: uniqueEmail("rl") })).status).toBe(429);
    expect((await limited(low, "POST", "/signup/start", from(`${ip}0`), { email: uniqueEmail("rl") })).status).toBe(200);
  });
});

describe("OAuth client registrations: a budget of their own per client IP", () => {
  it("over RATE_LIMIT_REGISTRATIONS an hour: 429 RATE_LIMITED with Retry-After, nothing stored; the IP's other routes go on", async () => {
    const low = { RATE_LIMIT_REGISTRATIONS: "3", RATE_LIMIT_IP: "1000" };
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const from = { "cf-connecting-ip": ip };
    const client = (n: number) => ({ client_name: `rl-${ip}-${n}`, redirect_uris: ["http://127.0.0.1:1/cb"] });
    for (let i = 0; i < 3; i++) expect((await limited(low, "POST", "/oauth/register", from, client(i))).status).toBe(201);
    const refused = await limited(low, "POST", "/oauth/register", from, client(3));
    expect([refused.status, refused.body.error.code]).toEqual([429, "RATE_LIMITED"]);
    const retryAfter = Number(refused.headers.get("Retry-After"));
    expect(retryAfter).toBeGreaterThan(60);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const stored = await withDb((db) =>
      db
        .select()
        .from(oauthClients)
        .where(eq(oauthClients.clientName, client(3).client_name)),
    );
    expect(stored).toEqual([]);
    // Another IP registers; this one still signs in (its own budget for the other public routes).
    expect((await limited(low, "POST", "/oauth/register", { "cf-connecting-ip": `${ip}9` }, client(4))).status).toBe(201);
    expect((await limited(low, "POST", "/login/start", from, { email: uniqueEmail("rl") })).status).toBe(200);
  });
});

describe("rate limits in the document", () => {
  it("documents RateLimit-* and 429 with Retry-After on limited operations only", async () => {
    const doc = (await servedOpenApi()).doc as any;
    const limitedOps = [
      ["/tasks/{id}", "get"],
      ["/tasks", "post"],
      ["/signup/start", "post"],
      ["/auth/device/token", "post"],
      ["/invites/redeem", "post"],
    ];
    for (const [path, method] of limitedOps) {
      const responses = doc.paths[path][method].responses;
      expect(responses["429"]?.headers?.["Retry-After"], `${method} ${path}`).toEqual({ $ref: "#/components/headers/Retry-After" });
      expect(Object.keys(responses["200"] ?? responses["201"]).length).toBeGreaterThan(0);
      expect((responses["200"] ?? responses["201"]).headers["RateLimit-Remaining"], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths["/health"].get.responses["429"]).toBeUndefined();
    expect(doc.components.headers["RateLimit-Limit"]).toBeDefined();
  });
});
