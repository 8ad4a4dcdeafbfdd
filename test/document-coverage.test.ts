// What the served document promises, for the answers that were missing from it or wrong: the index at the base URL,
// the document's contact, 413 on operations that take no body, and part numbers in digits only. `api()` checks every
// answer against the served document, so an undocumented status fails the call.
import { beforeAll, describe, expect, it } from "vitest";
import { api, fetchApp, get, post } from "./helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "./helpers/fixtures";

let t: Tenant;
let team: TeamFixture;
beforeAll(async () => {
  t = await newTenant("Document coverage");
  team = await newTeam(t);
});

describe("GET /", () => {
  it("answers a small public index (it was 404): name, version, and links to the reference, the document and the health check", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: "Project Management API",
      version: "1.0.0",
      links: { docs: "http://api.test/docs", openapi: "http://api.test/openapi.json", health: "http://api.test/health" },
    });
    for (const link of Object.values(res.body.links) as string[]) expect((await fetchApp(new Request(link))).status, link).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
  });

  it("is in the document, and the document's info names a contact (spectral's info-contact)", async () => {
    const doc = (await get("/openapi.json")).body;
    expect(doc.paths["/"].get).toMatchObject({ operationId: "getIndex", security: [] });
    expect(doc.info.contact).toEqual({ name: "Project Management API", url: "http://api.test/" });
  });
});

describe("413 on operations that take no body", () => {
  it("ping, rotate-secret, redeliver and POST /_dev/webhooks document the 413 the body limit answers them", async () => {
    const big = JSON.stringify({ pad: "x".repeat(1024 * 1024) });
    for (const path of [
      "/webhooks/whk_00000000000000000000000000/ping",
      "/webhooks/whk_00000000000000000000000000/rotate-secret",
      "/webhooks/whk_00000000000000000000000000/deliveries/wdl_00000000000000000000000000/redeliver",
      "/_dev/webhooks",
    ]) {
      const res = await api("POST", path, { rawBody: big, headers: { "content-type": "application/json" }, key: t.owner.key });
      expect(res.status, path).toBe(413);
      expect(res.body.error.code, path).toBe("PAYLOAD_TOO_LARGE");
    }
    const doc = (await get("/openapi.json")).body;
    for (const [path, item] of Object.entries(doc.paths) as [string, Record<string, any>][]) {
      for (const [method, op] of Object.entries(item)) {
        if (method !== "get") expect(op.responses["413"], `${method} ${path}`).toBeDefined();
      }
    }
  });
});

describe("import part numbers", () => {
  it("are digits only: 1e3, 0x10, +5, 5.0 and ' 5' are 422 (1e3 was read as part 1000)", async () => {
    const opened = await post("/imports", { teamId: team.id }, t.owner.key);
    expect(opened.status).toBe(201);
    const id = opened.body.import.id;
    const part = { data: { type: "team", version: 1, exportedAt: new Date().toISOString(), data: { root: team.id } } };
    for (const number of ["1e3", "0x10", "+5", "5.0", "%205"]) {
      const res = await api("PUT", `/imports/${id}/parts/${number}`, { body: part, key: t.owner.key });
      expect(res.status, number).toBe(422);
      expect(res.body.errors, number).toEqual({ number: ["Must be a part number in digits, 1…1000"] });
    }
    const status = await get(`/imports/${id}`, t.owner.key);
    expect(status.body.import.parts).toEqual([]);
  });
});
