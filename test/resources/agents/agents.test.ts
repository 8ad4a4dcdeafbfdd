import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { users } from "../../../drizzle/schema";
import { del, expectAtomicWrite, get, patch, post } from "../../helpers/api";
import { addMember, type Member, newTenant, type Tenant, withDb } from "../../helpers/fixtures";

describe("agents", () => {
  let t: Tenant;
  let member: Member;
  beforeAll(async () => {
    t = await newTenant("Agents Co");
    member = await addMember(t, "MEMBER");
  });

  it("creates an agent: 201, Location /users/<id>, raw key once, in one transaction", async () => {
    const res = await post("/agents", { name: " Build bot " }, member.key);
    expect(res.status).toBe(201);
    expectAtomicWrite(res);
    const { agent } = res.body;
    expect(agent).toEqual({
      id: expect.stringMatching(/^user_[0-9a-z]{26}$/),
      name: "Build bot",
      type: "AGENT",
      humanId: member.userId,
      apiKey: expect.stringMatching(/^pmk_/),
    });
    expect(res.headers.get("location")).toBe(`/users/${agent.id}`);

    // The key works at once; the agent is a MEMBER of the caller's workspace and shows its owner.
    const me = await get("/me", agent.apiKey);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { id: agent.id, name: "Build bot", type: "AGENT", humanId: member.userId, email: `${agent.id}@agents.pm.invalid` },
      workspace: { id: t.workspaceId },
      role: "MEMBER",
    });
    const asUser = await get(`/users/${agent.id}`, t.owner.key);
    expect(asUser.body.user).toMatchObject({ id: agent.id, type: "AGENT", humanId: member.userId, role: "MEMBER" });

    // Its key is listed for its owner by prefix only, never for others.
    const keys = (await get("/api-keys", member.key)).body.api_keys;
    expect(keys.find((k: any) => k.userId === agent.id)).toMatchObject({ prefix: agent.apiKey.slice(0, 10), workspaceId: t.workspaceId });
    expect(JSON.stringify(keys)).not.toContain(agent.apiKey);
    expect((await get("/api-keys", t.owner.key)).body.api_keys.some((k: any) => k.userId === agent.id)).toBe(false);
  });

  it("gives the agent the rights of a workspace MEMBER", async () => {
    const { agent } = (await post("/agents", { name: "Worker" }, t.owner.key)).body;
    expect((await get("/users", agent.apiKey)).status).toBe(200);
    expect((await post("/labels", { name: `agent-${agent.id}`, color: "#00FF00" }, agent.apiKey)).status).toBe(201);
    // A MEMBER (not ADMIN) cannot change roles, even though its owner is the workspace OWNER.
    expect((await patch(`/users/${agent.id}`, { role: "ADMIN" }, agent.apiKey)).status).toBe(403);
    expect((await del(`/users/${member.userId}`, agent.apiKey)).status).toBe(403);
    expect((await patch(`/workspaces/${t.workspaceId}`, { name: "Agent's" }, agent.apiKey)).status).toBe(403);
  });

  it("refuses an agent caller (403): agents cannot create agents", async () => {
    const { agent } = (await post("/agents", { name: "Parent" }, member.key)).body;
    const res = await post("/agents", { name: "Child" }, agent.apiKey);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    const agentFixture = await addMember(t, "ADMIN", "AGENT");
    expect((await post("/agents", { name: "Child" }, agentFixture.key)).status).toBe(403);
    const children = await withDb((db) => db.select().from(users).where(eq(users.humanId, agent.id)));
    expect(children).toHaveLength(0);
  });

  it("gives every agent its own unique address and key", async () => {
    const a = (await post("/agents", { name: "Twin" }, member.key)).body.agent;
    const b = (await post("/agents", { name: "Twin" }, member.key)).body.agent;
    expect(a.id).not.toBe(b.id);
    expect(a.apiKey).not.toBe(b.apiKey);
    expect((await get("/me", a.apiKey)).body.user.email).not.toBe((await get("/me", b.apiKey)).body.user.email);
  });

  it("validates the body (422) and needs credentials (401)", async () => {
    for (const body of [
      {},
      { name: "" },
      { name: "   " },
      { name: "x".repeat(201) },
      { name: 5 },
      { name: "ok", type: "HUMAN" },
      { name: "ok", humanId: t.owner.userId },
    ]) {
      const res = await post("/agents", body, member.key);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.errors).toBeDefined();
    }
    const res = await post("/agents", { name: "x" }, "pmk_not-a-key-0000000000000000000000000000000");
    expect(res.status).toBe(401);
    expect((await post("/agents", { name: "x" })).status).toBe(401);
  });

  it("puts the agent in the caller's current workspace only", async () => {
    const other = await newTenant();
    const { agent } = (await post("/agents", { name: "Local" }, other.owner.key)).body;
    expect((await get(`/users/${agent.id}`, t.owner.key)).status).toBe(404);
    expect((await get(`/users/${agent.id}`, other.owner.key)).status).toBe(200);
    expect((await get("/workspaces", agent.apiKey)).body.workspaces.map((w: any) => w.id)).toEqual([other.workspaceId]);
  });
});
