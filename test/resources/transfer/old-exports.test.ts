/// <reference types="vite/client" />
// Every document the service ever exported imports (docs/api.md, "Export and import"): a field or
// collection added to the export document later is optional on import, with its default. test/fixtures/exports keeps,
// for each change of the document, one export as the service of just before it wrote it; each is imported whole
// (POST /teams/{id}/import) and staged (POST /imports, PUT /imports/{id}/parts/1, POST /imports/{id}/commit).
import { beforeAll, describe, expect, it } from "vitest";
import { joinWorkspaceWithKey } from "../../../src/auth/accounts/membership";
import { api, get, post } from "../../helpers/api";
import { newTeam, newTenant, type Tenant, withDb } from "../../helpers/fixtures";

// Bundled by Vite (the tests run in workerd, which has no file system): file name → document.
const documents = import.meta.glob<{ default: any }>("../../fixtures/exports/*.json", { eager: true });
const fixtures = Object.keys(documents).sort();
const load = (name: string) => structuredClone(documents[name].default);
const put = (path: string, body: unknown, key: string) => api("PUT", path, { body, key });

/** A key of the caller in the workspace an import made (its answer names it). */
const workspaceKey = (body: { workspace?: { id: string }; imported?: { id: string } }) =>
  withDb((db) =>
    joinWorkspaceWithKey(db, {
      workspaceId: (body.workspace ?? body.imported)!.id,
      userId: t.owner.userId,
      role: "OWNER",
      keyName: "test",
    }),
  );

let t: Tenant;
beforeAll(async () => {
  t = await newTenant("Old exports");
});

describe("an export from before each change of the document", () => {
  it("the fixtures cover each change", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(8);
  });

  it.each(fixtures)("%s imports in one request and staged, its tasks with the later fields' defaults", async (name) => {
    const doc = load(name);
    const key = t.owner.key;
    const titles = doc.data.tasks.map((x: { title: string }) => x.title).sort();
    // A workspace export goes into a new workspace; any other into a team.
    const intoWorkspace = doc.type === "workspace";
    const tasksOf = async (imported: { body: any }, team?: string) => {
      const where = intoWorkspace ? "" : `&filter[eq][teamId]=${team}`;
      const reader = intoWorkspace ? await workspaceKey(imported.body) : key;
      return (await get(`/tasks?fields=title,delegateId,estimate,timeTracking&limit=250${where}`, reader)).body.tasks;
    };

    const whole = intoWorkspace ? null : await newTeam(t);
    const res = await post(intoWorkspace ? "/workspaces/import" : `/teams/${whole!.id}/import`, { data: doc }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(intoWorkspace ? 201 : 200);

    const staged = intoWorkspace ? null : await newTeam(t);
    const opened = await post("/imports", intoWorkspace ? {} : { teamId: staged!.id }, key);
    expect(opened.status, JSON.stringify(opened.body)).toBe(201);
    const part = await put(`/imports/${opened.body.import.id}/parts/1`, { data: doc }, key);
    expect(part.status, JSON.stringify(part.body)).toBe(200);
    const committed = await post(`/imports/${opened.body.import.id}/commit`, undefined, key);
    expect(committed.status, JSON.stringify(committed.body)).toBe(intoWorkspace ? 201 : 200);

    for (const [imported, team] of [
      [res, whole?.id],
      [committed, staged?.id],
    ] as const) {
      const tasks = await tasksOf(imported, team);
      expect(tasks.map((x: { title: string }) => x.title).sort()).toEqual(titles);
      for (const task of tasks) expect(task.delegateId).toBeNull();
    }
  });
});
