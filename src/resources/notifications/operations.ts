// The inbox operations (docs/api.md, "Inbox"), one function each, called alike by the REST routes and the
// MCP tools. Notifications are written by the database with the write that causes them (pm_notify); here they are read
// and marked, and a task is followed or left. Each is one statement that authenticates itself; `wait=` waits on the
// isolate's one event watcher (src/db/event-watcher.ts), so waiting inboxes cost no statement of their own.
import { and, eq, type SQL, sql } from "drizzle-orm";
import { events, notifications, taskSubscriptions, tasks, teams, workspaceMembers } from "../../../drizzle/schema";
import type { Caller } from "../../auth/caller";
import { eventWatcher, type KeepAlive } from "../../db/event-watcher";
import { inTeams } from "../../db/scope";
import { taskMatch } from "../../records/names";
import { listTaskChildren } from "../../records/task-children";
import { guardedWrite, type Target } from "../../store/guarded";
import type { ListParams } from "../../store/list";
import type { Actor } from "../../store/statement-caller";
import { isUnread, type NotificationDto, type NotificationUpdateInput, notificationRecord, notSnoozed } from "./record";
import { subscriberRecord } from "./subscribers";

const n = notifications;

/** The caller's own notifications, within its teams (a team-bound credential sees none of other teams' tasks). */
const mine = (actor: Actor): SQL => and(eq(n.userId, actor.user), eq(n.workspaceId, actor.workspace), inTeams(actor.teams, n.teamId))!;

export interface Inbox {
  notifications: NotificationDto[];
  unreadCount: number;
}

interface InboxRead extends Inbox {
  /** The newest notification of the inbox the filters keep (what a waiting read waits past), and where the stream stood. */
  newest: string | null;
  workspace: string | null;
  latest: number | null;
}

/**
 * One page of the caller's inbox (limit + 1 rows), snoozed ones left out, with the unread count, the newest id the
 * filters keep and the workspace's stream position in the same statement; an empty page is one row of nulls.
 */
async function readInbox(caller: Caller, params: ListParams, watch: boolean): Promise<InboxRead> {
  const rows = await caller.list(async (actor) => {
    const where = and(mine(actor), notSnoozed, params.where);
    const { rows } = await caller.db.execute<{
      record: NotificationDto | null;
      unread: string;
      newest: string | null;
      ws: string | null;
      latest: string | null;
    }>(sql`
      select page.record, head.unread, head.newest, head.ws, head.latest from (
        select (select count(*) from ${n} where ${and(mine(actor), notSnoozed, isUnread)}) as unread,
          (select max(${n.id}) from ${notificationRecord.from} where ${where}) as newest,
          ${watch ? sql`${actor.workspace}::text` : sql`null::text`} as ws,
          ${
            watch
              ? sql`(select max(${events.position}) from ${events} where ${events.workspaceId} = ${actor.workspace} and ${events.position} < pm_stable_position())`
              : sql`null::bigint`
          } as latest
        where ${caller.live}) head
      left join lateral (select ${notificationRecord.json(params.fields, actor)} as record from ${notificationRecord.from}
        where ${where} order by ${sql.join(params.orderBy, sql`, `)} limit ${params.limit + 1}) page on true`);
    return rows;
  });
  const head = rows[0];
  return {
    notifications: rows.flatMap((row) => (row.record ? [row.record] : [])),
    unreadCount: Number(head.unread),
    newest: head.newest,
    workspace: head.ws,
    latest: head.latest === null ? null : Number(head.latest),
  };
}

/**
 * GET /notifications: newest first unless `sort` says otherwise. `wait` (seconds): waits until a notification newer
 * than the newest the filters kept at the start is committed (or the time is up), then answers the page.
 */
export async function listNotifications(caller: Caller, params: ListParams, wait?: number, keepAlive?: KeepAlive): Promise<Inbox> {
  let last = await readInbox(caller, params, wait !== undefined);
  if (wait !== undefined) {
    const deadline = Date.now() + wait * 1000;
    const before = last.newest;
    while (last.workspace !== null && last.newest === before) {
      if (!(await eventWatcher.wait(caller.db, last.workspace, last.latest, deadline, keepAlive))) break;
      last = await readInbox(caller, params, true);
    }
  }
  return { notifications: last.notifications, unreadCount: last.unreadCount };
}

