import { createRoute, z } from "@hono/zod-openapi";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { oneRecord, reading } from "../../http/read-route";
import { protectedRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, MAX_ID_LENGTH, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import type { ListField } from "../../store/list";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  pingWebhook,
  redeliver,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
} from "./operations";
import {
  deliveryRecord,
  Webhook,
  WebhookCreate,
  type WebhookCreateInput,
  WebhookDelivery,
  WebhookSelection,
  WebhookUpdate,
  type WebhookUpdateInput,
  WebhookWithSecret,
  webhookRecord,
} from "./record";

/** GET /webhooks/{id}'s answer, also what If-Match and the order of checks read. */
const readWebhook = oneRecord("webhook", webhookRecord.shape, getWebhook);

const base = protectedRoute("Webhooks");
const ADMIN = "Needs workspace ADMIN or OWNER (403 otherwise); another workspace's webhook is 404.";
const URL_RULE =
  "`url` must be `https` and name a public host: private, loopback, link-local, unique-local, CGNAT and metadata addresses and " +
  "`localhost`-like names are 422 at `url` (where the development switch DEV_WEBHOOKS is on, `http://127.0.0.1…` and " +
  "`http://localhost…` too). Each delivery checks again what the host resolves to.";
const withSecret = z.object({ webhook: WebhookWithSecret });
const oneDelivery = z.object({ delivery: WebhookDelivery });
const DeliveryParams = IdParam.extend({
  deliveryId: z
    .string()
    .min(1)
    .openapi({ param: { name: "deliveryId", in: "path" }, description: "A delivery of this webhook (`dlv_…`)" }),
});

