import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { teamMembers, workspaceMembers } from "../../../drizzle/schema";
import { signAccessToken } from "../../../src/auth/jwt";
import { newId } from "../../../src/ids";
import { api, del, expectAtomicWrite, get, patch, post, testEnv } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type Tenant, withDb } from "../../helpers/fixtures";
import { walk } from "../../helpers/lists";

const BAD_KEY = "pmk_not-a-key-0000000000000000000000000000000";

const roleIn = (workspaceId: string, userId: string) =>
  withDb(
    async (db) =>
      (
        await db
          .select({ role: workspaceMembers.role })
          .from(workspaceMembers)
          .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
      )[0]?.role ?? null,
  );

async function newAgent(owner: Member, name = "Bot") {
  const res = await post("/agents", { name }, owner.key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.agent as { id: string; name: string; humanId: string; apiKey: string };
}

describe("users", () => {
  let t: Tenant;
  let admin: Member;
  let member: Member;
  beforeAll(async () => {
    t = await newTenant("Users Co");
    admin = await addMember(t, "ADMIN");
    member = await addMember(t, "MEMBER");
  });

  describe("GET /users and /users/{id}", () => {
    it("lists members with their workspace role, in one query", async () => {
      const res = await get("/users", member.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBe(1);
      expect(res.body.pagination).toEqual({ limit: 50, nextCursor: null });
      const byId = Object.fromEntries(res.body.users.map((u: any) => [u.id, u]));
      expect(byId[t.owner.userId]).toMatchObject({ role: "OWNER", type: "HUMAN", humanId: null, email: t.owner.email });
      expect(byId[admin.userId].role).toBe("ADMIN");
      expect(byId[member.userId]).toEqual({
        id: member.userId,
        name: member.name,
        email: member.email,
        avatarUrl: null,
        humanId: null,
        type: "HUMAN",
        handle: expect.stringMatching(/^[a-z0-9][a-z0-9-]{0,38}$/),
        notificationEmail: "mentions",
        role: "MEMBER",
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    });

    it("walks pages, filters, sorts and selects fields; never lists another workspace's users", async () => {
      const w = await newTenant("Many users");
      const people = [w.owner];
      for (let i = 0; i < 8; i++) people.push(await addMember(w, i % 3 === 0 ? "ADMIN" : "MEMBER"));
      const bot = await newAgent(w.owner);
      const all = await walk("/users", "users", w.owner.key, 3);
      expect(all.map((u) => u.id)).toEqual([...people.map((p) => p.userId), bot.id]);
      const byEmail = await walk("/users?sort[email]=desc", "users", w.owner.key, 4);
      expect(byEmail.map((u) => u.email)).toEqual([...byEmail.map((u) => u.email)].sort().reverse());
      const admins = await get("/users?filter[eq][role]=ADMIN&fields=id,role", w.owner.key);
      expect(admins.body.users).toEqual(
        people
          .slice(1)
          .filter((_, i) => i % 3 === 0)
          .map((p) => ({ id: p.userId, role: "ADMIN" })),
      );
      const agents = await get("/users?filter[eq][type]=AGENT", w.owner.key);
      expect(agents.body.users).toEqual([expect.objectContaining({ id: bot.id, humanId: w.owner.userId, type: "AGENT", role: "MEMBER" })]);
      const humans = await get("/users?filter[eq][humanId]=null", w.owner.key);
      expect(humans.body.users).toHaveLength(people.length);
      expect(all.map((u) => u.id)).not.toContain(t.owner.userId);
      expect((await get("/users?filter[eq][password]=x", w.owner.key)).status).toBe(400);
      expect((await get("/users?fields=password", w.owner.key)).status).toBe(400);
      expect((await get("/users?limit=251", w.owner.key)).status).toBe(422);
    });

    it("gets a member in one query, with fields; 404 for another workspace's user or an unknown id; 401 for a bad key", async () => {
      const res = await get(`/users/${admin.userId}`, member.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBe(1);
      expect(res.body.user).toMatchObject({ id: admin.userId, name: admin.name, role: "ADMIN", type: "HUMAN", humanId: null });
      expect((await get(`/users/${admin.userId}?fields=id,email`, member.key)).body.user).toEqual({ id: admin.userId, email: admin.email });
      const other = await newTenant();
      for (const id of [other.owner.userId, newId("user")]) {
        const miss = await get(`/users/${id}`, member.key);
        expect(miss.status).toBe(404);
        expect(miss.body.error.code).toBe("NOT_FOUND");
      }
      expect((await get(`/users/${admin.userId}`, BAD_KEY)).status).toBe(401);
      expect((await get("/users", BAD_KEY)).status).toBe(401);
    });
  });

  describe("PATCH /users/{id}", () => {
    it("lets a user change their own name and avatar in one transaction", async () => {
      const me = await addMember(t);
      const res = await patch(`/users/${me.userId}`, { name: "  New Name ", avatarUrl: "https://img.example.com/a.png" }, me.key);
      expect(res.status).toBe(200);
      expectAtomicWrite(res);
      expect(res.body.user).toMatchObject({ id: me.userId, name: "New Name", avatarUrl: "https://img.example.com/a.png", role: "MEMBER" });
      expect((await patch(`/users/${me.userId}`, { avatarUrl: null }, me.key)).body.user.avatarUrl).toBeNull();
      expect((await get("/me", me.key)).body.user.name).toBe("New Name");
    });

    it("refuses to edit another user's name or avatar (403), even for the OWNER", async () => {
      for (const caller of [member, admin, t.owner]) {
        const res = await patch(`/users/${(await addMember(t)).userId}`, { name: "Hacked" }, caller.key);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      expect((await patch(`/users/${member.userId}`, { avatarUrl: "https://x.example/y.png" }, admin.key)).status).toBe(403);
    });

    it("lets a human edit their own agent's name", async () => {
      const bot = await newAgent(member, "Helper");
      const res = await patch(`/users/${bot.id}`, { name: "Renamed helper" }, member.key);
      expect(res.status).toBe(200);
      expect(res.body.user).toMatchObject({ id: bot.id, name: "Renamed helper", type: "AGENT", humanId: member.userId });
      expect((await patch(`/users/${bot.id}`, { name: "Mine now" }, admin.key)).status).toBe(403);
    });

    it("lets ADMIN/OWNER change roles; a MEMBER changing any role is 403", async () => {
      const target = await addMember(t);
      const byMember = await patch(`/users/${target.userId}`, { role: "ADMIN" }, member.key);
      expect(byMember.status).toBe(403);
      expect((await patch(`/users/${member.userId}`, { role: "ADMIN" }, member.key)).status).toBe(403);
      const byAdmin = await patch(`/users/${target.userId}`, { role: "ADMIN" }, admin.key);
      expect(byAdmin.status).toBe(200);
      expectAtomicWrite(byAdmin);
      expect(byAdmin.body.user.role).toBe("ADMIN");
      expect((await get(`/users/${target.userId}`, member.key)).body.user.role).toBe("ADMIN");
      expect((await patch(`/users/${target.userId}`, { role: "MEMBER" }, t.owner.key)).body.user.role).toBe("MEMBER");
    });

    it("only an OWNER grants or takes away OWNER", async () => {
      const target = await addMember(t);
      expect((await patch(`/users/${target.userId}`, { role: "OWNER" }, admin.key)).status).toBe(403);
      expect((await patch(`/users/${admin.userId}`, { role: "OWNER" }, admin.key)).status).toBe(403);
      expect(await roleIn(t.workspaceId, target.userId)).toBe("MEMBER");
      expect((await patch(`/users/${target.userId}`, { role: "OWNER" }, t.owner.key)).body.user.role).toBe("OWNER");
      expect((await patch(`/users/${target.userId}`, { role: "ADMIN" }, admin.key)).status).toBe(403);
      expect((await patch(`/users/${target.userId}`, { role: "MEMBER" }, t.owner.key)).body.user.role).toBe("MEMBER");
    });

    it("keeps the last OWNER (409)", async () => {
      const w = await newTenant();
      const res = await patch(`/users/${w.owner.userId}`, { role: "ADMIN" }, w.owner.key);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("CONFLICT");
      expect(await roleIn(w.workspaceId, w.owner.userId)).toBe("OWNER");
      // With a second OWNER the first may step down.
      const second = await addMember(w, "OWNER");
      expect((await patch(`/users/${w.owner.userId}`, { role: "ADMIN" }, w.owner.key)).status).toBe(200);
      expect((await patch(`/users/${second.userId}`, { role: "MEMBER" }, second.key)).status).toBe(409);
    });

    it("keeps the last OWNER under concurrent demotions", async () => {
      for (let round = 0; round < 3; round++) {
        const w = await newTenant();
        const second = await addMember(w, "OWNER");
        const results = await Promise.all([
          patch(`/users/${second.userId}`, { role: "ADMIN" }, w.owner.key),
          patch(`/users/${w.owner.userId}`, { role: "ADMIN" }, second.key),
        ]);
        const [first, second_] = results.map((r) => r.status).sort();
        expect(first).toBe(200);
        // The other is refused: 409 (last OWNER) when both passed the role check, 403 when its caller was already demoted.
        expect([403, 409]).toContain(second_);
        const roles = [await roleIn(w.workspaceId, w.owner.userId), await roleIn(w.workspaceId, second.userId)];
        expect(roles.filter((r) => r === "OWNER")).toHaveLength(1);
      }
    });

    it("keeps the last OWNER when both OWNERs step down at once (the owner rows are locked)", async () => {
      // Each caller keeps the OWNER role until its own request commits, so both pass the role check and the lock decides.
      for (let round = 0; round < 4; round++) {
        const w = await newTenant();
        const second = await addMember(w, "OWNER");
        const results = await Promise.all([
          patch(`/users/${w.owner.userId}`, { role: "ADMIN" }, w.owner.key),
          patch(`/users/${second.userId}`, { role: "MEMBER" }, second.key),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        const roles = [await roleIn(w.workspaceId, w.owner.userId), await roleIn(w.workspaceId, second.userId)];
        expect(roles.filter((r) => r === "OWNER")).toHaveLength(1);
      }
    });

    it("validates the body (422) and hides other workspaces' users (404)", async () => {
      for (const body of [
        { role: "BOSS" },
        { name: "" },
        { name: "x".repeat(201) },
        { avatarUrl: "not a url" },
        { avatarUrl: "javascript:alert(1)" },
        { email: "a@b.c" },
        { type: "AGENT" },
      ]) {
        const res = await patch(`/users/${member.userId}`, body, member.key);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.errors).toBeDefined();
      }
      const other = await newTenant();
      for (const id of [other.owner.userId, newId("user")]) {
        expect((await patch(`/users/${id}`, { role: "MEMBER" }, t.owner.key)).status).toBe(404);
        expect((await patch(`/users/${id}`, { name: "x" }, t.owner.key)).status).toBe(404);
      }
      expect(await roleIn(other.workspaceId, other.owner.userId)).toBe("OWNER");
      expect((await patch(`/users/${member.userId}`, { name: "x" }, BAD_KEY)).status).toBe(401);
    });
  });

  describe("DELETE /users/{id}", () => {
    it("removes a member: 204 in one transaction; their keys, team memberships and agents (with their keys) go", async () => {
      const w = await newTenant();
      const leaving = await addMember(w);
      const team = await newTeam(w);
      await joinTeam(team, leaving, "MEMBER");
      const bot = await newAgent(leaving);
      await joinTeam(team, { key: bot.apiKey, userId: bot.id, email: "", name: bot.name }, "MEMBER");
      const extra = (await post("/api-keys", { name: "second" }, leaving.key)).body.key;
      expect((await get("/me", bot.apiKey)).status).toBe(200);

      const res = await del(`/users/${leaving.userId}`, w.owner.key);
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expectAtomicWrite(res);

      for (const key of [leaving.key, extra, bot.apiKey]) {
        const after = await get("/me", key);
        expect(after.status).toBe(401);
        expect(after.body.error.code).toBe("UNAUTHORIZED");
      }
      expect((await get(`/users/${leaving.userId}`, w.owner.key)).status).toBe(404);
      expect((await get(`/users/${bot.id}`, w.owner.key)).status).toBe(404);
      const rows = await withDb((db) => db.select().from(teamMembers).where(eq(teamMembers.teamId, team.id)));
      expect(rows.map((r) => r.userId)).toEqual([w.owner.userId]);
      expect((await get("/users", w.owner.key)).body.users.map((u: any) => u.id)).toEqual([w.owner.userId]);
    });

    it("also shuts out the member's Bearer tokens for the workspace", async () => {
      const w = await newTenant();
      const leaving = await addMember(w);
      const { token } = await signAccessToken(testEnv, { sub: leaving.userId, wid: w.workspaceId });
      const before = await api("GET", "/users", { bearer: token });
      expect(before.status).toBe(200);
      expect(before.queries).toBe(1);
      expect((await api("GET", `/workspaces/${w.workspaceId}`, { bearer: token })).status).toBe(200);
      expect((await del(`/users/${leaving.userId}`, w.owner.key)).status).toBe(204);
      for (const path of ["/me", "/users", `/users/${w.owner.userId}`, "/workspaces", `/workspaces/${w.workspaceId}`, "/api-keys"]) {
        expect((await api("GET", path, { bearer: token })).status, path).toBe(401);
      }
    });

    it("keeps a member's membership of other workspaces", async () => {
      const a = await newTenant();
      const b = await newTenant();
      const person = await addMember(a);
      const keyInB = await withDb(async (db) => {
        const { joinWorkspaceWithKey } = await import("../../../src/auth/accounts/membership");
        return joinWorkspaceWithKey(db, { workspaceId: b.workspaceId, userId: person.userId, role: "MEMBER", keyName: "b" });
      });
      expect((await del(`/users/${person.userId}`, a.owner.key)).status).toBe(204);
      expect((await get("/me", person.key)).status).toBe(401);
      expect((await get("/me", keyInB)).body.workspace.id).toBe(b.workspaceId);
      expect((await get(`/users/${person.userId}`, b.owner.key)).status).toBe(200);
    });

    it("needs ADMIN/OWNER (a MEMBER: 403), except to leave oneself or remove one's own agent", async () => {
      const w = await newTenant();
      const plain = await addMember(w);
      const target = await addMember(w);
      const res = await del(`/users/${target.userId}`, plain.key);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
      expect((await get("/me", target.key)).status).toBe(200);
      const bot = await newAgent(plain);
      expect((await del(`/users/${bot.id}`, target.key)).status).toBe(403);
      expect((await del(`/users/${bot.id}`, plain.key)).status).toBe(204);
      expect((await get("/me", bot.apiKey)).status).toBe(401);
      expect((await del(`/users/${plain.userId}`, plain.key)).status).toBe(204);
      expect((await get("/me", plain.key)).status).toBe(401);
      const admin2 = await addMember(w, "ADMIN");
      expect((await del(`/users/${target.userId}`, admin2.key)).status).toBe(204);
    });

    it("only an OWNER removes an OWNER, and never the last one (409)", async () => {
      const w = await newTenant();
      const wAdmin = await addMember(w, "ADMIN");
      const last = await del(`/users/${w.owner.userId}`, w.owner.key);
      expect(last.status).toBe(409);
      expect(last.body.error.code).toBe("CONFLICT");
      expect((await del(`/users/${w.owner.userId}`, wAdmin.key)).status).toBe(403);
      const second = await addMember(w, "OWNER");
      expect((await del(`/users/${second.userId}`, wAdmin.key)).status).toBe(403);
      expect((await del(`/users/${second.userId}`, w.owner.key)).status).toBe(204);
      expect((await get("/me", w.owner.key)).body.role).toBe("OWNER");
    });

    it("keeps the last OWNER when two OWNERs remove each other at once", async () => {
      for (let round = 0; round < 3; round++) {
        const w = await newTenant();
        const second = await addMember(w, "OWNER");
        const results = await Promise.all([del(`/users/${second.userId}`, w.owner.key), del(`/users/${w.owner.userId}`, second.key)]);
        const statuses = results.map((r) => r.status).sort();
        expect(statuses[0]).toBe(204);
        // The other is refused: 409 (last OWNER), or 401 when its caller was already removed.
        expect([401, 409]).toContain(statuses[1]);
        const roles = [await roleIn(w.workspaceId, w.owner.userId), await roleIn(w.workspaceId, second.userId)];
        expect(roles.filter((r) => r === "OWNER")).toHaveLength(1);
      }
    });

    it("keeps the last OWNER when both OWNERs leave at once", async () => {
      for (let round = 0; round < 4; round++) {
        const w = await newTenant();
        const second = await addMember(w, "OWNER");
        const results = await Promise.all([del(`/users/${w.owner.userId}`, w.owner.key), del(`/users/${second.userId}`, second.key)]);
        expect(results.map((r) => r.status).sort()).toEqual([204, 409]);
        const roles = [await roleIn(w.workspaceId, w.owner.userId), await roleIn(w.workspaceId, second.userId)];
        expect(roles.filter((r) => r === "OWNER")).toHaveLength(1);
      }
    });

    it("is 404 for another workspace's user or an unknown id, and changes nothing there", async () => {
      const other = await newTenant();
      const stranger = await addMember(other);
      for (const id of [stranger.userId, other.owner.userId, newId("user")]) {
        const res = await del(`/users/${id}`, t.owner.key);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
      }
      expect((await get("/me", stranger.key)).status).toBe(200);
      expect((await del(`/users/${stranger.userId}`, BAD_KEY)).status).toBe(401);
    });
  });
});

describe("people and access in the OpenAPI document", () => {
  it("documents every operation with its operationId, auth and errors", async () => {
    const doc = (await get("/openapi.json")).body;
    const ops: Array<[string, string, string]> = [
      ["/users", "get", "listUsers"],
      ["/users/{id}", "get", "getUser"],
      ["/users/{id}", "patch", "updateUser"],
      ["/users/{id}", "delete", "deleteUser"],
      ["/workspaces", "get", "listWorkspaces"],
      ["/workspaces/{id}", "get", "getWorkspace"],
      ["/workspaces/{id}", "patch", "updateWorkspace"],
      ["/agents", "post", "createAgent"],
      ["/api-keys", "post", "createApiKey"],
      ["/api-keys", "get", "listApiKeys"],
      ["/api-keys/{id}", "delete", "deleteApiKey"],
    ];
    for (const [path, method, operationId] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op?.operationId, `${method} ${path}`).toBe(operationId);
      expect(op.summary).toBeTruthy();
      expect(op.security.length).toBeGreaterThan(0);
      expect(op.responses["401"]).toBeDefined();
    }
    expect(Object.keys(doc.paths["/users/{id}"].patch.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "403",
      "404",
      "409",
      "412",
      "413",
      "422",
      "429",
      "500",
      "503",
    ]);
    expect(Object.keys(doc.paths["/agents"].post.responses).sort()).toEqual([
      "201",
      "400",
      "401",
      "403",
      "404",
      "409",
      "413",
      "422",
      "429",
      "500",
      "503",
    ]);
    expect(Object.keys(doc.components.schemas.ApiKey.properties).sort()).toEqual([
      "createdAt",
      "expiresAt",
      "id",
      "lastUsedAt",
      "name",
      "prefix",
      "reads",
      "scopes",
      "teamIds",
      "userId",
      "workspaceId",
    ]);
    expect(doc.paths["/users/{id}"].get.responses["200"].content["application/json"].schema.properties.user.$ref).toBe(
      "#/components/schemas/WorkspaceUserSelection",
    );
    expect(JSON.stringify(doc.components.schemas.WorkspaceUser)).toContain('"role"');
  });
});
