// The webhook operations, one function each (docs/webhooks.md). Only workspace ADMINs and OWNERs see or change webhooks
// (403); another workspace's webhook or delivery is 404. Each write is one statement that authorizes itself
// (guardedWrite): the role, the teams the body names (404), then the URL's safety (422), in the order of checks.
import { and, eq, gt, type SQL, sql } from "drizzle-orm";
import { events, teams, users, webhookDeliveries, webhooks, workspaceMembers } from "../../../drizzle/schema";
import { unboundGuard, workspaceRoleGuard } from "../../auth/access";
import type { Caller } from "../../auth/caller";
import { requireWorkspaceRole } from "../../auth/roles";
import { conflict, invalid, notFound } from "../../core/errors";
import type { Env } from "../../env";
import { newId } from "../../ids";
import { eventFilterJson, eventFilterTerms, namesExist } from "../../records/event-filter";
import { namedIds } from "../../records/names";
import { type Guard, guardedDelete, guardedWrite, readTarget, type Target, updatedRow } from "../../store/guarded";
import { type ListField, listBody } from "../../store/list";
import type { JsonFilter } from "../../store/list/filter";
import { listRecords } from "../../store/reads";
import { newWebhookSecret, sealSecret } from "../../webhooks/signing";
import { devWebhooks, urlProblem } from "../../webhooks/url-safety";
import {
  deliveryRecord,
  type WebhookCreateInput,
  type WebhookDeliveryDto,
  type WebhookDto,
  type WebhookUpdateInput,
  webhookRecord,
} from "./record";

const WHAT = "manage webhooks";
/** How long a rotated-out secret keeps signing. */
const PREVIOUS_SECRET_HOURS = 24;
/** Deliveries are kept (and listed) this long. */
const DELIVERY_DAYS = 30;

/** A text[] value from a list (null stays null), passed as one JSON parameter. */
const textArray = (values: string[] | null): SQL =>
  values === null ? sql`null::text[]` : sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

/**
 * Workspace ADMIN/OWNER, with a credential bound to no team: a webhook's events reach past any team a credential could
 * be bound to (docs/api.md, "Least privilege").
 */
const adminGuards = (caller: Caller): Guard[] => [
  workspaceRoleGuard(caller.actor, "ADMIN", WHAT),
  unboundGuard(caller.actor, "manage webhooks"),
];

/** The ids `teamIds` (ids or prefixes) name, resolved in the statement that stores them (null stays null). */
const teamIdsValue = (caller: Caller, teamIds: string[] | null): SQL =>
  teamIds === null ? sql`null::text[]` : namedIds("team", teamIds, caller.actor.workspace);

/** Every one of `teamIds` a team of the workspace (404 otherwise), as a guard. */
function teamsGuard(caller: Caller, teamIds: string[] | null | undefined): Guard[] {
  if (!teamIds?.length) return [];
  return [
    {
      holds: sql`(select (select count(*) from ${teams} where ${teams.workspaceId} = ${caller.actor.workspace}
        and ${teams.id} = any(named.ids)) = cardinality(named.ids) from (select ${teamIdsValue(caller, teamIds)} as ids) as named)`,
      refusal: () => notFound("Team"),
    },
  ];
}

/** A body's filter, checked as a list's (400), its names resolved in the statement that stores it. */
interface FilterWrite {
  /** The stored value (null clears it); null::jsonb too when it is refused. */
  value: SQL;
  /** Its refusal (a term the parser refused), or that each name names a record of the workspace. */
  guards: Guard[];
}

function filterWrite(caller: Caller, filter: JsonFilter | null | undefined, fields: Record<string, ListField>): FilterWrite {
  if (!filter || Object.keys(filter).length === 0) return { value: sql`null::jsonb`, guards: [] };
  try {
    const terms = eventFilterTerms(filter, fields);
    return { value: eventFilterJson(terms, caller.actor.workspace), guards: namesExist(terms, caller.actor.workspace) };
  } catch (err) {
    // In the order of checks: after the role and the teams (a MEMBER's bad filter is 403).
    return { value: sql`null::jsonb`, guards: [{ holds: sql`false`, refusal: () => err as Error }] };
  }
}

