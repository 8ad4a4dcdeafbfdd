// POST /batch: each item is a direct GET run through the app with the caller's credential, on the batch
// request's own database pool; slots come back in order, failures as {error} slots, the whole call 200.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { app } from "../../../src/app";
import { type ApiResponse, api, get, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

const batch = (requests: unknown, key?: string) => api("POST", "/batch", { body: { requests }, key });

describe("POST /batch", () => {
  let t: Tenant;
  let team: TeamFixture;
  let viewer: Member;
  let foreignTask: string;
  const refs: string[] = [];

  beforeAll(async () => {
    t = await newTenant("Batch");
    team = await newTeam(t);
    viewer = await addMember(t, "MEMBER");
    await joinTeam(team, viewer, "VIEWER");
    for (let i = 0; i < 20; i++) {
      const res = await post("/tasks", { title: `b${i}`, teamId: team.id }, t.owner.key);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      refs.push(res.body.task.reference);
    }
    const other = await newTenant("Batch other");
    const otherTeam = await newTeam(other);
    foreignTask = (await post("/tasks", { title: "secret", teamId: otherTeam.id }, other.owner.key)).body.task.id;
  });

  it("answers each item as its direct GET, in order, with failures as error slots and an overall 200", async () => {
    const requests = [
      `/tasks/${refs[0]}`,
      `/tasks/${team.prefix}-999`,
      "/tasks?filter[eq][nope]=1",
      "/tasks?limit=0",
      `/tasks?filter[eq][title]=b1&fields=reference,title`,
      `/teams/${team.id}/members`,
      `GET /tasks/${refs[1]}?fields=title`,
    ];
    const res = await batch(requests, t.owner.key);
    expect(res.status).toBe(200);
    const direct = await Promise.all(requests.map((p) => get(p.replace(/^GET /, ""), t.owner.key)));
    expect(res.body.results).toHaveLength(requests.length);
    expect(res.body.results[0]).toEqual(direct[0].body);
    expect(res.body.results[0].task.reference).toBe(refs[0]);
    expect(direct[1].status).toBe(404);
    expect(res.body.results[1]).toEqual(direct[1].body);
    expect(direct[2].status).toBe(400);
    expect(res.body.results[2]).toEqual(direct[2].body);
    expect(direct[3].status).toBe(422);
    expect(res.body.results[3]).toEqual({
      error: { code: "VALIDATION_FAILED", message: expect.stringContaining("limit"), details: { errors: direct[3].body.errors } },
    });
    expect(res.body.results[4]).toEqual(direct[4].body);
    expect(res.body.results[4].tasks).toEqual([{ reference: refs[1], title: "b1" }]);
    expect(res.body.results[5]).toEqual(direct[5].body);
    expect(res.body.results[6]).toEqual({ task: { title: "b1" } });
  });

  it("refuses non-GETs, unknown paths, paths outside the API and itself as BAD_REQUEST slots", async () => {
    const bad = [
      `DELETE /tasks/${refs[0]}`,
      `post /tasks`,
      "/no-such-route",
      "/signup/start",
      "/batch",
      "http://evil.example/tasks",
      "//evil.example/tasks",
      "/\\evil.example/tasks",
      "tasks",
      "/tasks/../me",
      "/%2e%2e/me",
      "/docs",
      "/tasks /me",
    ];
    const res = await batch(bad, t.owner.key);
    expect(res.status).toBe(200);
    expect(res.body.results).toHaveLength(bad.length);
    for (const [i, slot] of res.body.results.entries()) {
      expect(slot, bad[i]).toEqual({ error: { code: "BAD_REQUEST", message: expect.any(String) } });
    }
    expect((await get(`/tasks/${refs[0]}`, t.owner.key)).status).toBe(200); // the DELETE never ran
  });

  it("takes 1..50 items (0 and 51 are 422) and strings only", async () => {
    expect((await batch([], t.owner.key)).status).toBe(422);
    const tooMany = await batch(
      Array.from({ length: 51 }, () => "/me"),
      t.owner.key,
    );
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.requests).toBeDefined();
    expect((await batch([42], t.owner.key)).status).toBe(422);
    expect((await api("POST", "/batch", { body: { requests: ["/me"], extra: 1 }, key: t.owner.key })).status).toBe(422);
    const fifty = await batch(
      Array.from({ length: 50 }, () => "/me"),
      t.owner.key,
    );
    expect(fifty.status).toBe(200);
    expect(fifty.body.results).toHaveLength(50);
  });

  it("never reveals another workspace's task: its slot is NOT_FOUND, as directly", async () => {
    const res = await batch([`/tasks/${foreignTask}`, `/tasks/${refs[2]}`], t.owner.key);
    expect(res.body.results[0]).toEqual((await get(`/tasks/${foreignTask}`, t.owner.key)).body);
    expect(res.body.results[0].error.code).toBe("NOT_FOUND");
    expect(res.body.results[1].task.reference).toBe(refs[2]);
  });

  it("is 401 as a whole without a credential or with a bad one", async () => {
    const none = await batch([`/tasks/${refs[0]}`]);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("UNAUTHORIZED");
    const wrong = await batch([`/tasks/${refs[0]}`, "/health"], "pm_not-a-real-key");
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe("UNAUTHORIZED");
    // No item reaches a route that checks the credential: the batch checks it itself.
    const unchecked = await batch(["/health", "DELETE /me", "/nowhere"], "pm_not-a-real-key");
    expect(unchecked.status).toBe(401);
    const valid = await batch(["/health", "DELETE /me"], t.owner.key);
    expect(valid.status).toBe(200);
    expect(valid.queries).toBe(1);
  });

  it("gives a team VIEWER exactly what the direct calls give", async () => {
    const requests = [`/tasks/${refs[3]}`, "/tasks?limit=5", `/teams/${team.id}`, "/me", `/tasks/${foreignTask}`];
    const res = await batch(requests, viewer.key);
    const direct = await Promise.all(requests.map((p) => get(p, viewer.key)));
    expect(res.body.results).toEqual(direct.map((d) => d.body));
  });

  // The measure: statements (Server-Timing's query count). A direct task read is 1; a batch of 20 task reads is one
  // statement in all (the reads of one resource combined in one `id = any(…)` select, each keyed back to its item: was 20, one
  // each, when every item ran through the app), and nothing on top (the items' successes prove the credential).
  it("costs 20 task reads one statement in all, nothing more", async () => {
    const one = await get(`/tasks/${refs[0]}`, t.owner.key);
    expect(one.queries).toBe(1);
    const res = await batch(
      refs.map((ref) => `/tasks/${ref}`),
      t.owner.key,
    );
    expect(res.body.results.map((r: any) => r.task.reference)).toEqual(refs);
    expect(res.queries).toBe(one.queries);
    // Each keeps its own 404 and its own fields (the reads of one selection of fields share a statement).
    const mixed = await batch([`/tasks/${refs[8]}?fields=title`, `/tasks/${foreignTask}`, `/tasks/${refs[9]}`], t.owner.key);
    expect(mixed.body.results[0]).toEqual({ task: { title: "b8" } });
    expect(mixed.body.results[1].error.code).toBe("NOT_FOUND");
    expect(mixed.body.results[2].task.reference).toBe(refs[9]);
    // Ids and names in any case find their records in the one statement of their resource, each keyed back by its value.
    const forms = await batch(
      [
        `/tasks/${refs[2].toLowerCase()}`,
        `/tasks/${res.body.results[2].task.id}`,
        `/tasks/${refs[2]}`,
        `/teams/${team.prefix.toLowerCase()}`,
        `/teams/${team.id}`,
      ],
      t.owner.key,
    );
    expect(forms.body.results.slice(0, 3).map((r: any) => r.task.reference)).toEqual([refs[2], refs[2], refs[2]]);
    expect(forms.body.results.slice(3).map((r: any) => r.team.id)).toEqual([team.id, team.id]);
    expect(forms.queries).toBe(2);
  });

  // Every item is a call of its GET's read with the batch's caller: one-record reads, lists, nested paths, history,
  // search, exports, /me and /health alike; no request goes back through the app.
  it("runs every item as a call of its GET's read, not through the app, answering as the direct GET", async () => {
    const requests = [
      `/tasks/${refs[5]}`,
      `/tasks/${refs[6]}?fields=title,status`,
      `/tasks/${refs[7]}?fields=nope`,
      `/tasks/${team.prefix}-998`,
      `/teams/${team.id}`,
      "/tasks?limit=1",
      `/teams/${team.prefix}/members?limit=2`,
      `/tasks/${refs[5]}/history?limit=1`,
      `/search?q=b5`,
      "/tasks?limit=nope",
      `/tasks/${refs[5]}/export`,
      "/me",
      "/health",
    ];
    const throughApp = vi.spyOn(app, "fetch");
    try {
      const res = await batch(requests, t.owner.key);
      expect(res.status).toBe(200);
      expect(throughApp).toHaveBeenCalledTimes(0);
      const direct = await Promise.all(requests.map((p) => get(p, t.owner.key)));
      expect(direct.map((d) => d.status)).toEqual([200, 200, 400, 404, 200, 200, 200, 200, 200, 422, 200, 200, 200]);
      // An export's `exportedAt` is the time of its own call.
      for (const d of [res.body.results[10], direct[10].body]) d.exportedAt = "-";
      // A 422's slot carries its field messages as the error's details.
      expect(res.body.results[9].error).toMatchObject({ code: "VALIDATION_FAILED", details: direct[9].body });
      res.body.results[9] = direct[9].body;
      expect(res.body.results).toEqual(direct.map((d) => d.body));
    } finally {
      throughApp.mockRestore();
    }
  });

  it("counts once against the caller's rate limit, whatever its number of items", async () => {
    const caller = await addMember(t, "MEMBER");
    const remaining = (res: ApiResponse) => Number(res.headers.get("ratelimit-remaining"));
    const before = remaining(await get("/me", caller.key));
    const res = await batch(
      refs.slice(0, 10).map((ref) => `/tasks/${ref}`),
      caller.key,
    );
    expect(res.status).toBe(200);
    expect(remaining(res)).toBe(before - 1);
    expect(remaining(await get("/me", caller.key))).toBe(before - 2);
  });
});
