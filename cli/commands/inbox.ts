// The caller's inbox (docs/api.md, "Inbox"): `pm inbox` lists what needs you, unread first (`--all`: read ones too), and
// `pm inbox read <id>…` (or `--all`) marks them read.
import { defineCommand } from "citty";
import type { Schemas } from "../../client/index";
import { commonArgs } from "../argv";
import { UsageError } from "../errors";
import { printJson, printTable } from "../output";
import { openSession, unwrap } from "../session";

type Notification = Schemas["NotificationSelection"];

const WHY: Record<string, string> = {
  mentioned: "mentioned you",
  assigned: "assigned you",
  delegated: "delegated to you",
  commented: "commented",
  status_changed: "changed status",
};

const list = defineCommand({
  meta: { name: "pm inbox list", description: "What needs you: unread notifications, newest first (--all: read ones too, unread first)" },
  args: {
    all: { type: "boolean", description: "Read ones too (after the unread)" },
    limit: { type: "string", valueHint: "n", description: "At most this many (1..250, default 50)" },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const limit = args.limit === undefined ? undefined : Number(args.limit);
    if (limit !== undefined && !Number.isInteger(limit)) throw new UsageError(`--limit must be a whole number (got '${args.limit}')`);
    const query = { limit, "filter[eq][archived]": false, ...(args.all ? {} : { "filter[eq][read]": false }) };
    const page = await unwrap(client.GET("/notifications", { params: { query } }));
    // Unread first, each group newest first (the API's order).
    const notifications = [...page.notifications].sort((a, b) => Number(a.readAt != null) - Number(b.readAt != null));
    if (args.json) return printJson({ ...page, notifications });
    if (notifications.length === 0) return console.log(args.all ? "Your inbox is empty" : "Nothing unread");
    printTable<Notification>(notifications, [
      { header: "", value: (n) => (n.readAt ? " " : "•") },
      { header: "ID", value: (n) => n.id },
      { header: "TASK", value: (n) => n.task && `${n.task.reference} ${n.task.title}` },
      { header: "WHAT", value: (n) => `${n.actor?.name ?? "someone"} ${WHY[n.type ?? ""] ?? n.type}` },
      { header: "WHEN", value: (n) => n.createdAt },
    ]);
    console.log(`${page.unreadCount} unread`);
  },
});

const read = defineCommand({
  meta: { name: "pm inbox read", description: "Mark notifications read: their ids, or --all" },
  args: {
    ids: { type: "positional", description: "Notification ids (ntf_…)", required: false },
    all: { type: "boolean", description: "Every unread notification" },
    ...commonArgs,
  },
  async run({ args }) {
    const { client } = openSession(args);
    const ids = (args._ as string[]) ?? [];
    if (args.all) {
      const answer = await unwrap(client.POST("/notifications/read-all", { body: {} }));
      return args.json ? printJson(answer) : console.log(`${answer.updated} marked read`);
    }
    if (ids.length === 0) throw new UsageError("Name the notifications to mark read (ntf_…), or --all");
    const marked = [];
    for (const id of ids) {
      marked.push((await unwrap(client.PATCH("/notifications/{id}", { params: { path: { id } }, body: { read: true } }))).notification);
    }
    if (args.json) return printJson({ notifications: marked });
    console.log(`${marked.length} marked read`);
  },
});

export const inbox = defineCommand({
  meta: { name: "pm inbox", description: "Your notifications: mentions, assignments, delegations, comments, status changes" },
  subCommands: { list, read },
});
