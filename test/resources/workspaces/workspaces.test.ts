import { beforeAll, describe, expect, it } from "vitest";
import { joinWorkspaceWithKey } from "../../../src/auth/accounts/membership";
import { newId } from "../../../src/ids";
import { get, patch } from "../../helpers/api";
import { addMember, type Member, newTenant, type Tenant, withDb } from "../../helpers/fixtures";
import { walk } from "../../helpers/lists";

const BAD_KEY = "pmk_not-a-key-0000000000000000000000000000000";

/** Makes an existing user a member of another workspace and returns their key there. */
const join = (tenant: Tenant, member: Member, role: "MEMBER" | "ADMIN" | "OWNER" = "MEMBER") =>
  withDb((db) => joinWorkspaceWithKey(db, { workspaceId: tenant.workspaceId, userId: member.userId, role, keyName: "test" }));

let slugCounter = 0;
const freshSlug = () => `ws-${Date.now().toString(36)}-${(slugCounter++).toString(36)}`;

describe("workspaces", () => {
  let t: Tenant;
  let admin: Member;
  let member: Member;
  beforeAll(async () => {
    t = await newTenant("Workspaces Co");
    admin = await addMember(t, "ADMIN");
    member = await addMember(t, "MEMBER");
  });

  it("lists the caller's workspaces (all of them) in one query, paginated", async () => {
    const others = [await newTenant("Second"), await newTenant("Third"), await newTenant("Fourth")];
    for (const o of others) await join(o, member);
    const res = await get("/workspaces", member.key);
    expect(res.status).toBe(200);
    expect(res.queries).toBe(1);
    expect(res.body.workspaces.map((w: any) => w.id).sort()).toEqual([t.workspaceId, ...others.map((o) => o.workspaceId)].sort());
    expect(res.body.workspaces.find((w: any) => w.id === t.workspaceId)).toEqual({
      id: t.workspaceId,
      name: "Workspaces Co",
      slug: t.slug,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const pages = await walk("/workspaces", "workspaces", member.key, 1);
    expect(pages.map((w) => w.id)).toEqual(res.body.workspaces.map((w: any) => w.id));
    const named = await get("/workspaces?filter[eq][name]=Third&fields=name", member.key);
    expect(named.body.workspaces).toEqual([{ name: "Third" }]);
    const desc = await get("/workspaces?sort[createdAt]=desc", member.key);
    expect(desc.body.workspaces.map((w: any) => w.id)).toEqual(res.body.workspaces.map((w: any) => w.id).reverse());
    // Another tenant's owner sees only their own workspace.
    expect((await get("/workspaces", others[0].owner.key)).body.workspaces.map((w: any) => w.id)).toEqual([others[0].workspaceId]);
    expect((await get("/workspaces?sort[secret]=asc", member.key)).status).toBe(400);
    expect((await get("/workspaces", BAD_KEY)).status).toBe(401);
  });

  it("gets a workspace of the caller in one query, with fields; 404 for a workspace they are not in", async () => {
    const res = await get(`/workspaces/${t.workspaceId}`, member.key);
    expect(res.status).toBe(200);
    expect(res.queries).toBe(1);
    expect(res.body.workspace).toMatchObject({ id: t.workspaceId, slug: t.slug });
    expect((await get(`/workspaces/${t.workspaceId}?fields=slug`, member.key)).body.workspace).toEqual({ slug: t.slug });
    const other = await newTenant();
    for (const id of [other.workspaceId, newId("ws")]) {
      const miss = await get(`/workspaces/${id}`, member.key);
      expect(miss.status).toBe(404);
      expect(miss.body.error.code).toBe("NOT_FOUND");
    }
    expect((await get(`/workspaces/${t.workspaceId}`, BAD_KEY)).status).toBe(401);
  });

  it("lets an ADMIN or OWNER rename it and change its slug, in one statement that authenticates itself", async () => {
    const slug = freshSlug();
    const res = await patch(`/workspaces/${t.workspaceId}`, { name: "Renamed Co", slug }, admin.key);
    expect(res.status).toBe(200);
    expect(res.queries).toBe(1);
    expect(res.body.workspace).toMatchObject({ id: t.workspaceId, name: "Renamed Co", slug });
    expect(Date.parse(res.body.workspace.updatedAt)).toBeGreaterThanOrEqual(Date.parse(res.body.workspace.createdAt));
    expect((await get("/me", member.key)).body.workspace).toMatchObject({ name: "Renamed Co", slug });
    expect((await patch(`/workspaces/${t.workspaceId}`, { name: "Owner's name" }, t.owner.key)).body.workspace.name).toBe("Owner's name");
  });

  it("refuses a MEMBER (403) and a non-member (404), changing nothing", async () => {
    const before = (await get(`/workspaces/${t.workspaceId}`, member.key)).body.workspace;
    const res = await patch(`/workspaces/${t.workspaceId}`, { name: "Mine" }, member.key);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    const other = await newTenant();
    for (const id of [other.workspaceId, newId("ws")]) {
      const miss = await patch(`/workspaces/${id}`, { name: "Taken over" }, t.owner.key);
      expect(miss.status).toBe(404);
    }
    expect((await get(`/workspaces/${other.workspaceId}`, other.owner.key)).body.workspace.name).not.toBe("Taken over");
    expect((await get(`/workspaces/${t.workspaceId}`, member.key)).body.workspace).toEqual(before);
    expect((await patch(`/workspaces/${t.workspaceId}`, { name: "x" }, BAD_KEY)).status).toBe(401);
  });

  it("acts on another workspace by the caller's role there", async () => {
    const other = await newTenant("Elsewhere");
    await join(other, admin, "MEMBER");
    expect((await patch(`/workspaces/${other.workspaceId}`, { name: "No" }, admin.key)).status).toBe(403);
    const third = await newTenant("Third place");
    await join(third, member, "ADMIN");
    expect((await patch(`/workspaces/${third.workspaceId}`, { name: "Yes" }, member.key)).body.workspace.name).toBe("Yes");
  });

  it("validates slugs (422) and keeps them unique (409)", async () => {
    for (const slug of ["Upper", "with space", "-lead", "trail-", "dou--ble", "", "x".repeat(64), "ü-umlaut", 12]) {
      const res = await patch(`/workspaces/${t.workspaceId}`, { slug }, t.owner.key);
      expect(res.status, String(slug)).toBe(422);
      expect(res.body.errors.slug).toBeDefined();
    }
    for (const body of [{ name: "" }, { name: "x".repeat(201) }, { id: "ws_x" }, { createdAt: "2020-01-01T00:00:00.000Z" }]) {
      expect((await patch(`/workspaces/${t.workspaceId}`, body, t.owner.key)).status, JSON.stringify(body)).toBe(422);
    }
    const other = await newTenant();
    const taken = await patch(`/workspaces/${t.workspaceId}`, { slug: other.slug }, t.owner.key);
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe("CONFLICT");
    const ok = await patch(`/workspaces/${t.workspaceId}`, { slug: `a1-b2-c3-${freshSlug()}` }, t.owner.key);
    expect(ok.status).toBe(200);
    // Keeping one's own slug is no conflict.
    expect((await patch(`/workspaces/${t.workspaceId}`, { slug: ok.body.workspace.slug }, t.owner.key)).status).toBe(200);
  });
});
