// The inbox as one module (docs/api.md, "Inbox"): task subscriptions and notifications, their routes and
// MCP tools. The notifications are written by the database with the write that causes them (pm_notify); the mentions
// they start from are read from the Markdown by src/records/mentions.ts, which tasks and comments hand to their writes.
import { z } from "@hono/zod-openapi";
import type { ResourceModule } from "../../http/module";
import { Cursor, tool } from "../../http/tool";
import { NameOf } from "../../records/names";
import { listBody } from "../../store/list";
import { listNotifications, updateNotification } from "./operations";
import { NOTIFICATION_ID, Notification, notificationRecord } from "./record";
import register from "./register";
import { InboxPage, newestFirst, notificationRoutes } from "./routes";

export default {
  name: "notifications",
  resource: register,
  routes: [notificationRoutes],
  tools: [
    tool({
      name: "list_notifications",
      rank: 340,
      title: "List notifications",
      description: "The caller's inbox, newest first (GET /notifications).",
      rest: "GET /notifications",
      input: z.object({ unread: z.boolean().optional(), limit: z.number().int().optional(), cursor: Cursor }).strict(),
      output: InboxPage,
      async run(ctx, { unread, limit, cursor }) {
        const query = newestFirst(new URLSearchParams());
        if (limit !== undefined) query.set("limit", String(limit));
        if (cursor) query.set("cursor", cursor);
        if (unread) query.set("filter[eq][read]", "false");
        const params = await ctx.caller.listParams(notificationRecord.list, query);
        const inbox = await listNotifications(ctx.caller, params);
        return { ...(await listBody("notifications", params, inbox.notifications)), unreadCount: inbox.unreadCount };
      },
    }),
    tool({
      name: "mark_read",
      rank: 350,
      title: "Mark a notification read",
      description: "PATCH /notifications/{id} {read: true}.",
      rest: "PATCH /notifications/{id}",
      input: z.object({ id: NameOf(NOTIFICATION_ID) }).strict(),
      output: z.object({ notification: Notification }),
      async run(ctx, { id }) {
        return { notification: await updateNotification(ctx.caller, id, { read: true }) };
      },
    }),
  ],
} satisfies ResourceModule;
