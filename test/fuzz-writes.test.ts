// The fuzz of every write operation (POST, PATCH, PUT, DELETE) of the served OpenAPI document, and the findings it made,
// replayed: test/helpers/fuzz.ts says what it generates and what every answer must be (a rejected write leaves every row
// of the tenant's workspace as it was). The reads are test/fuzz-reads.test.ts.
import { describe, expect, it } from "vitest";
import { fuzzFixtures, fuzzOperations, send } from "./helpers/fuzz";

fuzzFixtures();
fuzzOperations("writes");

describe("fuzz findings, replayed", () => {
  it("a NUL in a path id is a documented 400, also where the route declares no 400 (DELETE)", async () => {
    const res = await send("delete", { path: "/projects/%00", query: "", credential: "owner", headers: {} });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error.code).toBe("BAD_REQUEST");
  });

  it("a malformed multipart form on the device page is an incomplete form (422 page), not a 500", async () => {
    const body = { type: "multipart/form-data; boundary=x", text: "title=x" };
    for (const path of ["/device", "/device/confirm", "/device/decide"]) {
      const res = await send("post", { path, query: "", credential: "none", body, headers: {} });
      expect(res.status, path).toBe(422);
      expect(res.type).toMatch(/text\/html/);
    }
  });
});