/** The ids `agentIds` (ids or emails) name, resolved in the statement that stores them (null stays null). */
const agentIdsValue = (caller: Caller, agentIds: string[] | null): SQL =>
  agentIds === null ? sql`null::text[]` : namedIds("user", agentIds, caller.actor.workspace);

/** Every one of `agentIds` an agent of the workspace (404 otherwise), as a guard. */
function agentsGuard(caller: Caller, agentIds: string[] | null | undefined): Guard[] {
  if (!agentIds?.length) return [];
  return [
    {
      holds: sql`(select (select count(*) from ${workspaceMembers} join ${users} on ${users.id} = ${workspaceMembers.userId}
        where ${workspaceMembers.workspaceId} = ${caller.actor.workspace} and ${users.type} = 'AGENT'
        and ${users.id} = any(named.ids)) = cardinality(named.ids) from (select ${agentIdsValue(caller, agentIds)} as ids) as named)`,
      refusal: () => notFound("Agent"),
    },
  ];
}

/** The URL's safety as the last guard (so 401, 403 and 404 come first), when the body names one. */
function urlGuard(env: Pick<Env, "DEV_WEBHOOKS">, url: string | undefined): Guard[] {
  const problem = url === undefined ? null : urlProblem(url, devWebhooks(env));
  return problem ? [{ holds: sql`false`, refusal: () => invalid("url", problem) }] : [];
}

/** The caller's own membership: what a create acts in (its workspace). */
const workspaceTarget = (caller: Caller, guards: Guard[]): Target => ({
  from: sql`${workspaceMembers}`,
  where: and(eq(workspaceMembers.workspaceId, caller.actor.workspace), eq(workspaceMembers.userId, caller.actor.user))!,
  columns: { id: workspaceMembers.workspaceId },
  guards,
  name: "Workspace",
  team: null,
});

/** The webhook `id` of the caller's workspace, with the operation's guards. */
const webhookTarget = (caller: Caller, id: string, guards: Guard[]): Target => ({
  from: sql`${webhooks}`,
  where: and(eq(webhooks.workspaceId, caller.actor.workspace), eq(webhooks.id, id))!,
  columns: { id: webhooks.id },
  guards: [...adminGuards(caller), ...guards],
  name: "Webhook",
  team: null,
  table: webhooks,
});

const enabledGuard: Guard = { holds: sql`${webhooks.enabled}`, refusal: () => conflict("The webhook is disabled; enable it first") };

/** The Webhook answer of `id`, read in the statement that wrote it (its CTE `webhooks` shadows the table). */
const written = (id: SQL) =>
  sql<WebhookDto | null>`(select ${webhookRecord.json()} from ${webhookRecord.from} where ${webhooks.id} = ${id})`;
/** The Delivery answer of `id`, read in the statement that wrote it. */
const writtenDelivery = (id: string) =>
  sql<WebhookDeliveryDto | null>`(select ${deliveryRecord.json()} from ${deliveryRecord.from} where ${webhookDeliveries.id} = ${id})`;

/**
 * POST /webhooks: the new webhook with its signing secret (shown only in this answer and rotate-secret's). `filterFields`:
 * what its filter may name (the app's: records/event-filter.ts).
 */
export async function createWebhook(
  caller: Caller,
  env: Env,
  input: WebhookCreateInput,
  filterFields: Record<string, ListField>,
): Promise<WebhookDto & { secret: string }> {
  const id = newId("whk");
  const secret = newWebhookSecret();
  const sealed = await sealSecret(env.CURSOR_SECRET, id, secret);
  const teamIds = input.teamIds ?? null;
  const filter = filterWrite(caller, input.filter, filterFields);
  const agentIds = input.agentIds ?? null;
  const guards = [
    ...adminGuards(caller),
    ...teamsGuard(caller, teamIds),
    ...agentsGuard(caller, agentIds),
    ...filter.guards,
    ...urlGuard(env, input.url),
  ];
  const webhook = await guardedWrite(caller, workspaceTarget(caller, guards), (allowed) => ({
    ctes: [
      sql`webhooks as (insert into ${webhooks} (id, workspace_id, url, events, description, team_ids, agent_ids, filter, sealed_secret, creator_id)
        select ${id}, ${allowed}, ${input.url}, ${textArray(input.events)}, ${input.description ?? ""}, ${teamIdsValue(caller, teamIds)},
          ${agentIdsValue(caller, agentIds)}, ${filter.value}, ${sealed}, ${caller.actor.user}
        where ${allowed} is not null returning *)`,
    ],
    result: written(sql`${id}`),
  }));
  return { ...webhook, secret };
}

