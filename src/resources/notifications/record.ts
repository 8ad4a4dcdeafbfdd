// The Notification record (docs/api.md, "Inbox"): one of a person's inbox, about a task. The field map gives
// the answer, the list's filters (`read`, `archived`, `type`, `taskId`) and its order. Subscribers are user summaries.
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { notifications, notificationType, tasks, teams, users } from "../../../drizzle/schema";
import { idKind, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import { COMMENT_ID } from "../comments/record";
import { UserSummarySchema, userSummaryJson, userSummaryShape } from "../users/record";

/** How a request names a notification: by its id (`ntf_…`) only. */
export const NOTIFICATION_ID = idKind("a notification id", "ntf");

const n = notifications;
const actor = alias(users, "actor");
const task = alias(tasks, "task");
const team = alias(teams, "task_team");

export const TaskSummary = z
  .object({ id: z.string(), reference: z.string(), title: z.string(), status: z.string() })
  .openapi("TaskSummary");

/** Unread: not read, not archived; a snoozed one counts once its time has passed. */
export const isUnread = sql`(${n.readAt} is null and ${n.archivedAt} is null)`;
/** Left out of the inbox while snoozed. */
export const notSnoozed = sql`(${n.snoozedUntil} is null or ${n.snoozedUntil} <= now())`;

export const notificationRecord = defineRecord({
  name: "Notification",
  resource: "notifications",
  id: n.id,
  workspace: n.workspaceId,
  team: n.teamId,
  from: sql`${n} join ${tasks} as ${sql.identifier("task")} on ${task.id} = ${n.taskId}
    join ${teams} as ${sql.identifier("task_team")} on ${team.id} = ${task.teamId}
    left join ${users} as ${sql.identifier("actor")} on ${actor.id} = ${n.actorId}`,
  fields: {
    id: f.id(n.id, { names: named(NOTIFICATION_ID), doc: { example: "ntf_01jz8x4q0be0sv3c5kq9v1y2ab" } }),
    type: f.enum(n.type, z.enum(notificationType.enumValues), {
      doc: { description: "Why: docs/api.md, Inbox" },
    }),
    taskId: f.id(n.taskId, { hidden: true, names: named("task") }),
    task: f.json(
      sql`json_build_object('id', ${task.id}, 'reference', ${team.prefix} || '-' || ${task.number}, 'title', ${task.title}, 'status', ${task.status})`,
      TaskSummary,
      { shape: { id: true, reference: true, title: true, status: true } },
    ),
    commentId: f.id(n.commentId, { names: named(COMMENT_ID), nullable: true, list: false }),
    actor: f.json(userSummaryJson(actor), UserSummarySchema.nullable(), { shape: userSummaryShape }),
    eventId: f.text(n.eventId, { nullable: true, list: false }),
    read: f.boolean(sql`(${n.readAt} is not null)`, { hidden: true, list: { sort: false } }),
    archived: f.boolean(sql`(${n.archivedAt} is not null)`, { hidden: true, list: { sort: false } }),
    readAt: f.datetime(n.readAt, { nullable: true, list: false }),
    archivedAt: f.datetime(n.archivedAt, { nullable: true, list: false }),
    snoozedUntil: f.datetime(n.snoozedUntil, { nullable: true, list: false }),
    createdAt: f.datetime(n.createdAt),
  },
});
export const Notification = notificationRecord.schema;
export type NotificationDto = z.infer<typeof Notification>;
export const NotificationSelection = notificationRecord.selection;

export const NotificationUpdate = z
  .object({
    read: z.boolean().optional(),
    archived: z.boolean().optional(),
    snoozedUntil: z.iso.datetime({ offset: true }).nullable().optional().openapi({ description: "Hidden until then; null wakes it" }),
  })
  .strict()
  .openapi("NotificationUpdate");
export type NotificationUpdateInput = z.infer<typeof NotificationUpdate>;

export const ReadAll = z
  .object({ before: z.string().max(64).optional().openapi({ description: "Only this notification and older ones (`ntf_…`)" }) })
  .strict()
  .openapi("NotificationsReadAll");
