import { env } from "cloudflare:test";
import { exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { base64url as b64 } from "../src/core/crypto";
import { api, get } from "./helpers/api";
import { newTenant, type Tenant } from "./helpers/fixtures";

const enc = (o: unknown) => b64(new TextEncoder().encode(JSON.stringify(o)));
const UNAUTHORIZED = { error: { code: "UNAUTHORIZED", message: expect.stringMatching(/Authentication required/) } };

async function sign(claims: Record<string, unknown>, opts: { key?: CryptoKey; exp?: string | number; iss?: string; aud?: string } = {}) {
  const key = opts.key ?? ((await importJWK(JSON.parse(env.JWT_PRIVATE_JWK), "ES256")) as CryptoKey);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256" })
    .setIssuer(opts.iss ?? env.JWT_ISSUER)
    .setAudience(opts.aud ?? env.JWT_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(opts.exp ?? "5m")
    .sign(key);
}

describe("authentication", () => {
  let tenant: Tenant;
  beforeAll(async () => {
    tenant = await newTenant("Auth Co");
  });

  it("rejects a missing credential with the documented 401 body", async () => {
    const res = await get("/me");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it("rejects an unknown API key", async () => {
    const res = await get("/me", "pmk_not-a-real-key-at-all-0000000000000000000");
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it("accepts a valid API key", async () => {
    const res = await get("/me", tenant.owner.key);
    expect(res.status).toBe(200);
    expect(res.body.workspace.id).toBe(tenant.workspaceId);
  });

  it("accepts a valid ES256 JWT carrying the workspace in `wid`", async () => {
    const token = await sign({ sub: tenant.owner.userId, wid: tenant.workspaceId });
    const res = await api("GET", "/me", { bearer: token });
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(tenant.owner.userId);
    expect(res.queries).toBeLessThanOrEqual(2);
  });

  it("rejects alg:none", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = `${enc({ alg: "none", typ: "JWT" })}.${enc({ sub: tenant.owner.userId, wid: tenant.workspaceId, iss: env.JWT_ISSUER, aud: env.JWT_AUDIENCE, exp: now + 300 })}.`;
    const res = await api("GET", "/me", { bearer: token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it("rejects a token signed with another key", async () => {
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const res = await api("GET", "/me", { bearer: await sign({ sub: tenant.owner.userId, wid: tenant.workspaceId }, { key: privateKey }) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it("rejects an HS256 token made with the public key as secret (algorithm confusion)", async () => {
    const pub = (await get("/.well-known/jwks.json")).body.keys[0];
    const secret = new TextEncoder().encode(JSON.stringify(pub));
    const token = await new SignJWT({ sub: tenant.owner.userId, wid: tenant.workspaceId })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(env.JWT_ISSUER)
      .setAudience(env.JWT_AUDIENCE)
      .setExpirationTime("5m")
      .sign(secret);
    expect((await api("GET", "/me", { bearer: token })).status).toBe(401);
  });

  it("rejects an expired token", async () => {
    const token = await sign({ sub: tenant.owner.userId, wid: tenant.workspaceId }, { exp: Math.floor(Date.now() / 1000) - 60 });
    const res = await api("GET", "/me", { bearer: token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it("rejects a wrong issuer or audience", async () => {
    const claims = { sub: tenant.owner.userId, wid: tenant.workspaceId };
    expect((await api("GET", "/me", { bearer: await sign(claims, { iss: "someone-else" }) })).status).toBe(401);
    expect((await api("GET", "/me", { bearer: await sign(claims, { aud: "other-api" }) })).status).toBe(401);
  });

  it("rejects a valid token for a workspace the user is not a member of", async () => {
    const other = await newTenant("Other Co");
    const res = await api("GET", "/me", { bearer: await sign({ sub: tenant.owner.userId, wid: other.workspaceId }) });
    expect(res.status).toBe(401);
  });

  it("rejects garbage bearer tokens", async () => {
    expect((await api("GET", "/me", { bearer: "abc.def.ghi" })).status).toBe(401);
    expect((await api("GET", "/me", { headers: { authorization: "Basic Zm9vOmJhcg==" } })).status).toBe(401);
  });

  it("publishes the verification key without its private part", async () => {
    const res = await get("/.well-known/jwks.json");
    expect(res.status).toBe(200);
    expect(res.body.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" });
    expect(res.body.keys[0].d).toBeUndefined();
    await expect(exportJWK((await importJWK(res.body.keys[0], "ES256")) as CryptoKey)).resolves.toBeTruthy();
  });
});

describe("reads that authenticate inside their own query", () => {
  it("GET /tasks/{ref} costs one round trip, and a bad, expired or orphaned key is still 401, never 404", async () => {
    const { newTeam, withDb, addMember } = await import("./helpers/fixtures");
    const { apiKeys, workspaceMembers } = await import("../drizzle/schema");
    const { eq, and } = await import("drizzle-orm");
    const { post } = await import("./helpers/api");
    const t = await newTenant("Gated");
    const team = await newTeam(t, { prefix: "GAT" });
    const task = (await post("/tasks", { title: "x", teamId: team.id }, t.owner.key)).body.task;

    const found = await get(`/tasks/${task.reference}`, t.owner.key);
    expect(found.status).toBe(200);
    expect(found.body.task.id).toBe(task.id);
    expect(found.queries).toBe(1);

    expect((await get("/tasks/GAT-999", t.owner.key)).status).toBe(404);
    const bad = await get(`/tasks/${task.reference}`, "pmk_unknown-key-000000000000000000000000000000");
    expect(bad.status).toBe(401);
    expect(bad.body).toEqual(UNAUTHORIZED);
    expect((await get("/tasks/GAT-999", "pmk_unknown-key-000000000000000000000000000000")).status).toBe(401);
    expect((await get(`/tasks/${task.reference}`)).status).toBe(401);

    const expiring = await addMember(t, "MEMBER");
    expect((await get(`/tasks/${task.reference}`, expiring.key)).status).toBe(200);
    await withDb((db) =>
      db
        .update(apiKeys)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(eq(apiKeys.userId, expiring.userId)),
    );
    expect((await get(`/tasks/${task.reference}`, expiring.key)).status).toBe(401);

    const leaving = await addMember(t, "MEMBER");
    expect((await get(`/tasks/${task.reference}`, leaving.key)).status).toBe(200);
    await withDb((db) =>
      db.delete(workspaceMembers).where(and(eq(workspaceMembers.userId, leaving.userId), eq(workspaceMembers.workspaceId, t.workspaceId))),
    );
    expect((await get(`/tasks/${task.reference}`, leaving.key)).status).toBe(401);

    const viaJwt = await api("GET", `/tasks/${task.reference}`, { bearer: await sign({ sub: t.owner.userId, wid: t.workspaceId }) });
    expect(viaJwt.status).toBe(200);
    expect(viaJwt.queries).toBe(1);
    const otherWorkspace = await newTenant("Elsewhere");
    const foreign = await api("GET", `/tasks/${task.reference}`, {
      bearer: await sign({ sub: t.owner.userId, wid: otherWorkspace.workspaceId }),
    });
    expect(foreign.status).toBe(401);
  });

  it("records lastUsedAt after a gated read", async () => {
    const { withDb, addMember, newTeam } = await import("./helpers/fixtures");
    const { apiKeys } = await import("../drizzle/schema");
    const { eq } = await import("drizzle-orm");
    const { eventually, post } = await import("./helpers/api");
    const t = await newTenant("Touch");
    const team = await newTeam(t, { prefix: "TCH" });
    await post("/tasks", { title: "x", teamId: team.id }, t.owner.key);
    const m = await addMember(t, "MEMBER");
    const read = await get("/tasks/TCH-1", m.key); // only the gated read: the principal is never loaded
    expect(read.status).toBe(200);
    expect(read.queries).toBe(1);
    const row = await eventually(async () => {
      const [k] = await withDb((db) => db.select().from(apiKeys).where(eq(apiKeys.userId, m.userId)));
      return k.lastUsedAt ? k : undefined;
    });
    expect(row.lastUsedAt).toBeInstanceOf(Date);
  });
});

describe("writes that authenticate inside their own statement", () => {
  it("POST /tasks with a JWT: one round trip; a token for a workspace the user left is 401", async () => {
    const { newTeam, addMember, joinTeam, withDb } = await import("./helpers/fixtures");
    const { workspaceMembers } = await import("../drizzle/schema");
    const { and, eq } = await import("drizzle-orm");
    const { post } = await import("./helpers/api");
    const t = await newTenant("JWT writes");
    const team = await newTeam(t, { prefix: "JWW" });
    const member = await addMember(t, "MEMBER");
    await joinTeam(team, member, "MEMBER");
    const token = await sign({ sub: member.userId, wid: t.workspaceId });
    const res = await api("POST", "/tasks", { bearer: token, body: { title: "via jwt", teamId: team.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.queries).toBe(1);
    expect(res.body.task.reference).toBe("JWW-1");
    await withDb((db) =>
      db.delete(workspaceMembers).where(and(eq(workspaceMembers.userId, member.userId), eq(workspaceMembers.workspaceId, t.workspaceId))),
    );
    const after = await api("POST", "/tasks", { bearer: token, body: { title: "gone", teamId: team.id } });
    expect(after.status).toBe(401);
    expect((await post("/tasks", { title: "next", teamId: team.id }, t.owner.key)).body.task.reference).toBe("JWW-2");
  });
});
