// The change feed (docs/events.md): each write's event, committed with it; GET /events in commit order, resumable by
// event id; a record's history; who sees what. Through HTTP against the real database.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { TypeID } from "typeid-js";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { del, get, patch, post } from "../../helpers/api";
import { addMember, type Member, newTeam, newTenant, type TeamFixture, type Tenant, withDb } from "../../helpers/fixtures";
import { receiverUrl } from "../../helpers/least-privilege";

let tenant: Tenant;
let team: TeamFixture;
let member: Member;

/** Every event of the tenant after `after` (all pages), as the owner sees them. */
async function stream(key: string, after?: string, extra = ""): Promise<any[]> {
  const seen: any[] = [];
  let path = `/events?limit=250${after ? `&after=${after}` : ""}${extra}`;
  for (;;) {
    const res = await get(path, key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    seen.push(...res.body.events);
    if (!res.body.pagination.nextCursor) return seen;
    path = `/events?limit=250&cursor=${encodeURIComponent(res.body.pagination.nextCursor)}${extra}`;
  }
}

const last = async (key = tenant.owner.key) => (await stream(key)).at(-1);

beforeAll(async () => {
  tenant = await newTenant("Events");
  team = await newTeam(tenant, { prefix: "EVT" });
  member = await addMember(tenant, "MEMBER");
});

describe("a write's event", () => {
  it("records a task's creation, update (typed changes, labels and custom fields included) and deletion, with who and how", async () => {
    const label = await post("/labels", { name: "evt-bug", color: "#ff0000" }, tenant.owner.key);
    const before = await last();
    const created = await post("/tasks", { teamId: team.id, title: "First", priority: "LOW" }, tenant.owner.key);
    expect(created.status).toBe(201);
    const task = created.body.task;

    const [createdEvent] = await stream(tenant.owner.key, before.id);
    expect(createdEvent).toMatchObject({
      type: "task.created",
      resourceType: "task",
      resourceId: task.id,
      reference: task.reference,
      actor: { id: tenant.owner.userId, type: "HUMAN", via: "api_key" },
      data: { id: task.id, title: "First", priority: "LOW", status: "TODO", reference: task.reference, labelIds: [] },
      requestId: created.headers.get("x-request-id"),
    });
    expect(createdEvent.changes).toBeUndefined();
    expect(createdEvent.id).toMatch(/^evt_[0-9a-hjkmnp-tv-z]{26}$/);

    const updated = await patch(
      `/tasks/${task.id}`,
      { title: "Second", status: "DONE", labelIds: [label.body.label.id] },
      tenant.owner.key,
    );
    expect(updated.status).toBe(200);
    const [updateEvent, ...more] = await stream(tenant.owner.key, createdEvent.id);
    expect(more).toEqual([]);
    expect(updateEvent.type).toBe("task.updated");
    expect(updateEvent.changes).toEqual({
      title: { from: "First", to: "Second" },
      status: { from: "TODO", to: "DONE" },
      // What the status means, kept with it in the same statement (docs/api.md, "Workflow states").
      statusCategory: { from: "unstarted", to: "completed" },
      completedAt: { from: null, to: updated.body.task.completedAt },
      labelIds: { from: [], to: [label.body.label.id] },
    });
    expect(updateEvent.data).toMatchObject({ title: "Second", labelIds: [label.body.label.id] });
    expect(updateEvent.position).toBeGreaterThan(createdEvent.position);

    expect((await del(`/tasks/${task.id}`, tenant.owner.key)).status).toBe(204);
    const [deleted] = await stream(tenant.owner.key, updateEvent.id);
    expect(deleted).toMatchObject({ type: "task.deleted", resourceId: task.id, data: { title: "Second" } });
  });

  it("a change that foreign keys make twice in one statement is one event from the first version to the last", async () => {
    // Deleting a project unlinks its tasks from it and from its milestones: two updates of each task in one statement.
    const project = (await post("/projects", { teamId: team.id, name: "Going" }, tenant.owner.key)).body.project;
    const milestone = (await post("/milestones", { projectId: project.id, name: "M1" }, tenant.owner.key)).body.milestone;
    const task = (
      await post("/tasks", { teamId: team.id, title: "Linked", projectId: project.id, milestoneId: milestone.id }, tenant.owner.key)
    ).body.task;
    const before = await last();
    expect((await del(`/projects/${project.id}`, tenant.owner.key)).status).toBe(204);
    const events = await stream(tenant.owner.key, before.id);
    const taskEvents = events.filter((e) => e.resourceId === task.id);
    expect(taskEvents).toHaveLength(1);
    expect(taskEvents[0].changes).toEqual({ projectId: { from: project.id, to: null }, milestoneId: { from: milestone.id, to: null } });
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["project.deleted", "milestone.deleted", "task.updated"]));
  });

  // A label link's event reads its task's row by its key: the trigger's set of ids is a JSON array the planner guesses at
  // 100 rows, and joined to it a table of some thousands of tasks was read whole on every label change (docs/performance.md).
  // Taking a label off runs the same trigger without a foreign-key check of its own; 5,000 more tasks make a whole-table
  // read the planner's choice for a guess of 100 rows, as in the bench's workspace of 10,000.
  it("a label change reads its task through the primary key, never the whole tasks table", async () => {
    const own = await newTenant("Events at scale"); // its 5,000 events stay out of the other tests' stream
    const ownTeam = await newTeam(own, { prefix: "SCL" });
    const filler = await newTeam(own, { prefix: "FILL" });
    await withDb((db) =>
      db.execute(sql`insert into tasks (id, workspace_id, team_id, number, title)
        select 'task_fill' || i, ${own.workspaceId}, ${filler.id}, i, 'filler ' || i from generate_series(1, 5000) i`),
    );
    const label = (await post("/labels", { name: "evt-scan", color: "#00ff00" }, own.owner.key)).body.label;
    const task = (await post("/tasks", { teamId: ownTeam.id, title: "Scanned", labelIds: [label.id] }, own.owner.key)).body.task;
    const scans = await withDb((db) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`delete from task_labels where task_id = ${task.id}`);
        const { rows } = await tx.execute<{ seq_scan: string }>(sql`select seq_scan from pg_stat_xact_user_tables where relname = 'tasks'`);
        return Number(rows[0].seq_scan);
      }),
    );
    expect(scans).toBe(0);
    const event = (await get(`/tasks/${task.id}/history`, own.owner.key)).body.events[0];
    expect(event).toMatchObject({ type: "task.updated", changes: { labelIds: { from: [label.id], to: [] } } });
    // 5,000 rows and their events written first: 4 s at load 15, so the default 30 s left a loaded run little room.
  }, 90_000);

  // A create readies the triggers before it takes its team's counter lock (docs/performance.md, "Writes and search").
  it("readying the event triggers writes nothing and takes no position", async () => {
    const { rows } = await withDb((db) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select pm_warm_events()`);
        return tx.execute<{ events: string; seq: string | null }>(
          sql`select (select count(*) from events where xact = pg_current_xact_id()::text::bigint) as events,
            nullif(current_setting('pm.seq', true), '') as seq`,
        );
      }),
    );
    // No event, and no position reserved: none at all, or none counted (pm_emit's empty call on a backend not yet warm).
    expect(rows[0].events).toBe("0");
    expect([null, "0"]).toContain(rows[0].seq);
  });

  it("a refused write records nothing; an empty update records nothing", async () => {
    const task = (await post("/tasks", { teamId: team.id, title: "Quiet" }, tenant.owner.key)).body.task;
    const before = await last();
    const other = await newTenant("Other");
    expect((await patch(`/tasks/${task.id}`, { title: "Hijack" }, other.owner.key)).status).toBe(404);
    expect((await patch(`/tasks/${task.id}`, { priority: "NOPE" }, tenant.owner.key)).status).toBe(422);
    expect((await patch(`/tasks/${task.id}`, {}, tenant.owner.key)).status).toBe(200);
    expect(await stream(tenant.owner.key, before.id)).toEqual([]);
  });

  it("stores images with every column of the row but its search vector, counters and secrets (pm_image)", async () => {
    const task = (await post("/tasks", { teamId: team.id, title: "Imaged", description: "a long description" }, tenant.owner.key)).body
      .task;
    expect((await patch(`/tasks/${task.id}`, { priority: "HIGH" }, tenant.owner.key)).status).toBe(200);
    const key = (await post("/api-keys", { name: "imaged" }, tenant.owner.key)).body.apiKey;
    const { rows } = await withDb((db) =>
      db.execute<{ table: string; image: string[]; columns: string[] }>(sql`
        select e.resource_type as table, array(select jsonb_object_keys(coalesce(e.new_image, e.old_image)) order by 1) as image,
          array(select c.column_name::text from information_schema.columns c
            where c.table_schema = 'public' and c.table_name = case e.resource_type when 'task' then 'tasks' else 'api_keys' end
            order by 1) as columns
        from events e where e.resource_id in (${task.id}, ${key.id}) order by e.position`),
    );
    const hidden = ["search_vector", "key_hash", "token_hash", "sealed_secret", "sealed_previous_secret", "task_counter"];
    expect(rows.map((r) => r.table)).toEqual(["task", "task", "api_key"]);
    for (const { table, image, columns } of rows) {
      expect(image, table).toEqual(columns.filter((c) => !hidden.includes(c)));
      expect(
        columns.some((c) => hidden.includes(c)),
        table,
      ).toBe(true);
    }
  });
});

describe("GET /events", () => {
  it("filters by type (wildcards) and resource (id or reference); pages with cursors oldest first", async () => {
    const a = (await post("/tasks", { teamId: team.id, title: "A" }, tenant.owner.key)).body.task;
    expect((await post("/comments", { taskId: a.id, content: "hello" }, tenant.owner.key)).status).toBe(201);
    await patch(`/tasks/${a.id}`, { title: "A2" }, tenant.owner.key);
    const byRef = await stream(tenant.owner.key, undefined, `&resourceId=${a.reference.toLowerCase()}`);
    expect(byRef.map((e) => e.type)).toEqual(["task.created", "task.updated"]);
    const comments = await stream(tenant.owner.key, undefined, "&types=comment.*");
    expect(comments.length).toBeGreaterThan(0);
    expect(comments.every((e) => e.type.startsWith("comment."))).toBe(true);
    expect((await get("/events?types=nope.created", tenant.owner.key)).status).toBe(422);

    const all = await stream(tenant.owner.key);
    const pages: any[] = [];
    let path = "/events?limit=2";
    for (;;) {
      const res = await get(path, tenant.owner.key);
      pages.push(...res.body.events);
      if (!res.body.pagination.nextCursor) break;
      path = `/events?limit=2&cursor=${encodeURIComponent(res.body.pagination.nextCursor)}`;
    }
    expect(pages.map((e) => e.id)).toEqual(all.map((e) => e.id));
    const positions = all.map((e) => e.position);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
  });

  it("after an unknown event is 400, after one older than 30 days is 410 GONE, a tampered cursor is 400, no credential 401", async () => {
    expect((await get("/events?after=evt_01jz8x4q0be0sv3c5kq9v1y2ab", tenant.owner.key)).status).toBe(410);
    const recent = (await last()).id as string;
    const other = await newTenant("Elsewhere");
    expect((await get(`/events?after=${recent}`, other.owner.key)).status).toBe(400);
    expect((await get("/events?cursor=abc.def", tenant.owner.key)).status).toBe(400);
    expect((await get("/events")).status).toBe(401);
  });

  it("shows invite and API-key events only to ADMIN/OWNER, and a key's own to its owner; never another workspace's", async () => {
    const before = await last();
    await post("/invites", { email: `evt-${Date.now()}@example.com` }, tenant.owner.key);
    const key = await post("/api-keys", { name: "mine" }, member.key);
    expect(key.status).toBe(201);
    const ownerSees = (await stream(tenant.owner.key, before.id)).map((e) => e.type);
    expect(ownerSees).toEqual(expect.arrayContaining(["invite.created", "api_key.created"]));
    const memberSees = await stream(member.key, before.id);
    expect(memberSees.map((e) => e.type)).toEqual(["api_key.created"]);
    expect(memberSees[0].data).not.toHaveProperty("keyHash");

    const other = await newTenant("Isolated");
    await post("/labels", { name: "theirs", color: "#00ff00" }, other.owner.key);
    const mine = await stream(tenant.owner.key);
    expect(mine.some((e) => e.data?.name === "theirs")).toBe(false);
  });
});

// A milestone's or comment's team came from its parent, already gone in a cascade.
describe("events of records deleted with their parent carry their team", () => {
  it("a task's comments and a project's milestones and comments: hidden from a key of another team, delivered to a webhook of theirs", async () => {
    const [x, y] = [await newTeam(tenant), await newTeam(tenant)];
    const boundTo = async (teamId: string) => (await post("/api-keys", { name: "bound", teamIds: [teamId] }, tenant.owner.key)).body.key;
    const [keyX, keyY] = [await boundTo(x.id), await boundTo(y.id)];
    const hook = async (teamId: string) =>
      (
        await post(
          "/webhooks",
          { url: receiverUrl(), events: ["comment.deleted", "milestone.deleted"], teamIds: [teamId] },
          tenant.owner.key,
        )
      ).body.webhook.id as string;
    const [hookX, hookY] = [await hook(x.id), await hook(y.id)];

    const task = (await post("/tasks", { teamId: y.id, title: "Going with its comments" }, tenant.owner.key)).body.task;
    const project = (await post("/projects", { teamId: y.id, name: "Going with its milestones" }, tenant.owner.key)).body.project;
    const milestone = (await post("/milestones", { projectId: project.id, name: "M" }, tenant.owner.key)).body.milestone;
    const comment = async (on: Record<string, string>) =>
      (await post("/comments", { ...on, content: "doomed" }, tenant.owner.key)).body.comment.id;
    const comments = [
      await comment({ taskId: task.id }),
      await comment({ projectId: project.id }),
      await comment({ milestoneId: milestone.id }),
    ];
    const before = await last();
    expect((await del(`/tasks/${task.id}`, tenant.owner.key)).status).toBe(204);
    expect((await del(`/projects/${project.id}`, tenant.owner.key)).status).toBe(204);

    const gone = [...comments, milestone.id];
    const deletes = (events: any[]) =>
      events
        .filter((e) => gone.includes(e.resourceId))
        .map((e) => `${e.type} ${e.resourceId}`)
        .sort();
    const all = [...comments.map((id) => `comment.deleted ${id}`), `milestone.deleted ${milestone.id}`].sort();
    expect(deletes(await stream(tenant.owner.key, before.id))).toEqual(all);
    expect(deletes(await stream(keyY, before.id))).toEqual(all);
    expect(deletes(await stream(keyX, before.id))).toEqual([]);
    for (const id of gone) expect(await stream(keyX, undefined, `&resourceId=${id}`)).toEqual([]);
    expect((await get(`/milestones/${milestone.id}/history`, keyX)).status).toBe(404);

    // Deliveries are written with the event: the webhook of team Y has one for each, team X's none.
    const ids = (await stream(tenant.owner.key, before.id))
      .filter((e) => gone.includes(e.resourceId))
      .map((e) => e.id)
      .sort();
    const delivered = async (webhookId: string) =>
      ((await get(`/webhooks/${webhookId}/deliveries?limit=250`, tenant.owner.key)).body.deliveries as any[]).map((d) => d.eventId).sort();
    expect(await delivered(hookY)).toEqual(ids);
    expect(await delivered(hookX)).toEqual([]);
  });
  it("a milestone's or comment's team is its parent's, named or not; a parent that is gone is the foreign key's error (a 409, not a 500)", async () => {
    const project = (await post("/projects", { teamId: team.id, name: "Parent" }, tenant.owner.key)).body.project;
    const milestone = (await post("/milestones", { projectId: project.id, name: "M" }, tenant.owner.key)).body.milestone;
    const comment = (await post("/comments", { milestoneId: milestone.id, content: "on it" }, tenant.owner.key)).body.comment;
    const { rows } = await withDb((db) =>
      db.execute<{ team_id: string }>(
        sql`select team_id from milestones where id = ${milestone.id} union all select team_id from comments where id = ${comment.id}`,
      ),
    );
    expect(rows.map((r) => r.team_id)).toEqual([team.id, team.id]);
    const orphan = withDb((db) =>
      db.execute(sql`insert into comments (id, workspace_id, author_id, content, task_id)
        values ('comment_orphan', ${tenant.workspaceId}, ${tenant.owner.userId}, 'x', 'task_gone')`),
    );
    await expect(orphan).rejects.toMatchObject({ cause: { code: "23503" } });
    // A writer that names the team is held to the parent's.
    const other = await newTeam(tenant);
    const wrong = withDb((db) =>
      db.execute(sql`insert into comments (id, workspace_id, author_id, content, milestone_id, team_id)
        values ('comment_wrong_team', ${tenant.workspaceId}, ${tenant.owner.userId}, 'x', ${milestone.id}, ${other.id})`),
    );
    await expect(wrong).rejects.toMatchObject({ cause: { code: "23503" } });
    const moved = withDb((db) => db.execute(sql`update milestones set team_id = ${other.id} where id = ${milestone.id} returning team_id`));
    expect((await moved).rows).toEqual([{ team_id: team.id }]);
  });
});

describe("history", () => {
  it("GET /tasks/{id}/history: newest first, paged, actors resolved; another workspace's task is 404", async () => {
    const task = (await post("/tasks", { teamId: team.id, title: "H1" }, tenant.owner.key)).body.task;
    for (const title of ["H2", "H3", "H4"]) await patch(`/tasks/${task.reference}`, { title }, tenant.owner.key);
    const first = await get(`/tasks/${task.reference}/history?limit=3`, tenant.owner.key);
    expect(first.status).toBe(200);
    expect(first.body.events.map((e: any) => e.changes?.title?.to ?? e.type)).toEqual(["H4", "H3", "H2"]);
    expect(first.body.events[0].actor).toMatchObject({ id: tenant.owner.userId, name: tenant.owner.name, type: "HUMAN" });
    const second = await get(
      `/tasks/${task.reference}/history?limit=3&cursor=${encodeURIComponent(first.body.pagination.nextCursor)}`,
      tenant.owner.key,
    );
    expect(second.body.events.map((e: any) => e.type)).toEqual(["task.created"]);
    expect(second.body.pagination.nextCursor).toBeNull();
    const other = await newTenant("Nosy");
    expect((await get(`/tasks/${task.id}/history`, other.owner.key)).status).toBe(404);
  });

  it("project and milestone history", async () => {
    const project = (await post("/projects", { teamId: team.id, name: "P" }, tenant.owner.key)).body.project;
    await patch(`/projects/${project.id}`, { status: "ACTIVE" }, tenant.owner.key);
    const ph = await get(`/projects/${project.reference}/history`, tenant.owner.key);
    expect(ph.body.events.map((e: any) => e.type)).toEqual(["project.updated", "project.created"]);
    expect(ph.body.events[0].changes).toEqual({ status: { from: "PLANNING", to: "ACTIVE" } });
    const milestone = (await post("/milestones", { projectId: project.id, name: "M" }, tenant.owner.key)).body.milestone;
    const mh = await get(`/milestones/${milestone.id}/history`, tenant.owner.key);
    expect(mh.body.events.map((e: any) => e.type)).toEqual(["milestone.created"]);
  });
});

describe("retention", () => {
  it("the Cron Trigger removes events older than 30 days; resuming after one is then 410 GONE", async () => {
    const born = Date.now() - 31 * 86_400_000;
    const hex = `${born.toString(16).padStart(12, "0")}7${crypto.randomUUID().replaceAll("-", "").slice(13)}`;
    const id = TypeID.fromUUID(
      "evt",
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`,
    ).toString();
    await withDb((db) =>
      db.execute(sql`insert into events (id, workspace_id, xact, position, type, resource_type, resource_id, created_at)
        values (${id}, ${tenant.workspaceId}, 0, ${1 + Math.floor(Math.random() * 500_000)}, 'label.created', 'label', 'label_x',
          now() - interval '31 days')`),
    );
    expect((await get(`/events?after=${id}&limit=1`, tenant.owner.key)).status).toBe(200);
    const kept = await last();
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController(), env, ctx);
    await waitOnExecutionContext(ctx);
    const gone = await get(`/events?after=${id}`, tenant.owner.key);
    expect(gone.status).toBe(410);
    // The recent ones stay.
    expect((await get(`/events?after=${kept.id}`, tenant.owner.key)).status).toBe(200);
    expect(gone.body.error.code).toBe("GONE");
  });
});

describe("positions", () => {
  it("events of one transaction share its id's prefix and stay below the oldest running transaction's", async () => {
    const { rows } = await withDb((db) =>
      db.execute<{ ok: boolean }>(sql`select bool_and(position < pm_stable_position()) as ok from events`),
    );
    expect(rows[0].ok).toBe(true);
  });
});