/** The caller's notification `id`: another user's, another workspace's or another team's (for a bound credential) is 404. */
const notificationTarget = (caller: Caller, id: string): Target => ({
  from: sql`${n}`,
  where: and(eq(n.id, id), eq(n.userId, caller.actor.user), eq(n.workspaceId, caller.actor.workspace))!,
  columns: { id: n.id },
  guards: [],
  name: "Notification",
  team: n.teamId,
  table: n,
});

/** PATCH /notifications/{id}: read or unread, archived or not, snoozed until a time (null wakes it); ONE statement. */
export function updateNotification(caller: Caller, id: string, input: NotificationUpdateInput): Promise<NotificationDto> {
  const set: SQL[] = [];
  if (input.read !== undefined) set.push(sql`read_at = ${input.read ? sql`coalesce(read_at, now())` : sql`null`}`);
  if (input.archived !== undefined) set.push(sql`archived_at = ${input.archived ? sql`coalesce(archived_at, now())` : sql`null`}`);
  if (input.snoozedUntil !== undefined) set.push(sql`snoozed_until = ${input.snoozedUntil}::timestamptz`);
  if (set.length === 0) set.push(sql`id = id`);
  return guardedWrite(caller, notificationTarget(caller, id), (allowed) => ({
    // Named like the table, so the answer's JSON reads the changed row.
    ctes: [sql`notifications as (update public.notifications set ${sql.join(set, sql`, `)} where id = ${allowed} returning *)`],
    result: sql<NotificationDto>`(select ${notificationRecord.json()} from ${notificationRecord.from} where ${n.id} = ${allowed})`,
  }));
}

/** POST /notifications/read-all: every unread notification of the caller (up to `before`, an id, when given); how many. */
export function readAll(caller: Caller, before?: string): Promise<number> {
  const { actor } = caller;
  const membership: Target = {
    from: sql`${workspaceMembers}`,
    where: and(eq(workspaceMembers.workspaceId, actor.workspace), eq(workspaceMembers.userId, actor.user))!,
    columns: { id: workspaceMembers.userId },
    guards: [],
    name: "User",
    team: null,
  };
  return guardedWrite(caller, membership, (allowed) => ({
    ctes: [
      sql`marked as (update ${n} set read_at = now() where ${n.userId} = ${allowed} and ${n.workspaceId} = ${actor.workspace}
        and ${inTeams(actor.teams, n.teamId)} and ${n.readAt} is null and ${notSnoozed}${before ? sql` and ${n.id} <= ${before}` : sql``} returning 1)`,
    ],
    // Null (and so 401/403) unless the caller's membership was found.
    result: sql<number>`case when ${allowed} is not null then (select count(*)::int from marked) end`,
  }));
}

/** The task `idOrRef` as the caller reads it (any member who reads it may follow it). */
const readableTask = (caller: Caller, idOrRef: string): Target => ({
  from: sql`${tasks} join ${teams} on ${teams.id} = ${tasks.teamId}`,
  where: and(eq(tasks.workspaceId, caller.actor.workspace), taskMatch(idOrRef, caller.actor.workspace))!,
  columns: { id: tasks.id, workspaceId: tasks.workspaceId },
  guards: [],
  name: "Task",
  team: tasks.teamId,
  table: tasks,
});

/** PUT (true) or DELETE (false) /tasks/{id}/subscription: the caller follows the task, or stops until mentioned again. */
export async function subscribe(caller: Caller, idOrRef: string, subscribed: boolean): Promise<void> {
  await guardedWrite(caller, readableTask(caller, idOrRef), (allowed) => ({
    ctes: [
      sql`followed as (insert into ${taskSubscriptions} (task_id, user_id, workspace_id, subscribed)
        select id, ${caller.actor.user}, "workspaceId", ${subscribed} from target where id = ${allowed}
        on conflict (task_id, user_id) do update set subscribed = excluded.subscribed returning 1)`,
    ],
    result: sql<boolean>`(select true from followed)`,
  }));
}

/** GET /tasks/{id}/subscribers: one page of the task's followers. */
export function listSubscribers(caller: Caller, idOrRef: string, params: ListParams) {
  return listTaskChildren(caller, idOrRef, params, {
    record: subscriberRecord,
    from: sql`(${subscriberRecord.from})`,
    taskId: taskSubscriptions.taskId,
  });
}
