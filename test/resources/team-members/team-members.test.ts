import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { teamMembers } from "../../../drizzle/schema";
import { newId } from "../../../src/ids";
import { del, expectAtomicWrite, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";
import { walk } from "../../helpers/lists";

type Role = "VIEWER" | "MEMBER" | "ADMIN" | "OWNER";

const roleOf = (membershipId: string) =>
  withDb(
    async (db) => (await db.select({ role: teamMembers.role }).from(teamMembers).where(eq(teamMembers.id, membershipId)))[0]?.role ?? null,
  );

describe("team members", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await newTenant("Team members Co");
  });

  /** A fresh team (the tenant owner is its OWNER) plus workspace MEMBERs holding the given team roles. */
  async function teamWith(...roles: Role[]) {
    const team = await newTeam(t);
    const people: { member: Member; membershipId: string }[] = [];
    for (const role of roles) {
      const member = await addMember(t);
      people.push({ member, membershipId: await joinTeam(team, member, role) });
    }
    return { team, people };
  }

  describe("GET /teams/{id}/members", () => {
    let team: TeamFixture;
    const joined: { member: Member; membershipId: string; role: Role }[] = [];
    beforeAll(async () => {
      team = await newTeam(t);
      const roles: Role[] = ["VIEWER", "MEMBER", "ADMIN"];
      for (let i = 0; i < 14; i++) {
        const member = await addMember(t);
        const role = roles[i % 3];
        joined.push({ member, role, membershipId: await joinTeam(team, member, role) });
      }
    });

    it("lists members (user fields, team role, membershipId) oldest first, in ≤ 2 queries", async () => {
      const res = await get(`/teams/${team.id}/members`, joined[0].member.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBeLessThanOrEqual(2);
      expect(res.body.pagination).toEqual({ limit: 50, nextCursor: null });
      expect(res.body.members).toHaveLength(15);
      expect(res.body.members[0]).toMatchObject({ id: t.owner.userId, role: "OWNER", membershipId: expect.stringMatching(/^tmbr_/) });
      const { member, role, membershipId } = joined[0];
      expect(res.body.members[1]).toEqual({
        id: member.userId,
        name: member.name,
        email: member.email,
        avatarUrl: null,
        role,
        membershipId,
      });
      expect(res.body.members.slice(1).map((m: any) => m.membershipId)).toEqual(joined.map((j) => j.membershipId));
    });

    it("walks every page once, by default and by a requested sort", async () => {
      const all = await walk(`/teams/${team.id}/members`, "members", t.owner.key, 4);
      expect(all.map((m) => m.id)).toEqual([t.owner.userId, ...joined.map((j) => j.member.userId)]);
      const byEmail = await walk(`/teams/${team.id}/members?sort[email]=desc`, "members", t.owner.key, 6);
      expect(byEmail.map((m) => m.email)).toEqual([t.owner.email, ...joined.map((j) => j.member.email)].sort().reverse());
      const newest = await walk(`/teams/${team.id}/members?sort[createdAt]=desc`, "members", t.owner.key, 5);
      expect(newest.map((m) => m.id)).toEqual(all.map((m) => m.id).reverse());
    });

    it("filters, selects fields, and answers an empty page (not 404) when nothing matches", async () => {
      const admins = await get(`/teams/${team.id}/members?filter[eq][role]=ADMIN`, t.owner.key);
      expect(admins.body.members.map((m: any) => m.membershipId)).toEqual(
        joined.filter((j) => j.role === "ADMIN").map((j) => j.membershipId),
      );
      const one = await get(`/teams/${team.id}/members?filter[eq][id]=${joined[3].member.userId}&fields=membershipId`, t.owner.key);
      expect(one.body.members).toEqual([{ membershipId: joined[3].membershipId }]);
      const none = await get(`/teams/${team.id}/members?filter[contains][email]=nobody-here`, t.owner.key);
      expect(none.status).toBe(200);
      expect(none.queries).toBeLessThanOrEqual(2);
      expect(none.body).toEqual({ members: [], pagination: { limit: 50, nextCursor: null } });
      expect((await get(`/teams/${team.id}/members?filter[eq][role]=BOSS`, t.owner.key)).status).toBe(400);
      expect((await get(`/teams/${team.id}/members?fields=password`, t.owner.key)).status).toBe(400);
    });

    it("is 404 for an unknown team or another workspace's team", async () => {
      const other = await newTenant();
      const foreign = await newTeam(other);
      for (const id of [foreign.id, newId("team")]) {
        const res = await get(`/teams/${id}/members`, t.owner.key);
        expect(res.status).toBe(404);
        expect(res.queries).toBeLessThanOrEqual(2);
      }
    });
  });

  describe("POST /teams/{id}/members", () => {
    it("adds a workspace member with role MEMBER by default: 201, Location, teamMember with user summary, one transaction", async () => {
      const { team, people } = await teamWith("MEMBER");
      const newcomer = await addMember(t);
      const res = await post(`/teams/${team.id}/members`, { userId: newcomer.userId }, people[0].member.key);
      expect(res.status).toBe(201);
      expectAtomicWrite(res);
      const tm = res.body.teamMember;
      expect(res.headers.get("location")).toBe(`/team-members/${tm.id}`);
      expect(tm).toEqual({
        id: expect.stringMatching(/^tmbr_[0-9a-z]{26}$/),
        teamId: team.id,
        userId: newcomer.userId,
        role: "MEMBER",
        user: { id: newcomer.userId, name: newcomer.name, email: newcomer.email, avatarUrl: null, humanId: null },
      });
      const team2 = (await get(`/teams/${team.id}`, newcomer.key)).body.team;
      expect(team2.members.at(-1)).toMatchObject({ id: newcomer.userId, role: "MEMBER", membershipId: tm.id });
    });

    it("is 409 for an existing member, 404 for a user outside the workspace, 422 for a bad body", async () => {
      const { team, people } = await teamWith("MEMBER");
      const again = await post(`/teams/${team.id}/members`, { userId: people[0].member.userId, role: "VIEWER" }, t.owner.key);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("CONFLICT");
      expect(await roleOf(people[0].membershipId)).toBe("MEMBER");
      const stranger = await addMember(await newTenant());
      for (const userId of [stranger.userId, newId("user")]) {
        const res = await post(`/teams/${team.id}/members`, { userId }, t.owner.key);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
      }
      expect((await post(`/teams/${team.id}/members`, { userId: stranger.userId, role: "BOSS" }, t.owner.key)).status).toBe(422);
      expect((await post(`/teams/${team.id}/members`, { role: "MEMBER" }, t.owner.key)).body.errors.userId).toBeDefined();
      expect((await post(`/teams/${team.id}/members`, { userId: stranger.userId, extra: 1 }, t.owner.key)).status).toBe(422);
      expect((await get(`/teams/${team.id}/members`, t.owner.key)).body.members).toHaveLength(2);
    });

    it("needs team MEMBER: a plain workspace MEMBER and a team VIEWER are refused (403)", async () => {
      const { team, people } = await teamWith("VIEWER");
      const plain = await addMember(t);
      const target = await addMember(t);
      for (const caller of [plain, people[0].member]) {
        const res = await post(`/teams/${team.id}/members`, { userId: target.userId }, caller.key);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      // A plain member cannot add themself either.
      expect((await post(`/teams/${team.id}/members`, { userId: plain.userId }, plain.key)).status).toBe(403);
      expect((await get(`/teams/${team.id}/members`, t.owner.key)).body.members).toHaveLength(2);
    });

    it("never grants a role above the caller's own, unless the caller is a workspace ADMIN/OWNER", async () => {
      const { team, people } = await teamWith("MEMBER", "ADMIN");
      const [teamMember, teamAdmin] = people.map((p) => p.member);
      const add = async (caller: Member, role: Role) =>
        (await post(`/teams/${team.id}/members`, { userId: (await addMember(t)).userId, role }, caller.key)).status;
      expect(await add(teamMember, "ADMIN")).toBe(403);
      expect(await add(teamMember, "MEMBER")).toBe(201);
      expect(await add(teamMember, "VIEWER")).toBe(201);
      expect(await add(teamAdmin, "OWNER")).toBe(403);
      expect(await add(teamAdmin, "ADMIN")).toBe(201);
      const wsAdmin = await addMember(t, "ADMIN");
      expect(await add(wsAdmin, "OWNER")).toBe(201);
    });

    it("is 404 for another workspace's team, and adds nobody there", async () => {
      const other = await newTenant();
      const foreign = await newTeam(other);
      const res = await post(`/teams/${foreign.id}/members`, { userId: t.owner.userId }, t.owner.key);
      expect(res.status).toBe(404);
      expect((await get(`/teams/${foreign.id}/members`, other.owner.key)).body.members).toHaveLength(1);
    });
  });

  describe("GET /team-members/{id}", () => {
    it("reads a membership in ≤ 2 queries, with field selection", async () => {
      const { team, people } = await teamWith("ADMIN");
      const { member, membershipId } = people[0];
      const res = await get(`/team-members/${membershipId}`, t.owner.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBeLessThanOrEqual(2);
      expect(res.body.teamMember).toEqual({
        id: membershipId,
        teamId: team.id,
        userId: member.userId,
        role: "ADMIN",
        user: { id: member.userId, name: member.name, email: member.email, avatarUrl: null, humanId: null },
      });
      const some = await get(`/team-members/${membershipId}?fields=role,user{email}`, t.owner.key);
      expect(some.body.teamMember).toEqual({ role: "ADMIN", user: { email: member.email } });
      expect((await get(`/team-members/${membershipId}?fields=user{secret}`, t.owner.key)).status).toBe(400);
      expect((await get(`/team-members/${newId("tmbr")}`, t.owner.key)).status).toBe(404);
    });
  });

  describe("PATCH /team-members/{id}", () => {
    it("a team ADMIN changes roles below OWNER, in one transaction", async () => {
      const { people } = await teamWith("ADMIN", "MEMBER");
      const res = await patch(`/team-members/${people[1].membershipId}`, { role: "VIEWER" }, people[0].member.key);
      expect(res.status).toBe(200);
      expectAtomicWrite(res);
      expect(res.body.teamMember).toMatchObject({ id: people[1].membershipId, userId: people[1].member.userId, role: "VIEWER" });
      expect((await patch(`/team-members/${people[1].membershipId}`, { role: "ADMIN" }, people[0].member.key)).body.teamMember.role).toBe(
        "ADMIN",
      );
    });

    it("refuses team MEMBERs and outsiders (403), and bad bodies (422)", async () => {
      const { people } = await teamWith("MEMBER", "VIEWER");
      const plain = await addMember(t);
      for (const caller of [people[0].member, plain]) {
        expect((await patch(`/team-members/${people[1].membershipId}`, { role: "MEMBER" }, caller.key)).status).toBe(403);
      }
      // Nobody promotes themself without the rights either.
      expect((await patch(`/team-members/${people[0].membershipId}`, { role: "ADMIN" }, people[0].member.key)).status).toBe(403);
      expect((await patch(`/team-members/${people[1].membershipId}`, { role: "CHIEF" }, t.owner.key)).status).toBe(422);
      expect((await patch(`/team-members/${people[1].membershipId}`, {}, t.owner.key)).status).toBe(422);
      expect(await roleOf(people[0].membershipId)).toBe("MEMBER");
      expect(await roleOf(people[1].membershipId)).toBe("VIEWER");
    });

    it("only a team OWNER or workspace ADMIN/OWNER grants or takes away OWNER", async () => {
      const { team, people } = await teamWith("ADMIN", "MEMBER", "OWNER");
      const [admin, plainMember, owner] = people;
      expect((await patch(`/team-members/${plainMember.membershipId}`, { role: "OWNER" }, admin.member.key)).status).toBe(403);
      expect((await patch(`/team-members/${owner.membershipId}`, { role: "MEMBER" }, admin.member.key)).status).toBe(403);
      expect(await roleOf(owner.membershipId)).toBe("OWNER");
      expect((await patch(`/team-members/${plainMember.membershipId}`, { role: "OWNER" }, owner.member.key)).status).toBe(200);
      expect((await patch(`/team-members/${plainMember.membershipId}`, { role: "ADMIN" }, owner.member.key)).status).toBe(200);
      const wsAdmin = await addMember(t, "ADMIN");
      expect((await patch(`/team-members/${owner.membershipId}`, { role: "ADMIN" }, wsAdmin.key)).status).toBe(200);
      const members = (await get(`/teams/${team.id}/members?filter[eq][role]=OWNER`, t.owner.key)).body.members;
      expect(members.map((m: any) => m.id)).toEqual([t.owner.userId]);
    });

    it("never demotes the last OWNER (409), not even for a workspace OWNER", async () => {
      const team = await newTeam(t);
      const ownerMembership = (await get(`/teams/${team.id}/members`, t.owner.key)).body.members[0].membershipId;
      const res = await patch(`/team-members/${ownerMembership}`, { role: "ADMIN" }, t.owner.key);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("CONFLICT");
      expect(await roleOf(ownerMembership)).toBe("OWNER");
      // Re-stating OWNER is not a demotion.
      expect((await patch(`/team-members/${ownerMembership}`, { role: "OWNER" }, t.owner.key)).status).toBe(200);
    });

    it("keeps an OWNER when two OWNERs are demoted at the same time", async () => {
      for (let round = 0; round < 3; round++) {
        const { team, people } = await teamWith("OWNER");
        const ids = [(await get(`/teams/${team.id}/members`, t.owner.key)).body.members[0].membershipId, people[0].membershipId];
        const results = await Promise.all(ids.map((id) => patch(`/team-members/${id}`, { role: "MEMBER" }, t.owner.key)));
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        const owners = (await get(`/teams/${team.id}/members?filter[eq][role]=OWNER`, t.owner.key)).body.members;
        expect(owners).toHaveLength(1);
      }
    });
  });

  describe("DELETE /team-members/{id}", () => {
    it("a team ADMIN removes a member (204, one transaction); a team MEMBER cannot (403)", async () => {
      const { team, people } = await teamWith("ADMIN", "MEMBER", "MEMBER");
      const refused = await del(`/team-members/${people[2].membershipId}`, people[1].member.key);
      expect(refused.status).toBe(403);
      expect(await roleOf(people[2].membershipId)).toBe("MEMBER");
      const res = await del(`/team-members/${people[2].membershipId}`, people[0].member.key);
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expectAtomicWrite(res);
      expect(await roleOf(people[2].membershipId)).toBeNull();
      expect((await get(`/team-members/${people[2].membershipId}`, t.owner.key)).status).toBe(404);
      expect((await get(`/teams/${team.id}/members`, t.owner.key)).body.members).toHaveLength(3);
    });

    it("anyone may leave, even a VIEWER", async () => {
      const { people } = await teamWith("VIEWER");
      expect((await del(`/team-members/${people[0].membershipId}`, people[0].member.key)).status).toBe(204);
      expect(await roleOf(people[0].membershipId)).toBeNull();
    });

    it("removing an OWNER needs team OWNER or workspace ADMIN/OWNER; the last OWNER stays (409)", async () => {
      const { team, people } = await teamWith("ADMIN", "OWNER");
      const [admin, owner] = people;
      expect((await del(`/team-members/${owner.membershipId}`, admin.member.key)).status).toBe(403);
      const wsAdmin = await addMember(t, "ADMIN");
      expect((await del(`/team-members/${owner.membershipId}`, wsAdmin.key)).status).toBe(204);
      const last = (await get(`/teams/${team.id}/members?filter[eq][role]=OWNER`, t.owner.key)).body.members[0];
      for (const key of [t.owner.key, wsAdmin.key]) {
        const res = await del(`/team-members/${last.membershipId}`, key);
        expect(res.status).toBe(409);
        expect(res.body.error.code).toBe("CONFLICT");
      }
      expect(await roleOf(last.membershipId)).toBe("OWNER");
    });
  });

  describe("tenancy", () => {
    it("another workspace's membership is 404 on GET/PATCH/DELETE and stays unchanged", async () => {
      const other = await newTenant();
      const team = await newTeam(other);
      const theirs = await addMember(other);
      const membershipId = await joinTeam(team, theirs, "MEMBER");
      expect((await get(`/team-members/${membershipId}`, t.owner.key)).status).toBe(404);
      expect((await patch(`/team-members/${membershipId}`, { role: "OWNER" }, t.owner.key)).status).toBe(404);
      expect((await del(`/team-members/${membershipId}`, t.owner.key)).status).toBe(404);
      expect(await roleOf(membershipId)).toBe("MEMBER");
      expect((await get(`/team-members/${membershipId}`, other.owner.key)).body.teamMember.role).toBe("MEMBER");
    });
  });

  it("documents every team-member operation in the OpenAPI document", async () => {
    const doc = (await get("/openapi.json")).body;
    expect(Object.keys(doc.paths["/teams/{id}/members"])).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(doc.paths["/team-members/{id}"])).toEqual(expect.arrayContaining(["get", "patch", "delete"]));
    expect(doc.components.schemas.TeamMember.properties.user).toBeDefined();
  });
});
