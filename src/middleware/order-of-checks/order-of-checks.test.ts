// The order of checks (docs/api.md, conventions): a protected operation answers 401 for a missing or invalid credential whatever its body or
// parameters (only 413 and 405 come first); then 403/404; then validation.
import { beforeAll, describe, expect, it } from "vitest";
import { api, patch, post } from "../../../test/helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "../../../test/helpers/fixtures";
import { type Operation, servedOpenApi } from "../../../test/helpers/openapi-conformance";
import { newId } from "../../ids";

const UNKNOWN_KEY = "pmk_unknownunknownunknownunknownunknownunknown";
const concrete = (template: string) => template.replace(/\{[^}]+\}/g, "x_nothing");

let tenant: Tenant;
let team: TeamFixture;
let writes: Operation[];

beforeAll(async () => {
  tenant = await newTenant("Order Co");
  team = await newTeam(tenant);
  const openapi = await servedOpenApi();
  writes = openapi.operations().filter((op) => ["post", "patch", "put"].includes(op.method) && op.op.security?.length && op.op.requestBody);
});

describe("401 comes before any answer about the body", () => {
  it("every protected POST and PATCH with an invalid (or no) credential and a bad body is 401, never 400 or 422", async () => {
    expect(writes.length).toBeGreaterThan(25);
    const bodies: [string, string][] = [
      ["an empty object", "{}"],
      ["malformed JSON", '{"title":'],
      ["wrong types", '{"title":1,"teamId":false,"name":[],"content":{}}'],
      ["a NUL", '{"title":"a\\u0000b"}'],
      ["a __proto__ key", '{"__proto__":{}}'],
    ];
    for (const op of writes) {
      for (const [what, rawBody] of bodies) {
        for (const key of [UNKNOWN_KEY, undefined]) {
          const res = await api(op.method, concrete(op.path), { rawBody, key, headers: { "content-type": "application/json" } });
          const label = `${op.method.toUpperCase()} ${op.path} with ${what}, ${key ? "an unknown key" : "no credential"}`;
          expect(res.status, label).toBe(401);
          expect(res.body.error.code, label).toBe("UNAUTHORIZED");
        }
      }
    }
  }, 120_000);

  it("POST /tasks {} with an unknown key is 401 (it was 400 'teamId is required'); with a valid key it is that 400", async () => {
    const refused = await post("/tasks", {}, UNKNOWN_KEY);
    expect(refused.status).toBe(401);
    const bad = await post("/tasks", {}, tenant.owner.key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/teamId/);
    // A valid credential pays the check only on the refusal: the write itself is as cheap as before.
    expect((await post("/tasks", { teamId: team.id, title: "Cheap" }, tenant.owner.key)).queries).toBe(1);
  });

  it("a bad query or path value of a protected read is 401 too", async () => {
    expect((await api("GET", "/tasks?limit=0", { key: UNKNOWN_KEY })).status).toBe(401);
    expect((await api("GET", "/tasks?filter[eq][nope]=1", { key: UNKNOWN_KEY })).status).toBe(401);
    expect((await api("GET", "/tasks?limit=0", { key: tenant.owner.key })).status).toBe(422);
  });

  it("413 still comes first; public operations validate without a credential", async () => {
    const huge = await api("POST", "/tasks", {
      rawBody: `{"title":"${"x".repeat(1024 * 1024)}"}`,
      key: UNKNOWN_KEY,
      headers: { "content-type": "application/json" },
    });
    expect(huge.status).toBe(413);
    expect((await post("/signup/start", { email: "nope" })).status).toBe(422);
  });
});

describe("404 comes before validation", () => {
  it("a write to a resource that is missing or another workspace's is 404 whatever its body", async () => {
    const other = await newTenant();
    const foreignTeam = await newTeam(other);
    const foreignTask = (await post("/tasks", { teamId: foreignTeam.id, title: "Theirs" }, other.owner.key)).body.task;
    const mine = (await post("/tasks", { teamId: team.id, title: "Mine" }, tenant.owner.key)).body.task;
    for (const [path, body] of [
      [`/tasks/${foreignTask.id}`, { status: "BOGUS" }],
      [`/tasks/${foreignTask.reference}`, { title: "" }],
      [`/tasks/${newId("task")}`, { status: "BOGUS" }],
      [`/projects/${newId("proj")}`, { status: "BOGUS" }],
      [`/labels/${newId("label")}`, { color: "red" }],
      [`/teams/${foreignTeam.id}`, { prefix: "lower" }],
    ] as const) {
      const res = await patch(path, body, tenant.owner.key);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe("NOT_FOUND");
    }
    for (const path of [`/teams/${foreignTeam.id}/members`, `/projects/${newId("proj")}/comments`, `/teams/${foreignTeam.id}/import`]) {
      const res = await post(path, { bogus: true }, tenant.owner.key);
      expect(res.status, path).toBe(404);
    }
    // An existing one gets the validation answer.
    const invalid = await patch(`/tasks/${mine.reference}`, { status: "BOGUS" }, tenant.owner.key);
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors)).toEqual(["status"]);
  });
});