/** PATCH /webhooks/{id}: url, events, description, teams, filter, enabled; enabling again clears the failure state. */
export function updateWebhook(
  caller: Caller,
  env: Env,
  id: string,
  input: WebhookUpdateInput,
  filterFields: Record<string, ListField>,
): Promise<WebhookDto> {
  const values: Record<string, unknown> = {};
  for (const key of ["url", "description", "enabled"] as const) if (input[key] !== undefined) values[key] = input[key];
  if (input.events !== undefined) values.events = input.events;
  if (input.teamIds !== undefined) values.teamIds = teamIdsValue(caller, input.teamIds);
  if (input.agentIds !== undefined) values.agentIds = agentIdsValue(caller, input.agentIds);
  if (input.enabled !== undefined) Object.assign(values, { disabledReason: null });
  if (input.enabled === true) Object.assign(values, { failingSince: null });
  const filter = filterWrite(caller, input.filter, filterFields);
  if (input.filter !== undefined) values.filter = filter.value;
  const guards = [
    ...teamsGuard(caller, input.teamIds),
    ...agentsGuard(caller, input.agentIds),
    ...filter.guards,
    ...urlGuard(env, input.url),
  ];
  return guardedWrite(caller, webhookTarget(caller, id, guards), (allowed) => ({
    ctes: [updatedRow(caller, "webhooks", webhooks, values, allowed)],
    result: written(sql`(select id from webhooks)`),
  }));
}

/** DELETE /webhooks/{id}: its deliveries go with it. */
export async function deleteWebhook(caller: Caller, id: string): Promise<void> {
  await guardedDelete(caller, webhookTarget(caller, id, []), webhooks);
}

/** GET /webhooks/{id}: one statement, with the rule. */
export function getWebhook(caller: Caller, id: string): Promise<WebhookDto> {
  const target = webhookTarget(caller, id, []);
  return caller.read(async () => {
    const row = await readTarget<{ webhook: WebhookDto }>(caller.db, caller, {
      ...target,
      columns: { ...target.columns, webhook: webhookRecord.json() },
    });
    return row.webhook;
  });
}

/** GET /webhooks: the rule decides before the list's parameters are read (403 whatever a MEMBER asks for). */
export async function listWebhooks(caller: Caller, query: URLSearchParams) {
  requireWorkspaceRole(await caller.principal(), "ADMIN", WHAT);
  const params = await caller.listParams(webhookRecord.list, query);
  return listBody("webhooks", params, await listRecords(caller, webhookRecord, params));
}

/** POST /webhooks/{id}/test: whether the webhook takes a stored event (pm_webhook_takes, as its deliveries are queued). */
export function testWebhook(caller: Caller, id: string, eventId: string): Promise<{ matches: boolean }> {
  const target = webhookTarget(caller, id, []);
  const matches = sql<boolean | null>`(select pm_webhook_takes(${webhooks}, e) from ${events} e
    where e.id = ${eventId} and e.workspace_id = ${webhooks.workspaceId})`;
  return caller.read(async () => {
    const row = await readTarget<{ matches: boolean | null }>(caller.db, caller, { ...target, columns: { ...target.columns, matches } });
    if (row.matches === null) throw notFound("Event");
    return { matches: row.matches };
  });
}

