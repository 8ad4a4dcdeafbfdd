// The Webhook record (its one field map) and the Webhook delivery as GET /webhooks/{id}/deliveries answers it
// (docs/webhooks.md). The signing secret is not a field: it is sealed in the row and shown only by the create and
// rotate-secret answers.
import { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { webhookDeliveries, webhooks } from "../../../drizzle/schema";
import { isEventPattern, RESOURCE_TYPES } from "../../records/event-types";
import { formsOf, idKind, NamesOf, named } from "../../records/names";
import { defineRecord, f } from "../../store/field-map";
import type { JsonFilter } from "../../store/list/filter";

/** How a request names a webhook: by its id (`whk_…`) only. */
export const WEBHOOK_ID = idKind("a webhook id", "whk");
/** How a request names a delivery: by its id (`dlv_…`) only. */
export const DELIVERY_ID = idKind("a delivery id", "dlv");

const MAX_PATTERN = 100;
// The length is checked in the refinement too, so a pattern over it is refused for its length only.
const EventPattern = z
  .string()
  .max(MAX_PATTERN)
  .refine((pattern) => pattern.length > MAX_PATTERN || isEventPattern(pattern), {
    message: `Unknown event type: use <resourceType>.created|updated|deleted, member.joined, member.removed, <resourceType>.* or * (resource types: ${RESOURCE_TYPES.join(", ")})`,
  })
  .openapi({ example: "task.*" });
const EventPatterns = z
  .array(EventPattern)
  .min(1, "Name at least one event type")
  .max(100)
  .openapi({
    description: "Event types (`task.created`), a resource's every type (`task.*`) or `*`",
    example: ["task.*", "comment.created"],
  });
const TeamIds = NamesOf("team", 100)
  .nullable()
  .openapi({
    description: `Only events of these teams, each ${formsOf("team")}, answered as ids (null: every event, including those that belong to no team)`,
  });
const AgentIds = NamesOf("user", 100)
  .nullable()
  .openapi({
    description: `Only events of these agents' sessions and their activities, each an agent's ${formsOf("user")}, answered as ids (null: every event)`,
  });
const Description = z.string().max(1000);
const FilterScalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
// Loose on purpose: the list filter parser checks operators, fields and values (400, as a list's filter is).
const WebhookFilter = z
  .record(z.string(), z.record(z.string(), z.union([FilterScalar, z.array(FilterScalar)])))
  .nullable()
  .openapi({
    description:
      "Only events whose record passes this filter: the list filter syntax as JSON, `{<op>: {<field>: value | [values]}}` " +
      "(eq, neq, in) with the record's field names, names as everywhere, and `changed` (fields an update changed: only `*.updated` " +
      "events pass a filter naming it). An unknown field, operator or name is 400, as in a list's filter. Answered with names " +
      "resolved to ids; null: every event",
    example: { eq: { teamId: "ENG" }, in: { changed: ["status", "assigneeId"] } },
  });
const WebhookUrl = z
  .string()
  .max(2000)
  .openapi({ description: "https URL of the receiver (public host)", example: "https://example.com/hooks/pm" });

export const webhookRecord = defineRecord({
  name: "Webhook",
  resource: "webhooks",
  id: webhooks.id,
  workspace: webhooks.workspaceId,
  team: null,
  from: sql`${webhooks}`,
  fields: {
    id: f.id(webhooks.id, { names: named(WEBHOOK_ID) }),
    url: f.text(webhooks.url, { input: { schema: WebhookUrl, create: "required" } }),
    events: f.json(sql`to_json(${webhooks.events})`, z.array(z.string()), { input: { schema: EventPatterns, create: "required" } }),
    description: f.text(webhooks.description, { input: { schema: Description, create: "optional" } }),
    teamIds: f.json(sql`to_json(${webhooks.teamIds})`, z.array(z.string()).nullable(), {
      input: { schema: TeamIds, create: "optional", write: "resolved" },
    }),
    filter: f.json(sql`${webhooks.filter}`, WebhookFilter, { input: { schema: WebhookFilter, create: "optional", write: "resolved" } }),
    agentIds: f.json(sql`to_json(${webhooks.agentIds})`, z.array(z.string()).nullable(), {
      input: { schema: AgentIds, create: "optional", write: "resolved" },
    }),
    enabled: f.boolean(webhooks.enabled, {
      input: { schema: z.boolean().openapi({ description: "false pauses deliveries; true again clears the failure state" }) },
    }),
    disabledReason: f.text(webhooks.disabledReason, {
      nullable: true,
      doc: { description: "Why the service disabled it (a 410 answer, 3 days of failures); null while enabled or paused by hand" },
    }),
    createdAt: f.datetime(webhooks.createdAt),
    updatedAt: f.datetime(webhooks.updatedAt),
  },
});

export const Webhook = webhookRecord.schema;
export type WebhookDto = z.infer<typeof Webhook>;
export const WebhookSelection = webhookRecord.selection;

export const WebhookCreate = z
  .object({
    url: WebhookUrl,
    events: EventPatterns,
    description: Description.optional(),
    teamIds: TeamIds.optional(),
    filter: WebhookFilter.optional(),
    agentIds: AgentIds.optional(),
  })
  .strict()
  .openapi("WebhookCreate");
export const WebhookUpdate = z.object(webhookRecord.inputShape()).partial().strict().openapi("WebhookUpdate");
export type WebhookCreateInput = {
  url: string;
  events: string[];
  description?: string;
  teamIds?: string[] | null;
  filter?: JsonFilter | null;
  agentIds?: string[] | null;
};
export type WebhookUpdateInput = Partial<WebhookCreateInput & { enabled: boolean }>;

/** A webhook with its signing secret: the create and rotate-secret answers only. */
export const WebhookWithSecret = Webhook.extend({
  secret: z
    .string()
    .openapi({ description: "`whsec_…`: verify signatures with it (Standard Webhooks); shown only now", example: "whsec_…" }),
}).openapi("WebhookWithSecret");

const DeliveryStatus = z.enum(["pending", "succeeded", "failed"]).openapi("WebhookDeliveryStatus");

export const deliveryRecord = defineRecord({
  name: "WebhookDelivery",
  resource: "webhook-deliveries",
  id: webhookDeliveries.id,
  workspace: webhookDeliveries.workspaceId,
  team: null,
  from: sql`${webhookDeliveries}`,
  fields: {
    id: f.id(webhookDeliveries.id, { names: named(DELIVERY_ID) }),
    eventId: f.text(webhookDeliveries.eventId, { doc: { description: "The event (the `webhook-id` header); a ping's is its own" } }),
    status: f.enum(webhookDeliveries.status, DeliveryStatus),
    attempts: f.integer(webhookDeliveries.attempts),
    responseStatus: f.integer(webhookDeliveries.responseStatus, { nullable: true }),
    durationMs: f.integer(webhookDeliveries.durationMs, { nullable: true }),
    nextAttemptAt: f.datetime(webhookDeliveries.nextAttemptAt, {
      nullable: true,
      doc: { description: "While pending: when it is (re)sent at the latest; null once succeeded or failed" },
    }),
    createdAt: f.datetime(webhookDeliveries.createdAt),
  },
});
export const WebhookDelivery = deliveryRecord.schema;
export type WebhookDeliveryDto = z.infer<typeof WebhookDelivery>;
