import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { projects, tasks, teamMembers, teams } from "../../../drizzle/schema";
import { newId } from "../../../src/ids";
import { del, expectAtomicWrite, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTenant, type Tenant, withDb } from "../../helpers/fixtures";
import { walk } from "../../helpers/lists";

let prefixCounter = 0;
/** A valid prefix unique in this run: the stem, a time stamp and a counter in upper-case base 36. */
const freshPrefix = (stem = "T") =>
  `${stem}${Date.now().toString(36).toUpperCase().slice(-4)}${(prefixCounter++).toString(36).toUpperCase()}`.slice(0, 10);

async function createTeam(key: string, body: Record<string, unknown> = {}) {
  const res = await post("/teams", { name: "Team", prefix: freshPrefix(), ...body }, key);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.team;
}

describe("teams", () => {
  let t: Tenant;
  let member: Member;
  beforeAll(async () => {
    t = await newTenant("Teams Co");
    member = await addMember(t, "MEMBER");
  });

  describe("create", () => {
    it("creates a team in one transaction: 201, Location, creator is OWNER in members", async () => {
      const prefix = freshPrefix("ENG");
      const res = await post("/teams", { name: "Engineering", prefix }, member.key);
      expect(res.status).toBe(201);
      expectAtomicWrite(res);
      const team = res.body.team;
      expect(res.headers.get("location")).toBe(`/teams/${team.id}`);
      expect(team.id).toMatch(/^team_[0-9a-z]{26}$/);
      expect(team).toMatchObject({ name: "Engineering", prefix, description: "", parentId: null, parent: null });
      expect(team.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(team.members).toHaveLength(1);
      expect(team.members[0]).toEqual({
        id: member.userId,
        name: member.name,
        email: member.email,
        avatarUrl: null,
        role: "OWNER",
        membershipId: expect.stringMatching(/^tmbr_/),
      });
      expect((await get(`/team-members/${team.members[0].membershipId}`, member.key)).body.teamMember.role).toBe("OWNER");
    });

    it("accepts a description and prefixes of 2 and 10 characters", async () => {
      const w = await newTenant();
      expect((await post("/teams", { name: "Two", prefix: "AB" }, w.owner.key)).body.team.prefix).toBe("AB");
      const ten = `${freshPrefix("A")}AAAAAAAAAA`.slice(0, 10);
      const res = await post("/teams", { name: "Ten", prefix: ten, description: "Does things" }, t.owner.key);
      expect(res.status).toBe(201);
      expect(res.body.team).toMatchObject({ prefix: ten, description: "Does things" });
    });

    it("rejects bad prefixes with 422 at prefix", async () => {
      for (const prefix of ["eng", "Eng", "E", "ABCDEFGHIJK", "1AB", "EN-G", "EN G", "", 12]) {
        const res = await post("/teams", { name: "Bad", prefix }, t.owner.key);
        expect(res.status, String(prefix)).toBe(422);
        expect(res.body.errors.prefix, String(prefix)).toBeDefined();
      }
    });

    it("rejects a missing or empty name, a missing prefix and unknown fields with 422", async () => {
      expect((await post("/teams", { prefix: freshPrefix() }, t.owner.key)).body.errors.name).toBeDefined();
      expect((await post("/teams", { name: "  ", prefix: freshPrefix() }, t.owner.key)).body.errors.name).toBeDefined();
      expect((await post("/teams", { name: "x".repeat(101), prefix: freshPrefix() }, t.owner.key)).body.errors.name).toBeDefined();
      expect((await post("/teams", { name: "No prefix" }, t.owner.key)).body.errors.prefix).toBeDefined();
      const typo = await post("/teams", { name: "Typo", prefix: freshPrefix(), descripton: "x" }, t.owner.key);
      expect(typo.status).toBe(422);
      expect(typo.body.errors.descripton).toEqual(["Unknown field"]);
    });

    it("keeps prefixes unique per workspace (409) but not across workspaces", async () => {
      const prefix = freshPrefix("DUP");
      await createTeam(t.owner.key, { prefix });
      const again = await post("/teams", { name: "Again", prefix }, member.key);
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe("CONFLICT");
      const other = await newTenant();
      expect((await post("/teams", { name: "Elsewhere", prefix }, other.owner.key)).status).toBe(201);
    });

    it("a sub-team needs team role ADMIN or higher in the parent, or workspace ADMIN/OWNER (403, nothing created), on create and on a move", async () => {
      const parent = await createTeam(t.owner.key, { name: "Guarded parent" });
      const [viewer, teamMember, teamAdmin, wsAdmin] = await Promise.all([
        addMember(t, "MEMBER"),
        addMember(t, "MEMBER"),
        addMember(t, "MEMBER"),
        addMember(t, "ADMIN"),
      ]);
      const tf = { id: parent.id, name: parent.name, prefix: parent.prefix, workspaceId: t.workspaceId };
      await joinTeam(tf, viewer, "VIEWER");
      await joinTeam(tf, teamMember, "MEMBER");
      await joinTeam(tf, teamAdmin, "ADMIN");
      for (const who of [member, viewer, teamMember]) {
        const prefix = freshPrefix("SUB");
        const res = await post("/teams", { name: "Sub", prefix, parentId: parent.id }, who.key);
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
        expect((await get(`/teams?filter[eq][prefix]=${prefix}`, t.owner.key)).body.teams).toHaveLength(0);
        // A top-level team of their own, moved under the parent: the same rule.
        const own = await createTeam(who.key, { name: "Own" });
        expect((await patch(`/teams/${own.id}`, { parentId: parent.id }, who.key)).status).toBe(403);
        expect((await get(`/teams/${own.id}`, who.key)).body.team.parentId).toBeNull();
      }
      for (const who of [teamAdmin, wsAdmin]) {
        expect((await post("/teams", { name: "Sub", prefix: freshPrefix("SUB"), parentId: parent.id }, who.key)).status).toBe(201);
        const own = await createTeam(who.key, { name: "Own" });
        expect((await patch(`/teams/${own.id}`, { parentId: parent.id }, who.key)).status).toBe(200);
      }
    });

    it("nests a team under a parent of the workspace; an unknown or foreign parent is 404 and creates nothing", async () => {
      const parent = await createTeam(t.owner.key, { name: "Parent" });
      const child = await createTeam(t.owner.key, { name: "Child", parentId: parent.id });
      expect(child).toMatchObject({ parentId: parent.id, parent: { id: parent.id, name: "Parent" } });

      const other = await newTenant();
      const foreign = await createTeam(other.owner.key);
      for (const parentId of [foreign.id, newId("team")]) {
        const prefix = freshPrefix("ORPH");
        const res = await post("/teams", { name: "Orphan", prefix, parentId }, t.owner.key);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe("NOT_FOUND");
        expect((await get(`/teams?filter[eq][prefix]=${prefix}`, t.owner.key)).body.teams).toHaveLength(0);
      }
      const foreignAfter = (await get(`/teams/${foreign.id}`, other.owner.key)).body.team;
      expect(foreignAfter.members).toHaveLength(1);
    });
  });

  describe("read", () => {
    it("gets a team with parent and members in ≤ 2 queries, whatever the member count", async () => {
      const parent = await createTeam(t.owner.key, { name: "Big parent" });
      const team = await createTeam(t.owner.key, { name: "Big", parentId: parent.id });
      const fixture = { id: team.id, name: team.name, prefix: team.prefix, workspaceId: t.workspaceId };
      const joined = [];
      for (let i = 0; i < 12; i++) joined.push(await joinTeam(fixture, await addMember(t), i % 2 ? "VIEWER" : "ADMIN"));
      const res = await get(`/teams/${team.id}`, member.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBeLessThanOrEqual(2);
      expect(res.body.team.parent).toEqual({ id: parent.id, name: "Big parent" });
      expect(res.body.team.members).toHaveLength(13);
      expect(res.body.team.members.map((m: any) => m.membershipId)).toEqual([team.members[0].membershipId, ...joined]);
      expect(res.body.team.members[2].role).toBe("VIEWER");
    });

    it("selects fields, nested ones too; an unknown field is 400", async () => {
      const parent = await createTeam(t.owner.key, { name: "Fields parent" });
      const team = await createTeam(t.owner.key, { name: "Fields", parentId: parent.id });
      const res = await get(`/teams/${team.id}?fields=id,parent{name},members{id,role}`, t.owner.key);
      expect(res.body.team).toEqual({ id: team.id, parent: { name: "Fields parent" }, members: [{ id: t.owner.userId, role: "OWNER" }] });
      expect((await get(`/teams/${team.id}?fields=name`, t.owner.key)).body.team).toEqual({ name: "Fields" });
      const bad = await get(`/teams/${team.id}?fields=id,members{secret}`, t.owner.key);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("BAD_REQUEST");
    });

    it("is 404 for an unknown id", async () => {
      expect((await get(`/teams/${newId("team")}`, t.owner.key)).status).toBe(404);
    });
  });

  describe("update", () => {
    it("renames, re-prefixes, describes and re-parents in one transaction; null clears the parent", async () => {
      const parent = await createTeam(t.owner.key, { name: "New parent" });
      const team = await createTeam(t.owner.key, { name: "Old" });
      const prefix = freshPrefix("NEW");
      const res = await patch(`/teams/${team.id}`, { name: "New", prefix, description: "Now described", parentId: parent.id }, t.owner.key);
      expect(res.status).toBe(200);
      expectAtomicWrite(res);
      expect(res.body.team).toMatchObject({
        id: team.id,
        name: "New",
        prefix,
        description: "Now described",
        parentId: parent.id,
        parent: { id: parent.id, name: "New parent" },
      });
      expect(res.body.team.members).toEqual(team.members);
      expect(res.body.team.updatedAt >= team.updatedAt).toBe(true);
      const cleared = await patch(`/teams/${team.id}`, { parentId: null }, t.owner.key);
      expect(cleared.body.team).toMatchObject({ name: "New", parentId: null, parent: null });
      expect((await get(`/teams/${team.id}`, t.owner.key)).body.team).toEqual(cleared.body.team);
    });

    it("rejects a parent that is the team itself or one of its descendants (422 at parentId)", async () => {
      const a = await createTeam(t.owner.key, { name: "A" });
      const b = await createTeam(t.owner.key, { name: "B", parentId: a.id });
      const c = await createTeam(t.owner.key, { name: "C", parentId: b.id });
      for (const parentId of [a.id, b.id, c.id]) {
        const res = await patch(`/teams/${a.id}`, { parentId }, t.owner.key);
        expect(res.status, parentId).toBe(422);
        expect(res.body.errors.parentId).toBeDefined();
      }
      expect((await patch(`/teams/${b.id}`, { parentId: c.id }, t.owner.key)).status).toBe(422);
      expect((await get(`/teams/${a.id}`, t.owner.key)).body.team.parentId).toBeNull();
      // Moving a leaf elsewhere in the tree is fine.
      const d = await createTeam(t.owner.key, { name: "D" });
      expect((await patch(`/teams/${c.id}`, { parentId: d.id }, t.owner.key)).body.team.parent).toEqual({ id: d.id, name: "D" });
    });

    it("never lets two concurrent moves build a cycle (A under B while B goes under A)", async () => {
      for (let round = 0; round < 5; round++) {
        const a = await createTeam(t.owner.key, { name: "Swap A" });
        const b = await createTeam(t.owner.key, { name: "Swap B" });
        const results = await Promise.all([
          patch(`/teams/${a.id}`, { parentId: b.id }, t.owner.key),
          patch(`/teams/${b.id}`, { parentId: a.id }, t.owner.key),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
      }
    });

    it("rejects a foreign or unknown parent (404), a taken prefix (409) and a bad prefix (422), changing nothing", async () => {
      const team = await createTeam(t.owner.key, { name: "Stable" });
      const taken = await createTeam(t.owner.key);
      const other = await newTenant();
      const foreign = await createTeam(other.owner.key);
      expect((await patch(`/teams/${team.id}`, { parentId: foreign.id }, t.owner.key)).status).toBe(404);
      expect((await patch(`/teams/${team.id}`, { parentId: newId("team") }, t.owner.key)).status).toBe(404);
      const dup = await patch(`/teams/${team.id}`, { name: "Renamed", prefix: taken.prefix }, t.owner.key);
      expect(dup.status).toBe(409);
      expect(dup.body.error.code).toBe("CONFLICT");
      expect((await patch(`/teams/${team.id}`, { prefix: "lower" }, t.owner.key)).status).toBe(422);
      expect((await patch(`/teams/${team.id}`, { members: [] }, t.owner.key)).status).toBe(422);
      expect((await get(`/teams/${team.id}`, t.owner.key)).body.team).toEqual(team);
    });
  });

  describe("permissions", () => {
    let team: any;
    let plain: Member; // workspace MEMBER outside the team
    let teamMember: Member;
    let teamAdmin: Member;
    let teamOwner: Member;
    let wsAdmin: Member;
    beforeAll(async () => {
      [plain, teamMember, teamAdmin, teamOwner, wsAdmin] = await Promise.all([
        addMember(t),
        addMember(t),
        addMember(t),
        addMember(t),
        addMember(t, "ADMIN"),
      ]);
    });
    const fresh = async () => {
      team = await createTeam(t.owner.key, { name: "Guarded" });
      const fixture = { id: team.id, name: team.name, prefix: team.prefix, workspaceId: t.workspaceId };
      await joinTeam(fixture, teamMember, "MEMBER");
      await joinTeam(fixture, teamAdmin, "ADMIN");
      await joinTeam(fixture, teamOwner, "OWNER");
      return team;
    };

    it("a workspace MEMBER without a team role, or a team MEMBER, can read but not change or delete the team", async () => {
      await fresh();
      for (const caller of [plain, teamMember]) {
        expect((await get(`/teams/${team.id}`, caller.key)).status).toBe(200);
        const upd = await patch(`/teams/${team.id}`, { name: "Hijacked" }, caller.key);
        expect(upd.status).toBe(403);
        expect(upd.body.error.code).toBe("FORBIDDEN");
        expect((await del(`/teams/${team.id}`, caller.key)).status).toBe(403);
      }
      expect((await get(`/teams/${team.id}`, t.owner.key)).body.team.name).toBe("Guarded");
    });

    it("a team ADMIN can update but not delete", async () => {
      await fresh();
      expect((await patch(`/teams/${team.id}`, { name: "By admin" }, teamAdmin.key)).status).toBe(200);
      expect((await del(`/teams/${team.id}`, teamAdmin.key)).status).toBe(403);
      expect((await get(`/teams/${team.id}`, t.owner.key)).status).toBe(200);
    });

    it("a team OWNER and a workspace ADMIN outside the team can update and delete", async () => {
      await fresh();
      expect((await patch(`/teams/${team.id}`, { name: "By owner" }, teamOwner.key)).status).toBe(200);
      expect((await del(`/teams/${team.id}`, teamOwner.key)).status).toBe(204);
      await fresh();
      expect((await patch(`/teams/${team.id}`, { name: "By ws admin" }, wsAdmin.key)).status).toBe(200);
      expect((await del(`/teams/${team.id}`, wsAdmin.key)).status).toBe(204);
      expect((await get(`/teams/${team.id}`, t.owner.key)).status).toBe(404);
    });
  });

  describe("tenancy", () => {
    it("hides another workspace's team: GET/PATCH/DELETE are 404 and nothing changes", async () => {
      const other = await newTenant();
      const foreign = await createTeam(other.owner.key, { name: "Secret" });
      expect((await get(`/teams/${foreign.id}`, t.owner.key)).status).toBe(404);
      expect((await patch(`/teams/${foreign.id}`, { name: "Hacked" }, t.owner.key)).status).toBe(404);
      expect((await del(`/teams/${foreign.id}`, t.owner.key)).status).toBe(404);
      // Re-parenting theirs under ours fails the same way.
      const mine = await createTeam(t.owner.key);
      expect((await patch(`/teams/${foreign.id}`, { parentId: mine.id }, t.owner.key)).status).toBe(404);
      expect((await get("/teams", t.owner.key)).body.teams.map((x: any) => x.id)).not.toContain(foreign.id);
      expect((await get(`/teams/${foreign.id}`, other.owner.key)).body.team).toEqual(foreign);
    });
  });

  describe("list", () => {
    let w: Tenant;
    let root: any;
    const created: any[] = [];
    beforeAll(async () => {
      w = await newTenant("Team list");
      root = await createTeam(w.owner.key, { name: "Root", prefix: "ROOT" });
      created.push(root);
      for (let i = 0; i < 11; i++) {
        created.push(
          await createTeam(w.owner.key, {
            name: `Squad ${String(i).padStart(2, "0")}`,
            prefix: `SQ${i}`,
            parentId: i % 3 === 0 ? root.id : undefined,
          }),
        );
      }
      const fixture = { ...root, workspaceId: w.workspaceId };
      for (let i = 0; i < 25; i++) await joinTeam(fixture, await addMember(w));
    });

    it("lists every team with parent and members in ≤ 2 queries, whatever the member count", async () => {
      const res = await get("/teams", w.owner.key);
      expect(res.status).toBe(200);
      expect(res.queries).toBeLessThanOrEqual(2);
      expect(res.body.pagination).toEqual({ limit: 50, nextCursor: null });
      expect(res.body.teams.map((x: any) => x.id)).toEqual(created.map((x) => x.id));
      expect(res.body.teams[0].members).toHaveLength(26);
      expect(res.body.teams[1]).toMatchObject({ parentId: root.id, parent: { id: root.id, name: "Root" } });
      expect(res.body.teams[2]).toMatchObject({ parentId: null, parent: null });
    });

    it("walks every page exactly once, in the requested order", async () => {
      const byName = await walk("/teams?sort[name]=desc", "teams", w.owner.key, 5);
      expect(byName.map((x) => x.name)).toEqual(
        created
          .map((x) => x.name)
          .sort()
          .reverse(),
      );
      const byParent = await walk("/teams?sort[parentId]=asc&sort[createdAt]=desc", "teams", w.owner.key, 3);
      expect(byParent.map((x) => x.id)).toEqual([
        ...created
          .filter((x) => x.parentId)
          .reverse()
          .map((x) => x.id),
        ...created
          .filter((x) => !x.parentId)
          .reverse()
          .map((x) => x.id),
      ]);
    });

    it("filters by prefix, name, parentId (incl. null) and id", async () => {
      const ids = (res: any) => res.body.teams.map((x: any) => x.id);
      expect(ids(await get("/teams?filter[eq][prefix]=SQ3", w.owner.key))).toEqual([created[4].id]);
      expect(ids(await get("/teams?filter[startsWith][prefix]=sq1", w.owner.key))).toEqual([created[2].id, created[11].id]);
      expect(ids(await get("/teams?filter[contains][name]=ROO", w.owner.key))).toEqual([root.id]);
      const children = created.filter((x) => x.parentId === root.id).map((x) => x.id);
      expect(ids(await get(`/teams?filter[eq][parentId]=${root.id}`, w.owner.key))).toEqual(children);
      expect(ids(await get("/teams?filter[eq][parentId]=null", w.owner.key))).toEqual(created.filter((x) => !x.parentId).map((x) => x.id));
      expect(ids(await get(`/teams?filter[in][id]=${created[1].id}&filter[in][id]=${created[5].id}`, w.owner.key))).toEqual([
        created[1].id,
        created[5].id,
      ]);
      expect(ids(await get(`/teams?filter[gt][createdAt]=${created[9].createdAt}`, w.owner.key))).toEqual([created[10].id, created[11].id]);
    });

    it("selects fields in the list and rejects unknown filter, sort and field names with 400", async () => {
      const res = await get("/teams?fields=prefix,parent{id}&limit=2", w.owner.key);
      expect(res.body.teams).toEqual([
        { prefix: "ROOT", parent: null },
        { prefix: "SQ0", parent: { id: root.id } },
      ]);
      expect((await get("/teams?fields=members{membershipId}&limit=1", w.owner.key)).body.teams[0].members).toHaveLength(26);
      expect((await get("/teams?filter[eq][secret]=x", w.owner.key)).status).toBe(400);
      expect((await get("/teams?sort[members]=asc", w.owner.key)).status).toBe(400);
      expect((await get("/teams?fields=nope", w.owner.key)).status).toBe(400);
      expect((await get("/teams?limit=251", w.owner.key)).status).toBe(422);
    });

    it("never shows another workspace's teams", async () => {
      const res = await get("/teams", t.owner.key);
      const theirs = new Set(created.map((x) => x.id));
      expect(res.body.teams.some((x: any) => theirs.has(x.id))).toBe(false);
    });
  });

  describe("delete", () => {
    it("deletes the team with its tasks, projects and memberships in one transaction; sub-teams become top-level", async () => {
      const team = await createTeam(t.owner.key, { name: "Doomed" });
      const child = await createTeam(t.owner.key, { name: "Survivor", parentId: team.id });
      const keep = await createTeam(t.owner.key, { name: "Bystander" });
      const ids = await withDb(async (db) => {
        const row = (teamId: string, number: number) => ({ workspaceId: t.workspaceId, teamId, number });
        const [project] = await db
          .insert(projects)
          .values({ id: newId("proj"), name: "P", ...row(team.id, 1) })
          .returning();
        const [task] = await db
          .insert(tasks)
          .values({ id: newId("task"), title: "T", projectId: project.id, ...row(team.id, 1) })
          .returning();
        const [keptTask] = await db
          .insert(tasks)
          .values({ id: newId("task"), title: "K", ...row(keep.id, 1) })
          .returning();
        return { project: project.id, task: task.id, keptTask: keptTask.id };
      });

      const res = await del(`/teams/${team.id}`, t.owner.key);
      expect(res.status).toBe(204);
      expect(res.body).toBeNull();
      expectAtomicWrite(res);

      expect((await get(`/teams/${team.id}`, t.owner.key)).status).toBe(404);
      expect((await get(`/teams/${child.id}`, t.owner.key)).body.team).toMatchObject({ parentId: null, parent: null });
      const left = await withDb(async (db) => ({
        tasks: await db
          .select({ id: tasks.id })
          .from(tasks)
          .where(inArray(tasks.id, [ids.task, ids.keptTask])),
        projects: await db.select({ id: projects.id }).from(projects).where(eq(projects.id, ids.project)),
        members: await db.select({ id: teamMembers.id }).from(teamMembers).where(eq(teamMembers.teamId, team.id)),
        teams: await db.select({ id: teams.id }).from(teams).where(eq(teams.id, team.id)),
      }));
      expect(left).toEqual({ tasks: [{ id: ids.keptTask }], projects: [], members: [], teams: [] });
      // The prefix is free again.
      expect((await post("/teams", { name: "Reborn", prefix: team.prefix }, t.owner.key)).status).toBe(201);
      expect((await del(`/teams/${team.id}`, t.owner.key)).status).toBe(404);
    });
  });

  it("documents every team operation in the OpenAPI document", async () => {
    const doc = (await get("/openapi.json")).body;
    expect(Object.keys(doc.paths["/teams"])).toEqual(expect.arrayContaining(["get", "post"]));
    expect(Object.keys(doc.paths["/teams/{id}"])).toEqual(expect.arrayContaining(["get", "patch", "delete"]));
    expect(doc.components.schemas.Team.properties.members).toBeDefined();
    expect(doc.components.schemas.TeamCreate).toBeDefined();
  });
});
