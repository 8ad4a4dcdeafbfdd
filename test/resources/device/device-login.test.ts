// A device's login (docs/api.md "Least privilege"): the scopes a device asks for, what its approval grants
// (never more than the approving credential has), the page that says it in words, a refresh token that renews the
// login and is used up on use, and revocation that ends every token of the login at once.
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { deviceAuthorizations } from "../../../drizzle/schema";
import { SCOPES } from "../../../src/core/scopes";
import { api, fetchApp, post } from "../../helpers/api";
import { addMember, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

const claims = (jwt: string) => JSON.parse(atob(jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));

let tenant: Tenant;
let team: TeamFixture;
let other: TeamFixture;

beforeAll(async () => {
  tenant = await newTenant("Device Login Co");
  team = await newTeam(tenant, { prefix: "DLA" });
  other = await newTeam(tenant, { prefix: "DLB" });
});

/** A device that asked for `scope`, approved through the API with `approver`'s key; its first tokens. */
async function login(scope: string | undefined, approver = tenant.owner.key) {
  const started = await post("/auth/device/code", { client_name: "pm test", ...(scope !== undefined && { scope }) });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  expect((await post("/auth/device/approve", { user_code: started.body.user_code }, approver)).status).toBe(200);
  const issued = await post("/auth/device/token", { device_code: started.body.device_code });
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  return issued.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}
const asBearer = (jwt: string, method: string, path: string, body?: unknown) => api(method, path, { bearer: jwt, body });

describe("device login scopes (RFC 8628 §3.1)", () => {
  it("carries the scope it asked for in the token, and is held to it like a key", async () => {
    const tokens = await login("read comments:write");
    expect(tokens.scope).toBe("read comments:write");
    expect(claims(tokens.access_token)).toMatchObject({ scope: "read comments:write", sid: expect.stringMatching(/^dev_/) });
    const me = await asBearer(tokens.access_token, "GET", "/me");
    expect(me.body).toMatchObject({ scopes: ["read", "comments:write"], teamIds: null });

    const task = await post("/tasks", { teamId: team.id, title: "Commented" }, tenant.owner.key);
    const comment = await asBearer(tokens.access_token, "POST", "/comments", {
      taskId: task.body.task.id,
      content: "from a scoped device",
    });
    expect(comment.status).toBe(201);
    const refused = await asBearer(tokens.access_token, "POST", "/tasks", { teamId: team.id, title: "Not allowed" });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", details: { requiredScope: "tasks:write" } });
    // Scope comes before validation: an invalid body is still 403.
    expect((await asBearer(tokens.access_token, "DELETE", `/tasks/${task.body.task.id}`)).status).toBe(403);
    expect((await asBearer(tokens.access_token, "POST", "/tasks", {})).body.error.details).toEqual({ requiredScope: "tasks:write" });
  });

  it("refuses an unknown scope name (400 invalid_scope); omitted, the token has every scope", async () => {
    const bad = await post("/auth/device/code", { scope: "read tasks:delete" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "BAD_REQUEST", details: { error: "invalid_scope" } });
    const tokens = await login(undefined);
    expect(tokens.scope).toBe(SCOPES.join(" "));
    expect(claims(tokens.access_token).scope).toBeUndefined();
  });

  it("never grants more than the approving credential has: scopes and teams are narrowed to it", async () => {
    const narrow = await post("/api-keys", { name: "approver", scopes: ["read", "tasks:write"], teamIds: [team.id] }, tenant.owner.key);
    expect(narrow.status).toBe(201);
    const tokens = await login("read tasks:write comments:write", narrow.body.key);
    expect(tokens.scope).toBe("read tasks:write");
    expect(claims(tokens.access_token).tid).toEqual([team.id]);
    expect((await asBearer(tokens.access_token, "POST", "/tasks", { teamId: team.id, title: "Mine" })).status).toBe(201);
    expect((await asBearer(tokens.access_token, "POST", "/tasks", { teamId: other.id, title: "Not mine" })).status).toBe(404);
  });

  it("shows what the device asks for in words on the approval page", async () => {
    const started = await post("/auth/device/code", { client_name: "triage bot", scope: "read comments:write" });
    const form = new URLSearchParams({ user_code: started.body.user_code, email: tenant.owner.email });
    const res = await fetchApp(
      new Request("http://api.test/device", {
        method: "POST",
        body: form.toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
    );
    const page = await res.text();
    expect(res.status).toBe(200);
    expect(page).toContain("It asks only to");
    expect(page).toContain("write and delete comments");
    expect(page).toContain("<code>comments:write</code>");
    expect(page).not.toContain("tasks:write");
  });
});

describe("a login that lasts: refresh and revocation", () => {
  it("renews with the refresh token, which is used up on use (rotation); the new tokens keep the scopes", async () => {
    const first = await login("read");
    const renewed = await post("/auth/token", { grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    expect(renewed.body).toEqual({
      access_token: expect.any(String),
      token_type: "Bearer",
      expires_in: 3600,
      scope: "read",
      refresh_token: expect.stringMatching(/^pmr_/),
    });
    expect(renewed.body.refresh_token).not.toBe(first.refresh_token);
    expect(claims(renewed.body.access_token).sid).toBe(claims(first.access_token).sid);
    expect((await asBearer(renewed.body.access_token, "GET", "/me")).status).toBe(200);

    const reused = await post("/auth/token", { grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(reused.status).toBe(400);
    // RFC 6749 §5.2 at the top level, as on the device token endpoint.
    expect(reused.body).toEqual({ error: "invalid_grant", error_description: "Unknown, used, revoked or expired refresh_token" });
    expect(reused.headers.get("cache-control")).toBe("no-store");
    const wrongGrant = await post("/auth/token", { grant_type: "password", refresh_token: first.refresh_token });
    expect(wrongGrant.status).toBe(400);
    expect(wrongGrant.body.error).toBe("unsupported_grant_type");
    const missing = await post("/auth/token", { grant_type: "refresh_token" });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: "invalid_request", error_description: expect.stringContaining("refresh_token") });
    // Form-encoded, as OAuth clients send it.
    const form = await fetchApp(
      new Request("http://api.test/auth/token", {
        method: "POST",
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: renewed.body.refresh_token }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
    );
    expect(form.status).toBe(200);
  });

  it("revokes the whole login: the refresh token and every access token of it are refused at once", async () => {
    const tokens = await login(undefined);
    const renewed = (await post("/auth/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token })).body;
    expect((await asBearer(tokens.access_token, "GET", "/me")).status).toBe(200);

    const revoked = await post("/auth/revoke", { token: renewed.refresh_token });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ revoked: true });
    for (const jwt of [tokens.access_token, renewed.access_token]) {
      const res = await asBearer(jwt, "GET", "/me");
      expect(res.status).toBe(401);
      expect((await asBearer(jwt, "GET", "/tasks")).status).toBe(401);
    }
    expect((await post("/auth/token", { grant_type: "refresh_token", refresh_token: renewed.refresh_token })).status).toBe(400);
    // Unknown or repeated: the same answer (RFC 7009 §2.2).
    expect((await post("/auth/revoke", { token: renewed.refresh_token })).body).toEqual({ revoked: true });
    expect((await post("/auth/revoke", { token: "pmr_unknown" })).status).toBe(200);
  });

  it("revokes by an access token too, and the stored refresh token is only a hash", async () => {
    const tokens = await login("read");
    const sid = claims(tokens.access_token).sid as string;
    const [row] = await withDb((db) => db.select().from(deviceAuthorizations).where(eq(deviceAuthorizations.id, sid)));
    expect(row.refreshHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(tokens.refresh_token);
    expect((await post("/auth/revoke", { token: tokens.access_token })).status).toBe(200);
    expect((await asBearer(tokens.access_token, "GET", "/me")).status).toBe(401);
    expect((await post("/auth/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token })).status).toBe(400);
  });

  it("refuses a refresh for a user who left the workspace", async () => {
    // A member's own login, then the member is removed.
    const member = await addMember(tenant, "MEMBER");
    const tokens = await login("read", member.key);
    expect((await api("DELETE", `/users/${member.userId}`, { key: tenant.owner.key })).status).toBe(204);
    const res = await post("/auth/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
  });
});
