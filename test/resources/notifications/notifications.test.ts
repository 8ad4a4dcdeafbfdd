// Mentions, subscriptions and the inbox (docs/api.md, "Inbox"): handles, mentions read from the Markdown (not in code), the five
// notification types written with the write, never to the writer, 404 for another's, none on the stream; unsubscribe
// sticks until the next mention; a mention's email; an agent mentioned is prompted; wait=. Through HTTP, real database.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { eventWatcher } from "../../../src/db/event-watcher";
import { api, del, eventually, get, patch, post } from "../../helpers/api";
import { addMember, joinTeam, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

describe("inbox", () => {
  let t: Tenant;
  let eng: TeamFixture;
  let ann: Member;
  let bob: Member;
  let outsider: Member;
  const handle: Record<string, string> = {};
  let counter = 0;

  const inbox = async (m: Member, query = "") => {
    const res = await get(`/notifications${query}`, m.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { notifications: any[]; unreadCount: number; pagination: { nextCursor: string | null } };
  };
  const newTask = async (extra: Record<string, unknown> = {}, key = t.owner.key) => {
    const res = await post("/tasks", { title: `N${counter++}`, teamId: eng.id, ...extra }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.task as { id: string; reference: string };
  };
  const comment = async (taskId: string, content: string, key = t.owner.key) => {
    const res = await post("/comments", { taskId, content }, key);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res;
  };
  const about = (box: { notifications: any[] }, taskId: string) => box.notifications.filter((n) => n.task.id === taskId);

  beforeAll(async () => {
    t = await newTenant("Inbox Co");
    eng = await newTeam(t, { prefix: "INB", name: "Inbox team" });
    ann = await addMember(t, "MEMBER");
    bob = await addMember(t, "MEMBER");
    await joinTeam(eng, ann, "MEMBER");
    await joinTeam(eng, bob, "MEMBER");
    const other = await newTenant("Elsewhere");
    outsider = await addMember(other, "MEMBER");
    for (const m of [t.owner, ann, bob, outsider]) handle[m.userId] = (await get(`/users/${m.userId}`, m.key)).body.user.handle;
  });

  it("gives every user a unique lower-case handle, which they may change (409 when taken)", async () => {
    expect(handle[ann.userId]).toMatch(/^[a-z0-9][a-z0-9-]{0,38}$/);
    expect(new Set(Object.values(handle)).size).toBe(4);
    const mine = `ann-${Date.now().toString(36)}`;
    const res = await patch(`/users/${ann.userId}`, { handle: mine.toUpperCase() }, ann.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.user.handle).toBe(mine);
    handle[ann.userId] = mine;
    expect((await patch(`/users/${bob.userId}`, { handle: mine }, bob.key)).status).toBe(409);
    expect((await patch(`/users/${bob.userId}`, { handle: "-no" }, bob.key)).status).toBe(422);
    expect((await patch(`/users/${ann.userId}`, { handle: "someone" }, bob.key)).status).toBe(403);
  });

  it("notifies a mention once, not the author, not in code, not a non-member, and not again for an unchanged edit", async () => {
    const task = await newTask();
    const body = `Hi @${handle[ann.userId]}, see \`@${handle[bob.userId]}\` and @${handle[outsider.userId]} and @${handle[t.owner.userId]}`;
    const res = await comment(task.id, body);
    expect(res.queries).toBeLessThanOrEqual(2);
    const annBox = about(await inbox(ann), task.id);
    expect(annBox).toHaveLength(1);
    expect(annBox[0]).toMatchObject({
      type: "mentioned",
      commentId: res.body.comment.id,
      readAt: null,
      archivedAt: null,
      snoozedUntil: null,
    });
    expect(annBox[0].id).toMatch(/^ntf_[0-9a-z]{26}$/);
    expect(annBox[0].task).toMatchObject({ id: task.id, reference: task.reference });
    expect(annBox[0].actor.id).toBe(t.owner.userId);
    expect(annBox[0].eventId).toMatch(/^evt_/);
    expect(about(await inbox(bob), task.id)).toHaveLength(0);
    expect(about(await inbox(t.owner), task.id)).toHaveLength(0);
    expect(about(await inbox(outsider), task.id)).toHaveLength(0);
    // An edit that keeps the mention and adds bob: bob once, ann not again.
    const edited = await patch(`/comments/${res.body.comment.id}`, { content: `${body} and @${handle[bob.userId]}` }, t.owner.key);
    expect(edited.status).toBe(200);
    expect(about(await inbox(ann), task.id)).toHaveLength(1);
    expect(about(await inbox(bob), task.id).map((n) => n.type)).toEqual(["mentioned"]);
  });

  it("a mention in a description notifies on create and on edit", async () => {
    const task = await newTask({ description: `for @${handle[bob.userId]}` });
    expect(about(await inbox(bob), task.id).map((n) => n.type)).toEqual(["mentioned"]);
    await patch(`/tasks/${task.reference}`, { description: `for @${handle[bob.userId]} and @${handle[ann.userId]}` }, t.owner.key);
    expect(about(await inbox(ann), task.id).map((n) => n.type)).toEqual(["mentioned"]);
    expect(about(await inbox(bob), task.id)).toHaveLength(1);
  });

  it("assigning, commenting and a status change reach the subscribers; an unsubscribe sticks until the next mention", async () => {
    const task = await newTask({ assigneeId: ann.userId });
    expect(about(await inbox(ann), task.id).map((n) => n.type)).toEqual(["assigned"]);
    // bob follows; the owner (creator) and ann (assignee) already do.
    expect((await api("PUT", `/tasks/${task.reference}/subscription`, { key: bob.key })).body).toEqual({ subscribed: true });
    const subs = await get(`/tasks/${task.reference}/subscribers`, bob.key);
    expect(subs.status).toBe(200);
    expect(subs.body.users.map((u: { id: string }) => u.id).sort()).toEqual([t.owner.userId, ann.userId, bob.userId].sort());
    await comment(task.id, "a plain comment", ann.key);
    expect(about(await inbox(bob), task.id).map((n) => n.type)).toEqual(["commented"]);
    expect(about(await inbox(t.owner), task.id).map((n) => n.type)).toEqual(["commented"]);
    expect(about(await inbox(ann), task.id).map((n) => n.type)).toEqual(["assigned"]);
    await patch(`/tasks/${task.reference}`, { status: "IN_PROGRESS" }, ann.key);
    expect(about(await inbox(bob), task.id).map((n) => n.type)).toEqual(["status_changed", "commented"]);
    // bob leaves: no more comments or status changes, until mentioned again.
    expect((await del(`/tasks/${task.reference}/subscription`, bob.key)).status).toBe(204);
    await comment(task.id, "another", ann.key);
    await patch(`/tasks/${task.reference}`, { status: "DONE" }, ann.key);
    expect(about(await inbox(bob), task.id)).toHaveLength(2);
    await comment(task.id, `@${handle[bob.userId]} look`, ann.key);
    expect(about(await inbox(bob), task.id)[0].type).toBe("mentioned");
    await patch(`/tasks/${task.reference}`, { status: "TODO" }, ann.key);
    expect(about(await inbox(bob), task.id)[0].type).toBe("status_changed");
  });

  it("reads, archives, snoozes and reads all; another's notification is 404; none on the event stream", async () => {
    const task = await newTask();
    const c = await comment(task.id, `@${handle[bob.userId]} one`);
    await comment(task.id, `@${handle[bob.userId]} two`);
    const box = await inbox(bob, `?filter[eq][taskId]=${task.reference}`);
    expect(box.notifications).toHaveLength(2);
    expect(box.notifications[0].commentId).not.toBe(c.body.comment.id); // newest first
    const [newest, older] = box.notifications;
    expect((await patch(`/notifications/${newest.id}`, { read: true }, ann.key)).status).toBe(404);
    expect((await patch(`/notifications/${newest.id}`, { read: true }, outsider.key)).status).toBe(404);
    const before = (await inbox(bob)).unreadCount;
    const read = await patch(`/notifications/${newest.id}`, { read: true }, bob.key);
    expect(read.status).toBe(200);
    expect(read.body.notification.readAt).not.toBeNull();
    expect((await inbox(bob)).unreadCount).toBe(before - 1);
    expect((await inbox(bob, `?filter[eq][read]=false&filter[eq][taskId]=${task.reference}`)).notifications.map((n) => n.id)).toEqual([
      older.id,
    ]);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect((await patch(`/notifications/${older.id}`, { snoozedUntil: later }, bob.key)).status).toBe(200);
    expect(about(await inbox(bob), task.id).map((n) => n.id)).toEqual([newest.id]);
    await withDb((db) => db.execute(sql`update notifications set snoozed_until = now() - interval '1 second' where id = ${older.id}`));
    expect(about(await inbox(bob), task.id).map((n) => n.id)).toEqual([newest.id, older.id]);
    const all = await post("/notifications/read-all", {}, bob.key);
    expect(all.status).toBe(200);
    expect(all.body.updated).toBeGreaterThanOrEqual(1);
    expect((await inbox(bob)).unreadCount).toBe(0);
    const stream = await get(`/events?types=task.*,comment.*`, bob.key);
    expect(JSON.stringify(stream.body)).not.toContain("ntf_");
  });

  it("emails a mention unless notificationEmail is off", async () => {
    const task = await newTask();
    // No relay run by the test: the comment's own request sends its mention's mail once the response is out.
    await comment(task.id, `@${handle[ann.userId]} mail me`);
    const mail = await eventually(async () => {
      const box = await get(`/_dev/mailbox?to=${encodeURIComponent(ann.email)}`);
      return (box.body.messages as { subject: string; text: string }[]).find((m) => m.subject.includes(task.reference));
    });
    expect(mail.subject).toContain(task.reference);
    expect(mail.text).toContain(`/tasks/${task.reference}`);
    expect((await patch(`/users/${bob.userId}`, { notificationEmail: "off" }, bob.key)).body.user.notificationEmail).toBe("off");
    await comment(task.id, `@${handle[bob.userId]} no mail`);
    const queued = await withDb(
      async (db) =>
        (
          await db.execute(
            sql`select count(*)::int as n from email_outbox o join notifications n on n.id = o.notification_id where n.user_id = ${bob.userId}`,
          )
        ).rows[0],
    );
    expect(queued).toEqual({ n: 0 });
  });

  it("prompts an agent mentioned in a comment, without delegating", async () => {
    const made = await post("/agents", { name: `Helper ${Date.now()}` }, t.owner.key);
    expect(made.status).toBe(201);
    const agentHandle = (await get(`/users/${made.body.agent.id}`, t.owner.key)).body.user.handle;
    const task = await newTask();
    const body = `@${agentHandle} please look`;
    await comment(task.id, body);
    const sessions = await get(`/agent-sessions?filter[eq][taskId]=${task.reference}`, t.owner.key);
    expect(sessions.body.sessions).toHaveLength(1);
    expect(sessions.body.sessions[0]).toMatchObject({ agentId: made.body.agent.id, state: "pending" });
    const acts = await get(`/agent-sessions/${sessions.body.sessions[0].id}/activities`, t.owner.key);
    expect(acts.body.activities.map((a: { type: string; body: string }) => [a.type, a.body])).toEqual([["prompt", body]]);
    expect((await get(`/tasks/${task.reference}`, t.owner.key)).body.task.delegateId).toBeNull();
  });

  it("wait= answers within a second of a mention that comes later", async () => {
    const task = await newTask();
    const started = Date.now();
    const waiting = get("/notifications?wait=10", ann.key);
    await new Promise((r) => setTimeout(r, 2000));
    const mentionedAt = Date.now();
    await comment(task.id, `@${handle[ann.userId]} now`);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.notifications[0].task.id).toBe(task.id);
    expect(Date.now() - started).toBeLessThan(9000);
    expect(Date.now() - mentionedAt).toBeLessThan(2500);
  });

  it("an import notifies no one", async () => {
    const task = await newTask({ assigneeId: bob.userId, description: `for @${handle[bob.userId]}` });
    await comment(task.id, `@${handle[bob.userId]} imported too`);
    const exported = (await get(`/tasks/${task.reference}/export`, t.owner.key)).body;
    const copy = await newTeam(t, { name: "Imported" });
    const before = (await inbox(bob, "?limit=250")).notifications.length;
    const res = await post(`/teams/${copy.id}/import`, { data: exported, update: false }, t.owner.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await inbox(bob, "?limit=250")).notifications.length).toBe(before);
  });

  it("100 waiting inboxes cost the database at most one statement a second in all", { timeout: 30_000 }, async () => {
    const people = [ann, bob, t.owner, ...(await Promise.all(Array.from({ length: 7 }, () => addMember(t, "MEMBER"))))];
    const before = eventWatcher.statements;
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => get("/notifications?wait=5&limit=1", people[i % 10].key)));
    const seconds = (Date.now() - started) / 1000;
    const statements = eventWatcher.statements - before;
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(Math.ceil(seconds));
    console.log(`100 waiting inboxes, ${seconds.toFixed(1)} s: ${statements} watcher statements`);
  });

  it("one write for a comment that mentions 20 people", async () => {
    const many = await Promise.all(Array.from({ length: 20 }, () => addMember(t, "MEMBER")));
    const handles = await Promise.all(many.map(async (m) => (await get(`/users/${m.userId}`, m.key)).body.user.handle));
    const task = await newTask();
    const res = await comment(task.id, handles.map((h) => `@${h}`).join(" "));
    // One statement: the comment, its event, 20 notifications, their emails and subscriptions.
    expect({ queries: res.queries, transactions: res.transactions }).toEqual({ queries: 1, transactions: 0 });
    for (const m of many.slice(0, 3)) expect(about(await inbox(m), task.id).map((n) => n.type)).toEqual(["mentioned"]);
  });
});
