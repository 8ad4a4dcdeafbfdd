import { eq, type SQLWrapper, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../drizzle/schema";
import { issueApiKey } from "../src/auth/accounts/membership";
import { READABLE, SCOPES } from "../src/core/scopes";
import { newId } from "../src/ids";
import { api, del, eventually, get, post } from "./helpers/api";
import { addMember, type Member, newTenant, type Tenant, withDb } from "./helpers/fixtures";
import { walk } from "./helpers/lists";

const BAD_KEY = "pmk_not-a-key-0000000000000000000000000000000";
const KEY_FIELDS = ["createdAt", "expiresAt", "id", "lastUsedAt", "name", "prefix", "reads", "scopes", "teamIds", "userId", "workspaceId"];

async function sha256Hex(text: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("API keys", () => {
  let t: Tenant;
  let member: Member;
  beforeAll(async () => {
    t = await newTenant("Keys Co");
    member = await addMember(t, "MEMBER");
  });

  describe("POST /api-keys", () => {
    it("creates a key for the caller: 201, Location, the raw key once, in one statement that authenticates itself", async () => {
      const res = await post("/api-keys", { name: " CI " }, member.key);
      expect(res.status).toBe(201);
      expect(res.queries).toBe(1);
      const { apiKey, key } = res.body;
      expect(res.headers.get("location")).toBe(`/api-keys/${apiKey.id}`);
      expect(key).toMatch(/^pmk_[A-Za-z0-9_-]{43}$/);
      expect(Object.keys(apiKey).sort()).toEqual(KEY_FIELDS);
      expect(apiKey).toEqual({
        id: expect.stringMatching(/^apik_[0-9a-z]{26}$/),
        name: "CI",
        prefix: key.slice(0, 10),
        userId: member.userId,
        workspaceId: t.workspaceId,
        createdAt: expect.stringMatching(/Z$/),
        lastUsedAt: null,
        expiresAt: null,
        scopes: [...SCOPES],
        reads: [...READABLE].sort(),
        teamIds: null,
      });
      expect((await get("/me", key)).body).toMatchObject({ user: { id: member.userId }, workspace: { id: t.workspaceId }, role: "MEMBER" });
    });

    it("takes a future expiresAt; a past one, a bad date or a bad body is 422", async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const ok = await post("/api-keys", { name: "Later", expiresAt }, member.key);
      expect(ok.status).toBe(201);
      expect(ok.body.apiKey.expiresAt).toBe(expiresAt);
      expect((await post("/api-keys", { name: "Offset", expiresAt: "2999-01-01T10:00:00+02:00" }, member.key)).body.apiKey.expiresAt).toBe(
        "2999-01-01T08:00:00.000Z",
      );
      expect((await post("/api-keys", { name: "Never", expiresAt: null }, member.key)).body.apiKey.expiresAt).toBeNull();
      const bodies = [
        { name: "Past", expiresAt: new Date(Date.now() - 1000).toISOString() },
        { name: "Bad", expiresAt: "tomorrow" },
        { name: "Date only", expiresAt: "2999-01-01" },
        { name: "" },
        { name: "x".repeat(201) },
        {},
        { name: "Extra", userId: t.owner.userId },
        { name: "Extra", workspaceId: t.workspaceId },
      ];
      for (const body of bodies) {
        const res = await post("/api-keys", body, member.key);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.errors).toBeDefined();
      }
      expect(
        (await post("/api-keys", { name: "Past", expiresAt: "2000-01-01T00:00:00Z" }, member.key)).body.errors.expiresAt,
      ).toBeDefined();
      expect((await post("/api-keys", { name: "x" }, BAD_KEY)).status).toBe(401);
    });
  });

  describe("GET /api-keys", () => {
    it("lists the caller's keys and their agents' keys, in one query, never the raw key or its hash", async () => {
      const w = await newTenant();
      const human = await addMember(w);
      const bystander = await addMember(w);
      const { agent } = (await post("/agents", { name: "Bot" }, human.key)).body;
      const created = (await post("/api-keys", { name: "extra" }, human.key)).body;
      await post("/api-keys", { name: "bystander's" }, bystander.key);
      const res = await get("/api-keys", human.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBe(1);
      expect(res.body.pagination).toEqual({ limit: 50, nextCursor: null });
      const keys = res.body.api_keys;
      expect(keys.map((k: any) => k.userId)).toEqual([human.userId, agent.id, human.userId]);
      expect(keys.map((k: any) => k.name)).toEqual(["test", "Agent key", "extra"]);
      for (const k of keys) {
        expect(Object.keys(k).sort()).toEqual(KEY_FIELDS);
        expect(k.workspaceId).toBe(w.workspaceId);
      }
      const text = JSON.stringify(res.body);
      for (const raw of [human.key, agent.apiKey, created.key]) {
        expect(text).not.toContain(raw);
        expect(text).not.toContain(await sha256Hex(raw));
      }
      expect(keys.find((k: any) => k.userId === agent.id).prefix).toBe(agent.apiKey.slice(0, 10));
      // The agent sees its own key only; the bystander never sees the human's.
      expect((await get("/api-keys", agent.apiKey)).body.api_keys.map((k: any) => k.userId)).toEqual([agent.id]);
      expect((await get("/api-keys", bystander.key)).body.api_keys.every((k: any) => k.userId === bystander.userId)).toBe(true);
      expect((await get("/api-keys?fields=hash", human.key)).status).toBe(400);
      expect((await get("/api-keys?fields=keyHash", human.key)).status).toBe(400);
      expect((await get("/api-keys", BAD_KEY)).status).toBe(401);
    });

    it("keeps to the current workspace", async () => {
      const other = await newTenant();
      const keyThere = await withDb((db) => issueApiKey(db, { workspaceId: other.workspaceId, userId: other.owner.userId, name: "there" }));
      expect(keyThere).toMatch(/^pmk_/);
      const mine = (await get("/api-keys", t.owner.key)).body.api_keys;
      expect(mine.every((k: any) => k.workspaceId === t.workspaceId && k.userId === t.owner.userId)).toBe(true);
    });

    it("walks pages, filters, sorts and selects fields", async () => {
      const w = await newTenant();
      for (let i = 0; i < 9; i++) await post("/api-keys", { name: `k${i}` }, w.owner.key);
      const all = await walk("/api-keys", "api_keys", w.owner.key, 4);
      expect(all.map((k) => k.name)).toEqual(["test", ...Array.from({ length: 9 }, (_, i) => `k${i}`)]);
      const desc = await walk("/api-keys?sort[name]=desc", "api_keys", w.owner.key, 3);
      expect(desc.map((k) => k.name)).toEqual(
        all
          .map((k) => k.name)
          .sort()
          .reverse(),
      );
      const some = await get("/api-keys?filter[startsWith][name]=k&filter[eq][expiresAt]=null&fields=name", w.owner.key);
      expect(some.body.api_keys).toEqual(Array.from({ length: 9 }, (_, i) => ({ name: `k${i}` })));
      expect((await get("/api-keys?sort[keyHash]=asc", w.owner.key)).status).toBe(400);
      expect((await get("/api-keys?limit=0", w.owner.key)).status).toBe(422);
    });

    it("records lastUsedAt after a key is used, without a query in the request", async () => {
      const { apiKey, key } = (await post("/api-keys", { name: "touch me" }, member.key)).body;
      const before = (await get(`/api-keys?filter[eq][id]=${apiKey.id}`, member.key)).body.api_keys[0];
      expect(before.lastUsedAt).toBeNull();
      const used = await get(`/users/${member.userId}`, key);
      expect(used.status).toBe(200);
      expect(used.queries).toBe(1);
      const after = await eventually(async () => {
        const row = (await get(`/api-keys?filter[eq][id]=${apiKey.id}`, member.key)).body.api_keys[0];
        return row.lastUsedAt ? row : null;
      });
      expect(Date.parse(after.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(apiKey.createdAt));
    });
  });

  describe("keys that stop working", () => {
    it("refuses an expired key (401)", async () => {
      const expired = await withDb((db) =>
        issueApiKey(db, { workspaceId: t.workspaceId, userId: member.userId, name: "old", expiresAt: new Date(Date.now() - 1000) }),
      );
      for (const path of ["/me", "/users", `/users/${member.userId}`, "/api-keys", "/workspaces"]) {
        const res = await get(path, expired);
        expect(res.status, path).toBe(401);
        expect(res.body.error.code).toBe("UNAUTHORIZED");
      }
      expect((await post("/api-keys", { name: "x" }, expired)).status).toBe(401);
    });

    it("refuses a key once its expiresAt passes", async () => {
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
      const { key, apiKey } = (await post("/api-keys", { name: "short", expiresAt }, member.key)).body;
      expect((await get("/me", key)).status).toBe(200);
      // The database's clock judges expiry; the key's times move an hour and a minute back, as that long a wait would
      // (a real wait of a short expiry raced the create on a loaded machine).
      const aged = (column: SQLWrapper) => sql`${column} - interval '61 minutes'`;
      await withDb((db) =>
        db
          .update(apiKeys)
          .set({ createdAt: aged(apiKeys.createdAt), expiresAt: aged(apiKeys.expiresAt) })
          .where(eq(apiKeys.id, apiKey.id)),
      );
      expect((await get("/me", key)).status).toBe(401);
    });
  });

  describe("DELETE /api-keys/{id}", () => {
    it("deletes one's own key (204, one statement that authenticates itself); the key is 401 at once", async () => {
      const { apiKey, key } = (await post("/api-keys", { name: "doomed" }, member.key)).body;
      const res = await del(`/api-keys/${apiKey.id}`, member.key);
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expect(res.queries).toBe(1);
      expect((await get("/me", key)).status).toBe(401);
      expect((await get("/users", key)).status).toBe(401);
      expect((await get("/api-keys", member.key)).body.api_keys.some((k: any) => k.id === apiKey.id)).toBe(false);
      expect((await del(`/api-keys/${apiKey.id}`, member.key)).status).toBe(404);
    });

    it("GET /api-keys/{id} reads one key as the list shows it; DELETE honours its ETag in If-Match (412 when stale, the key stays)", async () => {
      const { apiKey, key } = (await post("/api-keys", { name: "conditional" }, member.key)).body;
      const read = await get(`/api-keys/${apiKey.id}`, member.key);
      expect(read.status).toBe(200);
      expect(read.body.apiKey).toEqual(apiKey);
      expect(read.queries).toBeLessThanOrEqual(2);
      expect((await get(`/api-keys/${apiKey.id}?fields=id,prefix`, member.key)).body.apiKey).toEqual({
        id: apiKey.id,
        prefix: apiKey.prefix,
      });
      const etag = read.headers.get("etag")!;
      // Using the key moves lastUsedAt: the representation changed, the tag is stale.
      await withDb((db) => db.update(apiKeys).set({ lastUsedAt: new Date() }).where(eq(apiKeys.id, apiKey.id)));
      const stale = await api("DELETE", `/api-keys/${apiKey.id}`, { key: member.key, headers: { "if-match": etag } });
      expect(stale.status).toBe(412);
      expect(stale.body.error.code).toBe("PRECONDITION_FAILED");
      expect((await get("/me", key)).status).toBe(200);
      const current = (await get(`/api-keys/${apiKey.id}`, member.key)).headers.get("etag")!;
      expect((await api("DELETE", `/api-keys/${apiKey.id}`, { key: member.key, headers: { "if-match": current } })).status).toBe(204);
      expect((await get("/me", key)).status).toBe(401);
    });

    it("may delete the very key it is called with", async () => {
      const { apiKey, key } = (await post("/api-keys", { name: "self" }, member.key)).body;
      expect((await del(`/api-keys/${apiKey.id}`, key)).status).toBe(204);
      expect((await get("/me", key)).status).toBe(401);
    });

    it("deletes one's agents' keys; the agent is then 401", async () => {
      const human = await addMember(t);
      const { agent } = (await post("/agents", { name: "Bot" }, human.key)).body;
      const keyId = (await get(`/api-keys?filter[eq][userId]=${agent.id}`, human.key)).body.api_keys[0].id;
      expect((await del(`/api-keys/${keyId}`, human.key)).status).toBe(204);
      expect((await get("/me", agent.apiKey)).status).toBe(401);
    });

    it("is 404 for anyone else's key: another member's, the owner's agent's, another workspace's, unknown", async () => {
      const other = await newTenant();
      const strangerKey = (await post("/api-keys", { name: "theirs" }, other.owner.key)).body;
      const ownerKey = (await post("/api-keys", { name: "owner's" }, t.owner.key)).body;
      const { agent } = (await post("/agents", { name: "Owner's bot" }, t.owner.key)).body;
      const agentKeyId = (await get("/api-keys", agent.apiKey)).body.api_keys[0].id;
      const human = await addMember(t);
      const { agent: humansAgent } = (await post("/agents", { name: "Helper" }, human.key)).body;
      const cases: Array<[string, string]> = [
        [ownerKey.apiKey.id, member.key], // another member's key, even in the same workspace
        [agentKeyId, member.key], // someone else's agent
        [strangerKey.apiKey.id, t.owner.key], // another workspace
        [newId("apik"), member.key],
      ];
      for (const [id, key] of cases) {
        const res = await del(`/api-keys/${id}`, key);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
        expect((await get(`/api-keys/${id}`, key)).status).toBe(404);
      }
      // An ADMIN/OWNER cannot revoke others' keys either; an agent cannot revoke its owner's keys.
      const humansKeyId = (await get(`/api-keys?filter[eq][userId]=${human.userId}`, human.key)).body.api_keys[0].id;
      expect((await del(`/api-keys/${humansKeyId}`, t.owner.key)).status).toBe(404);
      expect((await del(`/api-keys/${humansKeyId}`, humansAgent.apiKey)).status).toBe(404);
      expect((await del(`/api-keys/${ownerKey.apiKey.id}`, BAD_KEY)).status).toBe(401);
      for (const key of [ownerKey.key, agent.apiKey, strangerKey.key, human.key]) expect((await get("/me", key)).status).toBe(200);
    });
  });
});
