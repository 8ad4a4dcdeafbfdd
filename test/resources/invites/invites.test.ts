import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { invites, teamMembers, teams, workspaceMembers } from "../../../drizzle/schema";
import { sha256Hex } from "../../../src/core/crypto";
import { newId } from "../../../src/ids";
import { api, del, expectAtomicWrite, get, post, uniqueEmail } from "../../helpers/api";
import { addMember, type Member, newTeam, newTenant, type Tenant, withDb } from "../../helpers/fixtures";
import { walk } from "../../helpers/lists";
import { mailTo } from "../../helpers/signup";

const tokenIn = (mail: { text: string }) => /Invite token: (\S+)/.exec(mail.text)![1];

/** Invites a fresh address as `by`; returns the invite and the token read from the email the queue delivered. */
async function invite(by: string, body: Record<string, unknown>) {
  const res = await post("/invites", body, by);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const email = String(body.email).toLowerCase();
  const mail = await mailTo(email);
  return { res, invite: res.body.invite, mail, token: tokenIn(mail) };
}

const redeem = (token: string, name = "Invited Person") => post("/invites/redeem", { token, name });

describe("invites", () => {
  let t: Tenant;
  let admin: Member;
  let member: Member;
  beforeAll(async () => {
    t = await newTenant("Invites Co");
    admin = await addMember(t, "ADMIN");
    member = await addMember(t);
  });

  describe("POST /invites", () => {
    it("creates a pending invite: 201, Location, the Invite with invitedBy, one transaction", async () => {
      const team = await newTeam(t);
      const email = uniqueEmail("invitee");
      const before = Date.now();
      const res = await post("/invites", { email, teamIds: [team.id] }, t.owner.key);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      // The auth query, then BEGIN, one statement for lock and checks, the replace, the insert, COMMIT.
      expectAtomicWrite(res);
      expect(res.queries).toBeLessThanOrEqual(6);
      const inv = res.body.invite;
      expect(res.headers.get("location")).toBe(`/invites/${inv.id}`);
      expect(inv).toEqual({
        id: expect.stringMatching(/^inv_[0-9a-z]{26}$/),
        email,
        role: "MEMBER",
        teamRole: "MEMBER",
        teamIds: [team.id],
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        invitedBy: { id: t.owner.userId, name: t.owner.name, email: t.owner.email, avatarUrl: null, humanId: null },
        expiresAt: expect.stringMatching(/Z$/),
      });
      // Valid 7 days.
      const ttl = Date.parse(inv.expiresAt) - Date.parse(inv.createdAt);
      expect(Math.abs(ttl - 7 * 24 * 3600 * 1000)).toBeLessThan(60_000);
      expect(Date.parse(inv.createdAt)).toBeGreaterThanOrEqual(before - 5_000);
    });

    it("emails the token through the queue (text and HTML) and stores it only hashed", async () => {
      const email = uniqueEmail("mailed");
      const res = await post("/invites", { email, role: "ADMIN", teamRole: "VIEWER" }, t.owner.key);
      expect(res.status).toBe(201);
      const mail = await mailTo(email);
      expect(mail.to).toBe(email);
      expect(mail.subject).toContain("Invites Co");
      expect(mail.subject).toContain(t.owner.name);
      const token = tokenIn(mail);
      expect(token.length).toBeGreaterThanOrEqual(43);
      expect(mail.text).toContain("http://api.test/invites/redeem");
      expect(mail.html).toContain(token);
      expect(mail.html).toContain("http://api.test/invites/redeem");
      expect(mail.html).toMatch(/^<!doctype html>/);

      const rows = await withDb((db) => db.select().from(invites));
      const mine = rows.find((r) => r.id === res.body.invite.id)!;
      expect(mine.tokenHash).toBe(await sha256Hex(token));
      for (const row of rows) {
        expect(row.tokenHash).not.toBe(token);
        expect(JSON.stringify(row)).not.toContain(token);
      }
    });

    it("normalises the address to lower case", async () => {
      const email = uniqueEmail("MiXed");
      const res = await post("/invites", { email: email.toUpperCase() }, admin.key);
      expect(res.status).toBe(201);
      expect(res.body.invite.email).toBe(email.toLowerCase());
      expect((await mailTo(email.toLowerCase())).to).toBe(email.toLowerCase());
    });

    it("is refused to a workspace MEMBER and to agents (403), and without a credential (401)", async () => {
      const body = { email: uniqueEmail("nope") };
      const agent = await addMember(t, "MEMBER", "AGENT");
      const adminAgent = await addMember(t, "ADMIN", "AGENT");
      for (const key of [member.key, agent.key, adminAgent.key]) {
        const res = await post("/invites", body, key);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      expect((await post("/invites", body)).status).toBe(401);
      expect((await post("/invites", body, "pmk_wrong")).status).toBe(401);
    });

    it("validates the body: OWNER role, bad enums, bad email, unknown fields are 422", async () => {
      const email = uniqueEmail("bad");
      const owner = await post("/invites", { email, role: "OWNER" }, t.owner.key);
      expect(owner.status).toBe(422);
      expect(Object.keys(owner.body.errors)).toEqual(["role"]);
      expect(owner.body.errors.role[0]).toMatch(/OWNER/);
      expect((await post("/invites", { email, teamRole: "BOSS" }, t.owner.key)).body.errors.teamRole).toBeDefined();
      expect((await post("/invites", { email: "not-an-address" }, t.owner.key)).body.errors.email).toBeDefined();
      expect((await post("/invites", { email: `${"x".repeat(320)}@example.com` }, t.owner.key)).body.errors.email).toBeDefined();
      expect((await post("/invites", {}, t.owner.key)).body.errors.email).toBeDefined();
      const extra = await post("/invites", { email, admin: true }, t.owner.key);
      expect(extra.status).toBe(422);
      expect(extra.body.errors.admin).toEqual(["Unknown field"]);
      expect((await post("/invites", { email, teamIds: "x" }, t.owner.key)).body.errors.teamIds).toBeDefined();
      const raw = await api("POST", "/invites", { key: t.owner.key, rawBody: "{", headers: { "content-type": "application/json" } });
      expect(raw.status).toBe(400);
    });

    it("is 404 for a team of another workspace or an unknown team, and stores nothing", async () => {
      const other = await newTenant();
      const foreign = await newTeam(other);
      const mine = await newTeam(t);
      const email = uniqueEmail("teamless");
      for (const teamIds of [[foreign.id], [mine.id, foreign.id], [newId("team")]]) {
        const res = await post("/invites", { email, teamIds }, t.owner.key);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
      }
      const rows = await withDb((db) => db.select().from(invites).where(eq(invites.email, email)));
      expect(rows).toEqual([]);
      // A repeated id is one team.
      const twice = await post("/invites", { email, teamIds: [mine.id, mine.id] }, t.owner.key);
      expect(twice.status).toBe(201);
      expect(twice.body.invite.teamIds).toEqual([mine.id]);
    });

    it("is 409 for an address that is already a member (any case)", async () => {
      for (const email of [member.email, t.owner.email.toUpperCase(), admin.email]) {
        const res = await post("/invites", { email }, t.owner.key);
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe("CONFLICT");
      }
      // A member of another workspace can be invited.
      const outsider = await addMember(await newTenant());
      expect((await post("/invites", { email: outsider.email }, t.owner.key)).status).toBe(201);
    });

    it("re-inviting an address replaces its pending invite: the old token stops working", async () => {
      const email = uniqueEmail("again");
      const first = await invite(t.owner.key, { email });
      const second = await post("/invites", { email, role: "ADMIN" }, admin.key);
      expect(second.status).toBe(201);
      const token2 = tokenIn(await mailTo(email, 2));
      expect(token2).not.toBe(first.token);
      const pendingForEmail = (await get(`/invites?filter[eq][email]=${encodeURIComponent(email)}`, t.owner.key)).body.invites;
      expect(pendingForEmail.map((i: any) => i.id)).toEqual([second.body.invite.id]);
      const old = await redeem(first.token);
      expect(old.status).toBe(422);
      expect(old.body.errors.token).toBeDefined();
      const ok = await redeem(token2);
      expect(ok.status).toBe(201);
      expect((await get("/me", ok.body.data.api_token)).body.role).toBe("ADMIN");
    });

    it("two concurrent invites to one address leave exactly one pending invite", async () => {
      const email = uniqueEmail("race");
      const [a, b] = await Promise.all([post("/invites", { email }, t.owner.key), post("/invites", { email }, admin.key)]);
      expect([a.status, b.status]).toEqual([201, 201]);
      const rows = await withDb((db) => db.select().from(invites).where(eq(invites.email, email)));
      expect(rows).toHaveLength(1);
    });
  });

  describe("POST /invites/redeem", () => {
    it("creates the account, joins workspace and teams, returns a working API key; one transaction; once only", async () => {
      const team1 = await newTeam(t);
      const team2 = await newTeam(t);
      const email = uniqueEmail("newbie");
      const { token, invite: inv } = await invite(admin.key, { email, teamIds: [team1.id, team2.id], teamRole: "VIEWER" });
      const res = await redeem(token, "New Bie");
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      // BEGIN, the conditional update, user, membership, key, team memberships (one statement for all), COMMIT.
      expectAtomicWrite(res);
      expect(res.queries).toBeLessThanOrEqual(7);
      expect(res.headers.get("location")).toBeNull();
      expect(res.body).toEqual({ data: { api_token: expect.stringMatching(/^pmk_/), workspace_slug: t.slug } });
      const key = res.body.data.api_token;
      const me = await get("/me", key);
      expect(me.status).toBe(200);
      expect(me.body.user).toMatchObject({ name: "New Bie", email, humanId: null });
      expect(me.body.workspace.id).toBe(t.workspaceId);
      expect(me.body.role).toBe("MEMBER");
      for (const team of [team1, team2]) {
        const members = (await get(`/teams/${team.id}/members`, key)).body.members;
        expect(members.find((m: any) => m.id === me.body.user.id)).toMatchObject({ role: "VIEWER" });
      }
      // Used: refused the second time, and no longer listed.
      const again = await redeem(token);
      expect(again.status).toBe(422);
      expect(again.body.errors.token[0]).toMatch(/already accepted/);
      const list = (await get("/invites?limit=250", t.owner.key)).body.invites.map((i: any) => i.id);
      expect(list).not.toContain(inv.id);
    });

    it("of two concurrent redeems exactly one succeeds", async () => {
      const team = await newTeam(t);
      const email = uniqueEmail("concurrent");
      const { token } = await invite(t.owner.key, { email, teamIds: [team.id] });
      const results = await Promise.all([redeem(token, "A"), redeem(token, "B"), redeem(token, "C")]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422]);
      const members = await withDb((db) => db.select().from(teamMembers).where(eq(teamMembers.teamId, team.id)));
      expect(members).toHaveLength(2);
      const keys = results.filter((r) => r.status === 201);
      expect((await get("/me", keys[0].body.data.api_token)).body.user.email).toBe(email);
    });

    it("joins an existing account (it keeps its name) and the key acts in the new workspace", async () => {
      const otherTenant = await newTenant("Elsewhere");
      const existing = await addMember(otherTenant);
      const team = await newTeam(t);
      const { token } = await invite(t.owner.key, { email: existing.email, role: "ADMIN", teamIds: [team.id], teamRole: "ADMIN" });
      const res = await redeem(token, "Another Name");
      expect(res.status).toBe(201);
      const me = await get("/me", res.body.data.api_token);
      expect(me.body.user).toMatchObject({ id: existing.userId, name: existing.name, email: existing.email });
      expect(me.body.workspace.id).toBe(t.workspaceId);
      expect(me.body.role).toBe("ADMIN");
      // The old key still acts in the old workspace.
      expect((await get("/me", existing.key)).body.workspace.id).toBe(otherTenant.workspaceId);
      const members = (await get(`/teams/${team.id}/members`, res.body.data.api_token)).body.members;
      expect(members.find((m: any) => m.id === existing.userId)).toMatchObject({ role: "ADMIN" });
    });

    it("skips teams deleted since the invite was sent", async () => {
      const kept = await newTeam(t);
      const gone = await newTeam(t);
      const email = uniqueEmail("skip");
      const { token } = await invite(t.owner.key, { email, teamIds: [gone.id, kept.id] });
      await withDb((db) => db.delete(teams).where(eq(teams.id, gone.id)));
      const res = await redeem(token);
      expect(res.status).toBe(201);
      const userId = (await get("/me", res.body.data.api_token)).body.user.id;
      const rows = await withDb((db) => db.select().from(teamMembers).where(eq(teamMembers.userId, userId)));
      expect(rows.map((r) => [r.teamId, r.role])).toEqual([[kept.id, "MEMBER"]]);
    });

    it("refuses unknown, expired and cancelled tokens with 422 at token", async () => {
      const unknown = await redeem("not-a-real-token");
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors.token[0]).toMatch(/Unknown/);

      const expiring = await invite(t.owner.key, { email: uniqueEmail("late") });
      await withDb((db) =>
        db
          .update(invites)
          .set({ expiresAt: new Date(Date.now() - 1000) })
          .where(eq(invites.id, expiring.invite.id)),
      );
      const late = await redeem(expiring.token);
      expect(late.status).toBe(422);
      expect(late.body.errors.token[0]).toMatch(/expired/);

      const cancelled = await invite(t.owner.key, { email: uniqueEmail("cancel") });
      expect((await del(`/invites/${cancelled.invite.id}`, t.owner.key)).status).toBe(204);
      const res = await redeem(cancelled.token);
      expect(res.status).toBe(422);
      expect(res.body.errors.token[0]).toMatch(/Unknown or cancelled/);
    });

    it("validates its body strictly and needs no credential", async () => {
      const missing = await post("/invites/redeem", {});
      expect(missing.status).toBe(422);
      expect(Object.keys(missing.body.errors).sort()).toEqual(["name", "token"]);
      expect((await post("/invites/redeem", { token: "x", name: "  " })).body.errors.name).toBeDefined();
      expect((await post("/invites/redeem", { token: "x", name: "A", role: "OWNER" })).body.errors.role).toEqual(["Unknown field"]);
      expect((await post("/invites/redeem", { token: "x".repeat(201), name: "A" })).body.errors.token).toBeDefined();
    });
  });

  describe("GET /invites", () => {
    let lt: Tenant;
    let ltAdmin: Member;
    const made: any[] = [];
    beforeAll(async () => {
      lt = await newTenant("Invite lists");
      ltAdmin = await addMember(lt, "ADMIN");
      for (let i = 0; i < 9; i++) {
        const res = await post(
          "/invites",
          { email: `list-${i}-${uniqueEmail("l")}`, role: i % 3 === 0 ? "ADMIN" : "MEMBER" },
          i % 2 ? lt.owner.key : ltAdmin.key,
        );
        expect(res.status).toBe(201);
        made.push(res.body.invite);
      }
    });

    it("lists pending invites oldest first, as ADMIN or OWNER, in 2 queries", async () => {
      const res = await get("/invites", ltAdmin.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBeLessThanOrEqual(2);
      expect(res.body.pagination).toEqual({ limit: 50, nextCursor: null });
      expect(res.body.invites).toEqual(made);
      expect((await get("/invites", lt.owner.key)).body.invites).toHaveLength(made.length);
    });

    it("walks pages, filters, sorts and selects fields", async () => {
      const all = await walk("/invites", "invites", lt.owner.key, 4);
      expect(all.map((i) => i.id)).toEqual(made.map((i) => i.id));
      const admins = (await get("/invites?filter[eq][role]=ADMIN", lt.owner.key)).body.invites;
      expect(admins.map((i: any) => i.id)).toEqual(made.filter((i) => i.role === "ADMIN").map((i) => i.id));
      const byEmail = await walk("/invites?sort[email]=desc", "invites", lt.owner.key, 3);
      expect(byEmail.map((i) => i.email)).toEqual(
        made
          .map((i) => i.email)
          .sort()
          .reverse(),
      );
      const slim = await get("/invites?fields=id,invitedBy{name}&limit=2", lt.owner.key);
      expect(slim.body.invites[0]).toEqual({ id: made[0].id, invitedBy: { name: made[0].invitedBy.name } });
      expect((await get("/invites?filter[eq][tokenHash]=x", lt.owner.key)).status).toBe(400);
      expect((await get("/invites?fields=tokenHash", lt.owner.key)).status).toBe(400);
      expect((await get("/invites?limit=0", lt.owner.key)).status).toBe(422);
    });

    it("omits accepted, expired and cancelled invites and other workspaces' invites", async () => {
      const x = await newTenant("List hides");
      const accepted = await invite(x.owner.key, { email: uniqueEmail("acc") });
      expect((await redeem(accepted.token)).status).toBe(201);
      const expired = await invite(x.owner.key, { email: uniqueEmail("exp") });
      await withDb((db) =>
        db
          .update(invites)
          .set({ expiresAt: new Date(Date.now() - 1000) })
          .where(eq(invites.id, expired.invite.id)),
      );
      const cancelled = await invite(x.owner.key, { email: uniqueEmail("can") });
      expect((await del(`/invites/${cancelled.invite.id}`, x.owner.key)).status).toBe(204);
      const live = await post("/invites", { email: uniqueEmail("live") }, x.owner.key);
      const res = await get("/invites", x.owner.key);
      expect(res.body.invites.map((i: any) => i.id)).toEqual([live.body.invite.id]);
      expect((await get("/invites", lt.owner.key)).body.invites.map((i: any) => i.id)).not.toContain(live.body.invite.id);
    });

    it("is 403 for a workspace MEMBER, 401 without credential", async () => {
      const m = await addMember(lt);
      const res = await get("/invites", m.key);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
      expect((await get("/invites")).status).toBe(401);
    });
  });

  describe("GET /invites/{id}", () => {
    it("the Location of a new invite reads it back, for ADMIN/OWNER and the sender; 403 for others", async () => {
      const sent = await invite(admin.key, { email: uniqueEmail("read"), teamRole: "VIEWER" });
      const location = sent.res.headers.get("location")!;
      for (const key of [admin.key, t.owner.key]) {
        const res = await get(location, key);
        expect(res.status).toBe(200);
        expect(res.queries).toBeLessThanOrEqual(2);
        expect(res.body.invite).toEqual(sent.invite);
      }
      expect((await get(`${location}?fields=id,teamRole,invitedBy{id}`, t.owner.key)).body.invite).toEqual({
        id: sent.invite.id,
        teamRole: "VIEWER",
        invitedBy: { id: admin.userId },
      });
      const denied = await get(location, member.key);
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe("FORBIDDEN");
      expect((await get(location)).status).toBe(401);
    });

    it("is 404 for another workspace's invite and once the invite is accepted", async () => {
      const other = await newTenant("Read elsewhere");
      const foreign = await invite(other.owner.key, { email: uniqueEmail("far") });
      expect((await get(`/invites/${foreign.invite.id}`, t.owner.key)).status).toBe(404);
      expect((await get(`/invites/${foreign.invite.id}`, other.owner.key)).status).toBe(200);
      expect((await redeem(foreign.token)).status).toBe(201);
      expect((await get(`/invites/${foreign.invite.id}`, other.owner.key)).status).toBe(404);
    });
  });

  describe("DELETE /invites/{id}", () => {
    it("an ADMIN cancels the OWNER's invite: 204, one transaction, then 404", async () => {
      const { invite: inv } = await invite(t.owner.key, { email: uniqueEmail("del") });
      const res = await del(`/invites/${inv.id}`, admin.key);
      expect(res.status).toBe(204);
      expectAtomicWrite(res);
      expect(res.body).toBeNull();
      expect((await del(`/invites/${inv.id}`, admin.key)).status).toBe(404);
      const rows = await withDb((db) => db.select().from(invites).where(eq(invites.id, inv.id)));
      expect(rows).toEqual([]);
    });

    it("the sender may cancel their own invite after losing the ADMIN role; another MEMBER may not (403)", async () => {
      const sender = await addMember(t, "ADMIN");
      const { invite: inv } = await invite(sender.key, { email: uniqueEmail("own") });
      await withDb((db) => db.update(workspaceMembers).set({ role: "MEMBER" }).where(eq(workspaceMembers.userId, sender.userId)));
      const other = await del(`/invites/${inv.id}`, member.key);
      expect(other.status).toBe(403);
      expect(other.body.error.code).toBe("FORBIDDEN");
      expect((await del(`/invites/${inv.id}`, sender.key)).status).toBe(204);
    });

    it("is 404 for another workspace's invite (and leaves it alone), 409 once accepted", async () => {
      const other = await newTenant("Other invites");
      const foreign = await invite(other.owner.key, { email: uniqueEmail("foreign") });
      for (const id of [foreign.invite.id, newId("inv")]) {
        const res = await del(`/invites/${id}`, t.owner.key);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
      }
      expect((await redeem(foreign.token)).status).toBe(201);
      const accepted = await del(`/invites/${foreign.invite.id}`, other.owner.key);
      expect(accepted.status).toBe(409);
      expect(accepted.body.error.code).toBe("CONFLICT");
      expect((await del(`/invites/${foreign.invite.id}`)).status).toBe(401);
    });
  });

  it("documents the five operations in the OpenAPI document", async () => {
    const doc = (await get("/openapi.json")).body;
    expect(doc.paths["/invites"].post.operationId).toBe("createInvite");
    expect(doc.paths["/invites"].get.operationId).toBe("listInvites");
    expect(doc.paths["/invites/{id}"].get.operationId).toBe("getInvite");
    expect(doc.paths["/invites/{id}"].delete.operationId).toBe("deleteInvite");
    expect(doc.paths["/invites/redeem"].post.operationId).toBe("redeemInvite");
    expect(doc.paths["/invites/redeem"].post.security).toEqual([]);
    expect(Object.keys(doc.paths["/invites"].post.responses).sort()).toEqual([
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
  });
});
