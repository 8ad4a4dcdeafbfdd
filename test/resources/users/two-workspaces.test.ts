// A person who belongs to two workspaces is named by their email in each (docs/api.md, "Ids and names"), on every path that takes a
// user: a path, a body, a list filter, a batch read and an MCP tool; each resolves within the caller's workspace.
import { beforeAll, describe, expect, it } from "vitest";
import { joinWorkspaceWithKey } from "../../../src/auth/accounts/membership";
import { api, get, patch, post } from "../../helpers/api";
import { addMember, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";
import { call, connect } from "../../mcp-client";

interface Place {
  name: string;
  tenant: Tenant;
  team: TeamFixture;
  /** The person's own key in this workspace. */
  key: string;
}

let person: { userId: string; email: string };
const places: Place[] = [];

beforeAll(async () => {
  const a = await newTenant("Email A");
  const b = await newTenant("Email B");
  const member = await addMember(a, "MEMBER");
  person = { userId: member.userId, email: member.email };
  const keyInB = await withDb((db) =>
    joinWorkspaceWithKey(db, { workspaceId: b.workspaceId, userId: member.userId, role: "MEMBER", keyName: "b" }),
  );
  places.push({ name: "A (the first)", tenant: a, team: await newTeam(a), key: member.key });
  places.push({ name: "B (the second)", tenant: b, team: await newTeam(b), key: keyInB });
});

describe.each([0, 1])("in workspace %s of the person's two", (i) => {
  const place = () => places[i];
  const email = () => person.email;
  // Any case: an email names its user case-insensitively.
  const shouted = () => person.email.toUpperCase();

  it("GET and PATCH /users/{email}: the member, by the owner and by themself", async () => {
    const { tenant, key } = place();
    for (const asKey of [tenant.owner.key, key]) {
      const read = await get(`/users/${email()}`, asKey);
      expect(read.status).toBe(200);
      expect(read.body.user.id).toBe(person.userId);
      expect((await get(`/users/${shouted()}`, asKey)).body.user?.id).toBe(person.userId);
    }
    const renamed = await patch(`/users/${email()}`, { name: `Renamed in ${i}` }, key);
    expect(renamed.status).toBe(200);
    expect(renamed.body.user).toMatchObject({ id: person.userId, name: `Renamed in ${i}` });
  });

  it("a body, a list filter and a batch read name the person by email", async () => {
    const { tenant, team } = place();
    const created = await post("/tasks", { teamId: team.id, title: "by email", assigneeId: email() }, tenant.owner.key);
    expect(created.status).toBe(201);
    expect(created.body.task.assigneeId).toBe(person.userId);
    const added = await post(`/teams/${team.id}/members`, { userId: email(), role: "MEMBER" }, tenant.owner.key);
    expect(added.status).toBe(201);
    const listed = await get(`/tasks?filter[eq][assigneeId]=${encodeURIComponent(email())}`, tenant.owner.key);
    expect(listed.status).toBe(200);
    expect(listed.body.tasks.map((t: { id: string }) => t.id)).toEqual([created.body.task.id]);
    const batch = await api("POST", "/batch", { body: { requests: [`GET /users/${email()}`] }, key: tenant.owner.key });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0].user.id).toBe(person.userId);
  });

  it("an MCP tool's argument names the person by email", async () => {
    const { tenant, team } = place();
    const client = await connect({ "svc-api-key": tenant.owner.key });
    try {
      const made = await call(client, "create_task", { teamId: team.id, title: "by email over MCP", assigneeId: email() });
      expect(made.isError).toBe(false);
      expect(made.body.task.assigneeId).toBe(person.userId);
    } finally {
      await client.close();
    }
  });
});
