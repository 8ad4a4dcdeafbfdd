// Links on tasks (docs/api.md, "Links"): the resource, its rules, and what tasks and events gain, through HTTP against
// the real database.
import { beforeAll, describe, expect, it } from "vitest";
import { api, del, get, post, testEnv } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";
import { keyWith } from "../../helpers/least-privilege";

const LINK_ID = /^lnk_[0-9a-z]{26}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("task links", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ops: TeamFixture;
  let member: Member;
  let viewer: Member;
  let counter = 0;

  async function task(team: TeamFixture = eng) {
    const res = await post("/tasks", { title: `L${counter++}`, teamId: team.id }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task as { id: string; reference: string };
  }
  const link = (taskId: string, body: Record<string, unknown>, key = t.owner.key) => post(`/tasks/${taskId}/links`, body, key);

  beforeAll(async () => {
    t = await newTenant("Links Co");
    eng = await newTeam(t, { prefix: "LNK", name: "Engineering" });
    ops = await newTeam(t, { prefix: "LOPS", name: "Operations" });
    member = await addMember(t, "MEMBER");
    await joinTeam(eng, member, "MEMBER");
    viewer = await addMember(t, "MEMBER");
    await joinTeam(eng, viewer, "VIEWER");
  });

  describe("create", () => {
    it("answers 201 with the link, by id or reference, in one statement", async () => {
      const a = await task();
      const res = await link(a.reference.toLowerCase(), { url: "https://github.com/acme/api/pull/42", title: "The fix" }, member.key);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toEqual({
        link: {
          id: expect.stringMatching(LINK_ID),
          taskId: a.id,
          url: "https://github.com/acme/api/pull/42",
          title: "The fix",
          createdBy: member.userId,
          createdAt: expect.stringMatching(ISO),
        },
      });
      expect(res.headers.get("location")).toBe(`/tasks/${a.reference.toLowerCase()}/links`);
      expect(res.queries).toBe(1);
      const untitled = await link(a.id, { url: "http://example.com/log.txt" });
      expect(untitled.status).toBe(201);
      expect(untitled.body.link.title).toBeNull();
    });

    it("the same URL on the same task answers 200 with the link it has (its title unchanged); the parser's form counts", async () => {
      const [a, b] = [await task(), await task()];
      const first = (await link(a.id, { url: "https://example.com/docs", title: "Docs" })).body.link;
      const again = await link(a.id, { url: "https://example.com/docs", title: "Other title" });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ link: first });
      const spelled = await link(a.reference, { url: "HTTPS://Example.COM/docs" });
      expect(spelled.status).toBe(200);
      expect(spelled.body.link.id).toBe(first.id);
      // Another task may have it too.
      expect((await link(b.id, { url: "https://example.com/docs" })).status).toBe(201);
      expect((await get(`/tasks/${a.id}/links`, t.owner.key)).body.links).toEqual([first]);
    });

    it("retries racing each other add one link: one 201, the others 200 with it", async () => {
      const a = await task();
      const url = `https://example.com/race/${Date.now()}`;
      const answers = await Promise.all(Array.from({ length: 6 }, () => link(a.id, { url })));
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 200, 201]);
      expect(new Set(answers.map((r) => r.body.link.id)).size).toBe(1);
      expect((await get(`/tasks/${a.id}/links`, t.owner.key)).body.links).toHaveLength(1);
    });

    it("refuses what is not an http(s) URL of at most 2,048 characters (422 at the field), writing nothing", async () => {
      const a = await task();
      const bad = [
        { url: "javascript:alert(1)" },
        { url: "ftp://example.com/file" },
        { url: "not a url" },
        { url: "" },
        { url: `https://example.com/${"a".repeat(2048)}` },
        // Within 2,048 as sent, beyond once encoded.
        { url: `https://example.com/${"é".repeat(1100)}` },
        { url: "https://example.com", title: "" },
        { url: "https://example.com", title: "x".repeat(501) },
        { url: "https://example.com", extra: 1 },
        {},
      ];
      for (const body of bad) {
        const res = await link(a.id, body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.body.errors, JSON.stringify(body)).toBeDefined();
      }
      expect((await link(a.id, { url: "https://example.com", title: null })).status).toBe(201);
      expect((await link(a.id, { url: `https://example.com/${"a".repeat(2000)}` })).status).toBe(201);
      expect((await get(`/tasks/${a.id}/links`, t.owner.key)).body.links).toHaveLength(2);
    });

    it("needs the task write rule: a team VIEWER gets 403, a read-only key 403 naming tasks:write; both read the links", async () => {
      const a = await task();
      expect((await link(a.id, { url: "https://example.com/v" }, viewer.key)).status).toBe(403);
      const readOnly = await keyWith(t.owner.key, { scopes: ["read"] });
      const refused = await link(a.id, { url: "https://example.com/r" }, readOnly);
      expect(refused.status).toBe(403);
      expect(refused.body.error.details).toEqual({ requiredScope: "tasks:write" });
      const added = (await link(a.id, { url: "https://example.com/m" }, member.key)).body.link;
      expect((await get(`/tasks/${a.id}/links`, readOnly)).body.links).toEqual([added]);
      expect((await get(`/tasks/${a.id}/links`, viewer.key)).body.links).toEqual([added]);
      expect((await del(`/links/${added.id}`, viewer.key)).status).toBe(403);
      expect((await del(`/links/${added.id}`, readOnly)).status).toBe(403);
    });

    it("an unknown task is 404", async () => {
      expect((await link("task_00000000000000000000000000", { url: "https://example.com" })).status).toBe(404);
      expect((await link("LNK-999999", { url: "https://example.com" })).status).toBe(404);
      expect((await get("/tasks/LNK-999999/links", t.owner.key)).status).toBe(404);
    });
  });

  describe("list and delete", () => {
    it("pages oldest first with the one list machinery (limit, cursor, fields, filter)", async () => {
      const a = await task();
      const made = [];
      for (let i = 0; i < 3; i++) made.push((await link(a.id, { url: `https://example.com/p/${i}`, title: `P${i}` })).body.link);
      const page1 = await get(`/tasks/${a.id}/links?limit=2`, t.owner.key);
      expect(page1.status).toBe(200);
      expect(page1.queries).toBe(1);
      expect(page1.body.links).toEqual(made.slice(0, 2));
      const page2 = await get(`/tasks/${a.id}/links?limit=2&cursor=${encodeURIComponent(page1.body.pagination.nextCursor)}`, t.owner.key);
      expect(page2.body).toEqual({ links: [made[2]], pagination: { limit: 2, nextCursor: null } });
      const narrow = await get(`/tasks/${a.id}/links?fields=url&sort[createdAt]=desc&filter[eq][title]=P1`, t.owner.key);
      expect(narrow.body.links).toEqual([{ url: "https://example.com/p/1" }]);
      const empty = await get(`/tasks/${(await task()).id}/links`, t.owner.key);
      expect(empty.body.links).toEqual([]);
      expect((await get(`/tasks/${a.id}/links?sort[url]=asc`, t.owner.key)).status).toBe(400);
    });

    it("DELETE /links/{id} answers 204, then 404; the URL may be added again", async () => {
      const a = await task();
      const added = (await link(a.id, { url: "https://example.com/gone" }, member.key)).body.link;
      const res = await del(`/links/${added.id}`, member.key);
      expect(res.status).toBe(204);
      expect(res.queries).toBe(1);
      expect((await del(`/links/${added.id}`, member.key)).status).toBe(404);
      expect((await del("/links/lnk_00000000000000000000000000", member.key)).status).toBe(404);
      expect((await get(`/tasks/${a.id}/links`, t.owner.key)).body.links).toEqual([]);
      expect((await link(a.id, { url: "https://example.com/gone" })).status).toBe(201);
    });

    it("another workspace's task or link is 404 on every route; a key bound to another team sees none of them", async () => {
      const a = await task();
      const added = (await link(a.id, { url: "https://example.com/private" })).body.link;
      const other = await newTenant("Other Links Co");
      expect((await get(`/tasks/${a.id}/links`, other.owner.key)).status).toBe(404);
      expect((await link(a.id, { url: "https://example.com/x" }, other.owner.key)).status).toBe(404);
      expect((await del(`/links/${added.id}`, other.owner.key)).status).toBe(404);
      const opsOnly = await keyWith(t.owner.key, { teamIds: [ops.id] });
      expect((await get(`/tasks/${a.id}/links`, opsOnly)).status).toBe(404);
      expect((await link(a.id, { url: "https://example.com/x" }, opsOnly)).status).toBe(404);
      expect((await del(`/links/${added.id}`, opsOnly)).status).toBe(404);
      expect((await get(`/tasks/${a.id}/links`, t.owner.key)).body.links).toEqual([added]);
    });
  });

  describe("on tasks", () => {
    it("fields=links{url,title} embeds them on a task and in a list, in the one query; the whole answer leaves them out", async () => {
      const [a, b] = [await task(), await task()];
      await link(a.id, { url: "https://example.com/1", title: "One" });
      await link(a.id, { url: "https://example.com/2" });
      const one = await get(`/tasks/${a.reference}?fields=reference,links{url,title}`, t.owner.key);
      expect(one.status).toBe(200);
      expect(one.queries).toBe(1);
      expect(one.body.task).toEqual({
        reference: a.reference,
        links: [
          { url: "https://example.com/1", title: "One" },
          { url: "https://example.com/2", title: null },
        ],
      });
      const listed = await get(
        `/tasks?filter[in][reference]=${a.reference}&filter[in][reference]=${b.reference}&fields=reference,links{url}`,
        t.owner.key,
      );
      expect(listed.queries).toBe(1);
      expect(listed.body.tasks).toEqual([
        { reference: a.reference, links: [{ url: "https://example.com/1" }, { url: "https://example.com/2" }] },
        { reference: b.reference, links: [] },
      ]);
      expect((await get(`/tasks/${a.id}`, t.owner.key)).body.task).not.toHaveProperty("links");
    });

    it("a task's delete takes its links with it", async () => {
      const a = await task();
      const added = (await link(a.id, { url: "https://example.com/cascade" })).body.link;
      expect((await del(`/tasks/${a.id}`, t.owner.key)).status).toBe(204);
      expect((await del(`/links/${added.id}`, t.owner.key)).status).toBe(404);
      const events = (await get(`/events?resourceId=${added.id}`, t.owner.key)).body.events;
      expect(events.map((e: { type: string }) => e.type)).toEqual(["link.created", "link.deleted"]);
    });
  });

  describe("events", () => {
    it("link.created and link.deleted are in the task's history, with the link as data", async () => {
      const a = await task();
      const added = (await link(a.id, { url: "https://example.com/h", title: "H" }, member.key)).body.link;
      await link(a.id, { url: "https://example.com/h" }, member.key); // the same URL: no second event
      await del(`/links/${added.id}`, member.key);
      const history = (await get(`/tasks/${a.reference}/history`, t.owner.key)).body.events;
      expect(history.map((e: { type: string }) => e.type)).toEqual(["link.deleted", "link.created", "task.created"]);
      expect(history[1]).toMatchObject({
        resourceType: "link",
        resourceId: added.id,
        actor: { id: member.userId, via: "api_key" },
        data: added,
      });
      expect(history[0].data).toEqual(added);
      const typed = (await get(`/events?types=link.*&resourceId=${added.id}`, t.owner.key)).body.events;
      expect(typed).toHaveLength(2);
      expect((await get("/events?types=link.updated", t.owner.key)).status).toBe(422);
    });

    it("webhooks get link events; one bound to another team does not", async () => {
      const url = `${testEnv.WEBHOOK_RECEIVER}/ok/links-${Date.now().toString(36)}`;
      const all = (await post("/webhooks", { url, events: ["link.*"] }, t.owner.key)).body.webhook;
      const opsOnly = (await post("/webhooks", { url, events: ["link.created"], teamIds: [ops.id] }, t.owner.key)).body.webhook;
      const added = (await link((await task()).id, { url: "https://example.com/hook" })).body.link;
      await del(`/links/${added.id}`, t.owner.key);
      const eventIds = (await get(`/events?resourceId=${added.id}`, t.owner.key)).body.events.map((e: { id: string }) => e.id);
      const delivered = async (hook: { id: string }) =>
        (await get(`/webhooks/${hook.id}/deliveries?limit=250`, t.owner.key)).body.deliveries
          .map((d: { eventId: string }) => d.eventId)
          .sort();
      expect(eventIds).toHaveLength(2);
      expect(await delivered(all)).toEqual([...eventIds].sort());
      expect(await delivered(opsOnly)).toEqual([]);
    });
  });

  it("batch items answer as the direct calls", async () => {
    const a = await task();
    const added = (await link(a.id, { url: "https://example.com/batch" })).body.link;
    const res = await api("POST", "/batch", { body: { requests: [`/tasks/${a.reference}/links`] }, key: t.owner.key });
    expect(res.status).toBe(200);
    expect(res.body.results[0].links).toEqual([added]);
  });
});