/** POST /webhooks/{id}/rotate-secret: a new secret; the one it replaces keeps signing for 24 hours. */
export async function rotateWebhookSecret(caller: Caller, env: Env, id: string): Promise<WebhookDto & { secret: string }> {
  const secret = newWebhookSecret();
  const sealed = await sealSecret(env.CURSOR_SECRET, id, secret);
  const webhook = await guardedWrite(caller, webhookTarget(caller, id, []), (allowed) => ({
    ctes: [
      sql`webhooks as (update ${webhooks} set sealed_previous_secret = sealed_secret, sealed_secret = ${sealed},
        previous_secret_expires_at = now() + make_interval(hours => ${PREVIOUS_SECRET_HOURS}), updated_at = now()
        where ${webhooks.id} = ${allowed} returning *)`,
    ],
    result: written(sql`(select id from webhooks)`),
  }));
  return { ...webhook, secret };
}

/** POST /webhooks/{id}/ping: a delivery of a synthetic `webhook.ping` event (its body stored with it); 409 when disabled. */
export function pingWebhook(caller: Caller, id: string): Promise<WebhookDeliveryDto> {
  const deliveryId = newId("dlv");
  const eventId = newId("evt");
  return guardedWrite(caller, webhookTarget(caller, id, [enabledGuard]), (allowed) => ({
    ctes: [
      sql`webhook_deliveries as (insert into ${webhookDeliveries} (id, workspace_id, webhook_id, event_id, payload, next_attempt_at)
        select ${deliveryId}, ${webhooks.workspaceId}, ${webhooks.id}, ${eventId},
          json_build_object('id', ${eventId}::text, 'type', 'webhook.ping', 'resourceType', 'webhook', 'resourceId', ${webhooks.id},
            'data', json_build_object('url', ${webhooks.url}, 'events', ${webhooks.events}),
            'createdAt', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), now()
        from ${webhooks} where ${webhooks.id} = ${allowed} returning *)`,
    ],
    result: writtenDelivery(deliveryId),
  }));
}

/** POST /webhooks/{id}/deliveries/{deliveryId}/redeliver: a new delivery of the same event and body; 409 when disabled. */
export function redeliver(caller: Caller, id: string, deliveryId: string): Promise<WebhookDeliveryDto> {
  const copyId = newId("dlv");
  const target: Target = {
    ...webhookTarget(caller, id, [enabledGuard]),
    from: sql`${webhooks} join ${webhookDeliveries} on ${webhookDeliveries.webhookId} = ${webhooks.id} and ${webhookDeliveries.id} = ${deliveryId}`,
    name: "Delivery",
  };
  return guardedWrite(caller, target, (allowed) => ({
    ctes: [
      sql`webhook_deliveries as (insert into ${webhookDeliveries} (id, workspace_id, webhook_id, event_id, payload, next_attempt_at)
        select ${copyId}, workspace_id, webhook_id, event_id, payload, now() from ${webhookDeliveries}
        where ${webhookDeliveries.id} = ${deliveryId} and ${webhookDeliveries.webhookId} = ${allowed} returning *)`,
    ],
    result: writtenDelivery(copyId),
  }));
}

/** GET /webhooks/{id}/deliveries: newest first by default, the last 30 days; 404 for another workspace's webhook. */
export async function listDeliveries(caller: Caller, id: string, query: URLSearchParams) {
  const principal = await caller.principal();
  requireWorkspaceRole(principal, "ADMIN", WHAT);
  if (![...query.keys()].some((key) => key.startsWith("sort"))) query.set("sort[createdAt]", "desc");
  const params = await caller.listParams(deliveryRecord.list, query);
  const scope = and(
    eq(webhookDeliveries.workspaceId, principal.workspace.id),
    eq(webhookDeliveries.webhookId, id),
    gt(webhookDeliveries.createdAt, sql`now() - make_interval(days => ${DELIVERY_DAYS})`),
  );
  const rows = await listRecords(caller, deliveryRecord, params, () => scope!);
  if (rows.length === 0) {
    const [found] = await caller.db
      .select({ id: webhooks.id })
      .from(webhooks)
      .where(and(eq(webhooks.workspaceId, principal.workspace.id), eq(webhooks.id, id)));
    if (!found) throw notFound("Webhook");
  }
  return listBody("deliveries", params, rows);
}
