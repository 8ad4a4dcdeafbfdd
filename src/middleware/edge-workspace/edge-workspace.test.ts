// The origin's side of the front Worker's read-your-writes: the caller's workspace, named only when asked, only on
// success, and at the cost of at most the principal's query.
import { beforeAll, describe, expect, it } from "vitest";
import { api, post } from "../../../test/helpers/api";
import { newTenant, type Tenant } from "../../../test/helpers/fixtures";
import { ASK_WORKSPACE, CREDENTIAL_EXPIRES, WORKSPACE } from ".";

let tenant: Tenant;
beforeAll(async () => {
  tenant = await newTenant("Edge workspace");
});

describe("x-pm-workspace", () => {
  it("names the caller's workspace when the front Worker asks, for a read and a write", async () => {
    const read = await api("GET", "/teams", { key: tenant.owner.key, headers: { [ASK_WORKSPACE]: "1" } });
    expect([read.status, read.headers.get(WORKSPACE)]).toEqual([200, tenant.workspaceId]);
    const plain = await api("GET", "/teams", { key: tenant.owner.key });
    // Asking costs at most the principal's query, once.
    expect(read.queries - plain.queries).toBeLessThanOrEqual(1);
    const write = await api("POST", "/labels", {
      key: tenant.owner.key,
      body: { name: "edge", color: "#00ff00" },
      headers: { [ASK_WORKSPACE]: "1" },
    });
    expect([write.status, write.headers.get(WORKSPACE)]).toEqual([201, tenant.workspaceId]);
  });

  it("names when the credential expires, if it does: a key's expiresAt (a JWT's exp, test/edge.test.ts)", async () => {
    const plain = await api("GET", "/teams", { key: tenant.owner.key, headers: { [ASK_WORKSPACE]: "1" } });
    expect(plain.headers.has(CREDENTIAL_EXPIRES)).toBe(false);
    const expiresAt = new Date(Date.now() + 3_600_000);
    const made = await post("/api-keys", { name: "expiring", expiresAt: expiresAt.toISOString() }, tenant.owner.key);
    const read = await api("GET", "/teams", { key: made.body.key, headers: { [ASK_WORKSPACE]: "1" } });
    expect([read.status, read.headers.get(CREDENTIAL_EXPIRES)]).toEqual([200, String(expiresAt.getTime())]);
  });

  it("says nothing unasked, on a refusal, or without a caller", async () => {
    expect((await api("GET", "/teams", { key: tenant.owner.key })).headers.has(WORKSPACE)).toBe(false);
    const refused = await api("GET", "/teams", { key: "pmk_nope", headers: { [ASK_WORKSPACE]: "1" } });
    expect([refused.status, refused.headers.has(WORKSPACE)]).toEqual([401, false]);
    const missing = await api("GET", "/tasks/NOPE-1", { key: tenant.owner.key, headers: { [ASK_WORKSPACE]: "1" } });
    expect([missing.status, missing.headers.has(WORKSPACE)]).toEqual([404, false]);
    const health = await api("GET", "/health", { headers: { [ASK_WORKSPACE]: "1" } });
    expect([health.status, health.headers.has(WORKSPACE)]).toEqual([200, false]);
  });
});