const create = createRoute({
  ...base,
  method: "post",
  operationId: "createWebhook",
  path: "/webhooks",
  summary: "Create a webhook: where the workspace's events are POSTed, signed (Standard Webhooks)",
  description:
    `${ADMIN} \`events\`: event types (\`task.created\`, \`member.joined\`), a resource's every type (\`task.*\`) or \`*\`; ` +
    "an unknown one is 422. `teamIds` (teams of this workspace, else 404) limits it to those teams' events, `filter` to the events " +
    'whose record passes it (the list filter syntax, e.g. `{"eq": {"teamId": "ENG"}, "in": {"changed": ["status"]}}`; 400 as a list\'s). ' +
    `${URL_RULE} The answer carries the signing secret (\`whsec_…\`), shown only here and by rotate-secret.`,
  request: jsonBody(WebhookCreate),
  responses: {
    201: createdResponse(withSecret, "Created"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const list = createRoute({
  ...base,
  method: "get",
  operationId: "listWebhooks",
  path: "/webhooks",
  summary: "List the workspace's webhooks",
  description: listDescription(webhookRecord.list, "Needs workspace ADMIN or OWNER. Secrets are never listed."),
  request: { query: listQueryFor(webhookRecord.list) },
  responses: {
    200: jsonResponse(paginated("webhooks", WebhookSelection), "Webhooks"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN"], { validation: true }),
  },
});
const read = createRoute({
  ...base,
  method: "get",
  operationId: "getWebhook",
  path: "/webhooks/{id}",
  summary: "Get a webhook",
  description: `${ADMIN} \`fields\` narrows the answer.`,
  request: { params: IdParam, query: fieldsQueryFor(webhookRecord.shape) },
  responses: {
    200: jsonResponse(z.object({ webhook: WebhookSelection }), "The webhook"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const update = createRoute({
  ...base,
  method: "patch",
  operationId: "updateWebhook",
  path: "/webhooks/{id}",
  summary: "Change a webhook (url, events, description, teams, filter, enabled)",
  description: `${ADMIN} Partial. \`enabled: false\` pauses deliveries; \`enabled: true\` resumes them and clears the failure state. ${URL_RULE}`,
  request: { params: IdParam, ...jsonBody(WebhookUpdate) },
  responses: {
    200: jsonResponse(z.object({ webhook: Webhook }), "Updated"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});
const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteWebhook",
  path: "/webhooks/{id}",
  summary: "Delete a webhook and its deliveries",
  description: ADMIN,
  request: { params: IdParam },
  responses: { 204: { description: "Deleted" }, ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"]) },
});
const rotate = createRoute({
  ...base,
  method: "post",
  operationId: "rotateWebhookSecret",
  path: "/webhooks/{id}/rotate-secret",
  summary: "Replace the signing secret; the old one keeps signing for 24 hours",
  description: `${ADMIN} The answer carries the new secret (shown only here). For 24 hours each delivery carries two signatures, one per secret.`,
  request: { params: IdParam },
  responses: {
    200: jsonResponse(withSecret, "The webhook with its new secret"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"]),
  },
});
const ping = createRoute({
  ...base,
  method: "post",
  operationId: "pingWebhook",
  path: "/webhooks/{id}/ping",
  summary: "Send a `webhook.ping` event to the webhook",
  description: `${ADMIN} A delivery of a synthetic \`webhook.ping\` event, sent like any other; a disabled webhook is 409.`,
  request: { params: IdParam },
  responses: {
    202: jsonResponse(oneDelivery, "The delivery, pending"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"]),
  },
});
const test = createRoute({
  ...base,
  method: "post",
  operationId: "testWebhook",
  path: "/webhooks/{id}/test",
  summary: "Whether the webhook takes a stored event (its types, teams, agents and filter)",
  description:
    `${ADMIN} Answers whether the webhook as it is now takes the event \`eventId\` (one of this workspace's, else 404): ` +
    "whether its types, teams, agents and filter take it, the rule that queues its deliveries, enabled or not (a disabled " +
    "webhook is queued nothing). Sends nothing, writes nothing.",
  request: {
    params: IdParam,
    ...jsonBody(
      z
        .object({
          eventId: z
            .string()
            .min(1)
            .max(MAX_ID_LENGTH)
            .openapi({ description: "A stored event (`evt_…`)", example: "evt_01jz8x4q0be0sv3c5kq9v1y2ab" }),
        })
        .strict()
        .openapi("WebhookTest"),
    ),
  },
  responses: {
    200: jsonResponse(z.object({ matches: z.boolean() }).openapi("WebhookTestResult"), "Whether it matches"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const deliveries = createRoute({
  ...base,
  method: "get",
  operationId: "listWebhookDeliveries",
  path: "/webhooks/{id}/deliveries",
  summary: "The webhook's deliveries of the last 30 days, newest first",
  description: listDescription(
    deliveryRecord.list,
    `${ADMIN} Newest first unless \`sort\` says otherwise. \`attempts\` counts the POSTs made; \`responseStatus\` and \`durationMs\` are the last one's.`,
  ),
  request: { params: IdParam, query: listQueryFor(deliveryRecord.list) },
  responses: {
    200: jsonResponse(paginated("deliveries", deliveryRecord.selection), "Deliveries"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});
const redeliverRoute = createRoute({
  ...base,
  method: "post",
  operationId: "redeliverWebhookDelivery",
  path: "/webhooks/{id}/deliveries/{deliveryId}/redeliver",
  summary: "Send a delivery's event again, as a new delivery",
  description: `${ADMIN} The same event and body (the same \`webhook-id\`), as a new delivery; a disabled webhook is 409.`,
  request: { params: DeliveryParams },
  responses: {
    202: jsonResponse(oneDelivery, "The new delivery, pending"),
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"]),
  },
});

/** The webhooks' routes; `filterFields`: what a webhook's filter may name (its app's: records/event-filter.ts). */
export const webhookRoutes = (filterFields: Record<string, ListField>) =>
  newRouter()
    .openapi(create, async (c) => {
      const webhook = await createWebhook(c.get("caller"), c.env, c.req.valid("json") as WebhookCreateInput, filterFields);
      return created(c, "webhook", `/webhooks/${webhook.id}`, webhook);
    })
    .openapi(
      list,
      reading(list, ({ caller, url }) => listWebhooks(caller, url.searchParams)),
    )
    .openapi(read, reading(read, readWebhook))
    .openapi(update, async (c) => {
      const webhook = await updateWebhook(
        c.get("caller"),
        c.env,
        c.req.valid("param").id,
        c.req.valid("json") as WebhookUpdateInput,
        filterFields,
      );
      return c.json({ webhook }, 200);
    })
    .openapi(remove, async (c) => {
      await deleteWebhook(c.get("caller"), c.req.valid("param").id);
      return c.body(null, 204);
    })
    .openapi(rotate, async (c) => c.json({ webhook: await rotateWebhookSecret(c.get("caller"), c.env, c.req.valid("param").id) }, 200))
    .openapi(ping, async (c) => c.json({ delivery: await pingWebhook(c.get("caller"), c.req.valid("param").id) }, 202))
    .openapi(test, async (c) => c.json(await testWebhook(c.get("caller"), c.req.valid("param").id, c.req.valid("json").eventId), 200))
    .openapi(
      deliveries,
      reading(deliveries, ({ caller, param, url }) => listDeliveries(caller, param.id, url.searchParams)),
    )
    .openapi(redeliverRoute, async (c) => {
      const { id, deliveryId } = c.req.valid("param");
      return c.json({ delivery: await redeliver(c.get("caller"), id, deliveryId) }, 202);
    });
