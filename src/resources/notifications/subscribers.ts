// A task's subscribers (docs/api.md, "Inbox") as a list record: the people following it, as user summaries.
import { sql } from "drizzle-orm";
import { taskSubscriptions, users } from "../../../drizzle/schema";
import { named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";

const s = taskSubscriptions;

export const subscriberRecord = defineRecord({
  name: "Subscriber",
  resource: "subscribers",
  id: users.id,
  workspace: s.workspaceId,
  team: null,
  from: sql`${s} join ${users} on ${users.id} = ${s.userId} and ${s.subscribed}`,
  fields: {
    id: f.id(users.id, { names: named("user") }),
    name: f.text(users.name),
    email: f.text(users.email),
    avatarUrl: f.text(users.avatarUrl, { nullable: true, list: false }),
    humanId: f.id(users.humanId, { names: named("user"), nullable: true }),
    handle: f.text(users.handle),
    createdAt: f.datetime(s.createdAt, { hidden: true }),
  },
});
export const Subscriber = subscriberRecord.schema;
export const SubscriberSelection = subscriberRecord.selection;
