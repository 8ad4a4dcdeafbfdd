// The collections hanging on tasks are the parts the served modules declare (src/store/transfer-part.ts): an app whose
// worklogs module declares no part exports, documents and imports no worklogs, while the service's own app does.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../src/app";
import { MODULES } from "../../../src/resources";
import { get, post } from "../../helpers/api";
import { newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

// Its worklogs are served still (their events render with their module's field map), but travel in no document.
const withoutWorklogs = buildApp(MODULES.map((m) => (m.name === "worklogs" ? { ...m, transfer: undefined } : m)));

async function call(method: string, path: string, key: string, body?: unknown) {
  const ctx = createExecutionContext();
  const headers = new Headers({ "svc-api-key": key, "content-type": "application/json" });
  const res = await withoutWorklogs.fetch(
    new Request(`http://api.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
    env,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: JSON.parse(text) };
}

type Schemas = Record<string, { properties?: Record<string, unknown> }>;
// A team's workflow states first: their module is mounted before the tasks' (an import writes them before the tasks).
const PARTS = ["states", "relations", "links", "attachments"];

describe("the export's parts are the served modules'", () => {
  let t: Tenant;
  let team: TeamFixture;

  beforeAll(async () => {
    t = await newTenant("Parts Co");
    team = await newTeam(t, { name: "Parted", prefix: "PARTS" });
    const task = (await post("/tasks", { teamId: team.id, title: "Timed" }, t.owner.key)).body.task;
    const logged = await post(`/tasks/${task.id}/worklogs`, { startedAt: "2026-05-04T09:00:00Z", durationSeconds: 600 }, t.owner.key);
    expect(logged.status, JSON.stringify(logged.body)).toBe(201);
  });

  it("documents the collections of the parts it serves, in the document's order", async () => {
    const data = (schemas: Schemas) => Object.keys(schemas.ExportData.properties ?? {}).slice(-6);
    const served = (await get("/openapi.json")).body.components.schemas as Schemas;
    expect(data(served)).toEqual([...PARTS, "worklogs", "cycles"]);
    const reduced = (await call("GET", "/openapi.json", t.owner.key)).body.components.schemas as Schemas;
    expect(data(reduced)).toEqual(["comments", ...PARTS, "cycles"]);
    expect(reduced.ExportWorklog).toBeUndefined();
  });

  it("exports no worklogs without their module's part, and its import refuses a document carrying them", async () => {
    const full = (await get(`/teams/${team.id}/export`, t.owner.key)).body;
    expect(full.data.worklogs).toHaveLength(1);
    const reduced = await call("GET", `/teams/${team.id}/export`, t.owner.key);
    expect(reduced.status).toBe(200);
    expect(Object.keys(reduced.body.data).slice(-5)).toEqual([...PARTS, "cycles"]);
    expect(reduced.body.data).not.toHaveProperty("worklogs");
    expect(reduced.body.data.tasks).toHaveLength(1);

    const into = await newTeam(t, { name: "Into", prefix: "INTO" });
    const imported = await call("POST", `/teams/${into.id}/import`, t.owner.key, { data: reduced.body });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const refused = await call("POST", `/teams/${into.id}/import`, t.owner.key, { data: full });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ errors: { "data.data.worklogs": ["Unknown field"] } });
  });
});
