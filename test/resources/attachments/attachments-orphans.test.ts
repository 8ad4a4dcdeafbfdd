// Nothing orphaned (docs/api.md, "Attachments"): deleting an attachment, its comment or its task removes its bytes at
// least once through the outbox and the files queue; the sweep repairs what a stop between an upload's or a removal's
// two steps left (an object without its record, a record without its object). Real database, miniflare's R2 and queue.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { relayFileDeletions } from "../../../src/files/deletions";
import { sweepFiles } from "../../../src/files/sweep";
import { newId } from "../../../src/ids";
import worker from "../../../src/index";
import { del, eventually, get, post, testEnv } from "../../helpers/api";
import { upload } from "../../helpers/attachments";
import { newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";

const text = new TextEncoder().encode("bytes that must not outlive their record\n");
const exists = async (key: string) => (await testEnv.FILES.head(key)) !== null;
const keyOf = (workspaceId: string, id: string) => `${workspaceId}/${id}`;
const outboxHas = (key: string) =>
  withDb(async (db) => (await db.execute(sql`select 1 from file_deletions where object_key = ${key}`)).rows.length > 0);

describe("nothing orphaned", () => {
  let t: Tenant;
  let team: TeamFixture;
  const newTask = async () => (await post("/tasks", { teamId: team.id, title: "files" }, t.owner.key)).body.task as { id: string };
  const attach = async (path: string) => {
    const res = await upload(path, t.owner.key, text, "f.txt");
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.attachment.id as string;
  };

  beforeAll(async () => {
    t = await newTenant("Orphans Co");
    team = await newTeam(t, { prefix: "ORF" });
  });

  it("DELETE /attachments/{id}: the record goes with an outbox row; the queue's consumer removes the object, then the row", async () => {
    const id = await attach(`/tasks/${(await newTask()).id}`);
    const key = keyOf(t.workspaceId, id);
    expect(await exists(key)).toBe(true);
    expect((await del(`/attachments/${id}`, t.owner.key)).status).toBe(204);
    await eventually(async () => !(await exists(key)) && !(await outboxHas(key)));
  });

  it("deleting a task removes its and its comments' files; deleting a comment removes its files", async () => {
    const task = await newTask();
    const comment = (await post("/comments", { taskId: task.id, content: "c" }, t.owner.key)).body.comment;
    const other = (await post("/comments", { taskId: task.id, content: "d" }, t.owner.key)).body.comment;
    const keys = [await attach(`/tasks/${task.id}`), await attach(`/comments/${comment.id}`), await attach(`/comments/${other.id}`)].map(
      (id) => keyOf(t.workspaceId, id),
    );
    expect((await del(`/comments/${other.id}`, t.owner.key)).status).toBe(204);
    await eventually(async () => !(await exists(keys[2])));
    expect(await exists(keys[0])).toBe(true);
    expect((await get(`/tasks/${task.id}/attachments`, t.owner.key)).body.attachments).toHaveLength(2);
    expect((await del(`/tasks/${task.id}`, t.owner.key)).status).toBe(204);
    await eventually(async () => !(await exists(keys[0])) && !(await exists(keys[1])));
  });

  it("a send that never happened (a stop right after the commit) is relayed by the Cron Trigger", async () => {
    const id = await attach(`/tasks/${(await newTask()).id}`);
    const key = keyOf(t.workspaceId, id);
    // Deleted outside any request: the trigger fills the outbox, but no request relays it.
    await withDb((db) => db.execute(sql`delete from attachments where id = ${id}`));
    expect(await outboxHas(key)).toBe(true);
    expect(await exists(key)).toBe(true);
    const ctx = createExecutionContext();
    worker.scheduled(createScheduledController({ scheduledTime: new Date(), cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    await eventually(async () => !(await exists(key)) && !(await outboxHas(key)));
    // Relayed rows are leased: a second relay right away sends nothing again.
    expect(await withDb((db) => relayFileDeletions(db, env))).toBe(0);
  });

  it("the sweep removes an object whose upload stopped before its record, and a record whose object is gone", async () => {
    // A stop between the upload's two steps: the object is stored under the upload's key, the record never written.
    const stray = keyOf(t.workspaceId, newId("att"));
    await testEnv.FILES.put(stray, text);
    // A stop between a removal's steps the other way round, or a lost object: the record stays, its bytes do not.
    const task = await newTask();
    const hollow = await attach(`/tasks/${task.id}`);
    await testEnv.FILES.delete(keyOf(t.workspaceId, hollow));
    const kept = await attach(`/tasks/${task.id}`);

    // Within the grace an upload may take, the sweep leaves both alone (the record may be about to be written).
    // (Swept within this workspace: other test files upload at the same time.)
    const prefix = `${t.workspaceId}/`;
    const early = await withDb((db) => sweepFiles(db, env, { prefix }));
    expect(await exists(stray)).toBe(true);
    expect(early.objectsRemoved).toBe(0);

    const swept = await withDb((db) => sweepFiles(db, env, { graceMs: 0, prefix }));
    expect(swept).toEqual({ objectsRemoved: 1, recordsRemoved: 1 });
    expect(await exists(stray)).toBe(false);
    expect((await get(`/attachments/${hollow}`, t.owner.key)).status).toBe(404);
    // What is whole stays whole.
    expect((await get(`/attachments/${kept}`, t.owner.key)).status).toBe(200);
    expect(await exists(keyOf(t.workspaceId, kept))).toBe(true);
    // The repair is an event of the task, by no one.
    const history = await get(`/tasks/${task.id}/history`, t.owner.key);
    const deleted = history.body.events.find(
      (e: { type: string; resourceId: string }) => e.type === "attachment.deleted" && e.resourceId === hollow,
    );
    expect(deleted.actor).toBeNull();
  });
});
