import { createRoute, z } from "@hono/zod-openapi";
import { MAX_WAIT_SECONDS, parseWait } from "../../db/event-watcher";
import { errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { listing, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { listBody } from "../../store/list";
import { listNotifications, listSubscribers, readAll, subscribe, updateNotification } from "./operations";
import { Notification, NotificationSelection, NotificationUpdate, notificationRecord, ReadAll } from "./record";
import { SubscriberSelection, subscriberRecord } from "./subscribers";

const base = protectedRoute("Inbox");
const NotificationIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Notification id (`ntf_…`)" }),
});
const TaskIdParam = IdParam.extend({
  id: IdParam.shape.id.openapi({ param: { name: "id", in: "path" }, description: "Task id or reference (`ENG-12`)" }),
});

/** The inbox reads newest first unless the query sorts it otherwise. */
export function newestFirst(query: URLSearchParams): URLSearchParams {
  if ([...query.keys()].some((key) => key === "sort" || key.startsWith("sort["))) return query;
  const sorted = new URLSearchParams(query);
  sorted.delete("wait");
  sorted.set("sort[createdAt]", "desc");
  return sorted;
}

export const InboxPage = paginated("notifications", NotificationSelection).extend({ unreadCount: z.number().int() }).openapi("InboxPage");

const list = createRoute({
  ...base,
  method: "get",
  operationId: "listNotifications",
  path: "/notifications",
  summary: "The caller's inbox",
  description: listDescription(
    notificationRecord.list,
    "The caller's notifications, newest first (`sort[createdAt]=desc`): `filter[eq][read]=false`, `filter[eq][archived]=false`, " +
      "`filter[eq][type]=mentioned`, `filter[eq][taskId]=ENG-12`. A snoozed one is left out until `snoozedUntil`, then reads as " +
      "unread. A credential bound to teams sees those of its teams' tasks. `wait=N` (1..30 s): the answer waits until a " +
      "notification newer than the newest the filters kept is committed (answered within a second of it), or the time is up.",
  ),
  request: {
    query: listQueryFor(notificationRecord.list, {
      wait: z
        .string()
        .optional()
        .openapi({ type: "integer", minimum: 1, maximum: MAX_WAIT_SECONDS, description: "Seconds to wait for a newer notification" }),
    }),
  },
  responses: {
    200: jsonResponse(InboxPage, "Notifications (narrowed by `fields`) and the unread count"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED"], { validation: true }),
  },
});
const patch = createRoute({
  ...base,
  method: "patch",
  operationId: "updateNotification",
  path: "/notifications/{id}",
  summary: "Mark a notification",
  description: "Read or unread, archived or not, snoozed until a time (null wakes it). Another user's notification is 404.",
  request: { params: NotificationIdParam, ...jsonBody(NotificationUpdate) },
  responses: {
    200: jsonResponse(z.object({ notification: Notification }), "The notification"),
    ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});
const readAllRoute = createRoute({
  ...base,
  method: "post",
  operationId: "readAllNotifications",
  path: "/notifications/read-all",
  summary: "Mark every notification read",
  description: "Every unread notification of the caller (with `before`, that one and older ones) is read; `updated` says how many.",
  request: jsonBody(ReadAll),
  responses: {
    200: jsonResponse(z.object({ updated: z.number().int() }), "How many were marked"),
    ...errorResponses(["UNAUTHORIZED"], { validation: true }),
  },
});
const follow = createRoute({
  ...base,
  method: "put",
  operationId: "subscribeTask",
  path: "/tasks/{id}/subscription",
  summary: "Follow a task",
  description: "The caller gets `commented` and `status_changed` notifications of the task. Anyone who reads the task may.",
  request: { params: TaskIdParam },
  responses: {
    200: jsonResponse(z.object({ subscribed: z.literal(true) }), "Following"),
    ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]),
  },
});
const unfollow = createRoute({
  ...base,
  method: "delete",
  operationId: "unsubscribeTask",
  path: "/tasks/{id}/subscription",
  summary: "Stop following a task",
  description: "Sticks until the caller subscribes again or is mentioned in the task again (assigning or commenting does not undo it).",
  request: { params: TaskIdParam },
  responses: { 204: { description: "Not following" }, ...errorResponses(["UNAUTHORIZED", "NOT_FOUND"]) },
});
const subscribers = createRoute({
  ...base,
  method: "get",
  operationId: "listTaskSubscribers",
  path: "/tasks/{id}/subscribers",
  summary: "A task's subscribers",
  description: listDescription(
    subscriberRecord.list,
    "Who follows the task: its creator, assignee and delegate, who commented or was mentioned, and who subscribed (less who unsubscribed).",
  ),
  request: { params: TaskIdParam, query: listQueryFor(subscriberRecord.list) },
  responses: {
    200: jsonResponse(paginated("users", SubscriberSelection), "Subscribers"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "NOT_FOUND"], { validation: true }),
  },
});

export const notificationRoutes = newRouter()
  .openapi(
    list,
    reading(list, async ({ caller, url, keepAlive }) => {
      const wait = parseWait(url.searchParams.get("wait"));
      const params = await caller.listParams(notificationRecord.list, newestFirst(url.searchParams));
      const inbox = await listNotifications(caller, params, wait, keepAlive);
      return { ...(await listBody("notifications", params, inbox.notifications)), unreadCount: inbox.unreadCount };
    }),
  )
  .openapi(readAllRoute, async (c) => {
    const updated = await readAll(c.get("caller"), c.req.valid("json").before);
    return c.json({ updated }, 200);
  })
  .openapi(patch, async (c) => {
    const notification = await updateNotification(c.get("caller"), c.req.valid("param").id, c.req.valid("json"));
    return c.json({ notification }, 200);
  })
  .openapi(follow, async (c) => {
    await subscribe(c.get("caller"), c.req.valid("param").id, true);
    return c.json({ subscribed: true as const }, 200);
  })
  .openapi(unfollow, async (c) => {
    await subscribe(c.get("caller"), c.req.valid("param").id, false);
    return c.body(null, 204);
  })
  .openapi(
    subscribers,
    reading(
      subscribers,
      listing(subscriberRecord.list, "users", (caller, params, param) => listSubscribers(caller, param.id, params)),
    ),
  );
