// The webhook relay (docs/webhooks.md, delivery): from `webhook_deliveries` (which the database's triggers fill with each
// event) to the webhook queue, after the response of every request that wrote and from the Cron Trigger for what a
// lost send left behind. One statement takes the due deliveries (skip locked, so two relays never take one) and moves
// their next attempt a lease ahead; the relay renders the events' bodies (once: a delivery's body never changes, so
// every attempt signs the same bytes) and sends one message per delivery.
import { sql } from "drizzle-orm";
import { webhookDeliveries } from "../../drizzle/schema";
import type { WebhookMessage } from "../core/webhook-messages";
import type { Executor, WorkspaceScope } from "../db/client";
import type { Env } from "../env";
import type { EventDto, EventRendering } from "../records/events";

export type RelayEnv = Pick<Env, "WEBHOOK_QUEUE">;

/**
 * A taken delivery not sent (or sent and lost) is relayed again this long after; one the consumer holds (it is being
 * sent, or the queue holds its retry) after its next attempt plus this. Longer than an attempt may take (the consumer's
 * 10 s timeout), and short, since it bounds how late a delivery whose queue message was lost goes out
 * (docs/webhooks.md: two leases and the cron's minute at most). A copy sent meanwhile sends nothing: the consumer takes
 * a delivery by its attempt count.
 */
export const RELAY_LEASE_SECONDS = 15;
/** Cloudflare Queues takes at most 100 messages per sendBatch. */
const BATCH = 100;
/** A body larger than this goes without `data` and `changes`, marked `truncated` (the full event: GET /events). */
export const MAX_BODY_BYTES = 256 * 1024;

/** The body of an event's delivery: the event as the API answers it, bounded. */
export function eventBody(event: EventDto): Record<string, unknown> {
  if (new TextEncoder().encode(JSON.stringify(event)).byteLength <= MAX_BODY_BYTES) return { ...event };
  const { data: _data, changes: _changes, ...rest } = event;
  return { ...rest, truncated: true };
}

/**
 * Takes up to 100 due deliveries (of `workspace`'s webhooks, when given), renders the bodies not yet rendered (with the
 * app's `rendering`) and sends them to the webhook queue. Returns how many it took; throws when the queue refused them
 * (the lease makes the cron send them again).
 */
export async function relayWebhooks(
  db: Executor,
  env: RelayEnv,
  { eventsByIds }: Pick<EventRendering, "eventsByIds">,
  workspace?: WorkspaceScope,
): Promise<number> {
  const { rows: taken } = await db.execute<{ id: string; event_id: string; attempts: number; rendered: boolean }>(sql`
    with taken as (
      select d.id from ${webhookDeliveries} d join webhooks w on w.id = d.webhook_id
      where d.status = 'pending' and w.enabled${workspace === undefined ? sql`` : sql` and d.workspace_id = ${workspace}`}
        and d.next_attempt_at <= now() - case when d.attempts = 0 then interval '0 s' else make_interval(secs => ${RELAY_LEASE_SECONDS}) end
      order by d.next_attempt_at limit ${BATCH} for update of d skip locked)
    update ${webhookDeliveries} d set next_attempt_at = now() + make_interval(secs => ${RELAY_LEASE_SECONDS}), updated_at = now()
    from taken where d.id = taken.id
    returning d.id, d.event_id, d.attempts, d.payload is not null as rendered`);
  if (taken.length === 0) return 0;
  const unrendered = taken.filter((row) => !row.rendered);
  const missing = new Set<string>();
  if (unrendered.length > 0) {
    const found = await eventsByIds(db, [...new Set(unrendered.map((row) => row.event_id))]);
    const bodies = unrendered.flatMap((row) => {
      const event = found.get(row.event_id);
      if (!event) missing.add(row.id);
      return event ? [{ id: row.id, payload: eventBody(event) }] : [];
    });
    // One statement: the bodies, and the deliveries whose event is gone (older than 30 days) failed.
    await db.execute(sql`
      with bodies as (
        update ${webhookDeliveries} d set payload = v.payload from jsonb_to_recordset(${JSON.stringify(bodies)}::jsonb) as v(id text, payload jsonb)
        where d.id = v.id)
      update ${webhookDeliveries} set status = 'failed', next_attempt_at = null, last_error = 'The event no longer exists', updated_at = now()
      where id in (select jsonb_array_elements_text(${JSON.stringify([...missing])}::jsonb))`);
  }
  const messages: WebhookMessage[] = taken
    .filter((row) => !missing.has(row.id))
    .map((row) => ({ deliveryId: row.id, attempt: row.attempts }));
  if (messages.length > 0) {
    try {
      await env.WEBHOOK_QUEUE.sendBatch(messages.map((body) => ({ body, contentType: "json" })));
    } catch (err) {
      throw new Error(`webhook queue refused ${messages.length} message(s); the relay sends them again later`, { cause: err });
    }
  }
  return taken.length;
}

/** The Cron Trigger's work: every due delivery, in batches; deliveries past 30 days go. */
export async function relayDueWebhooks(db: Executor, env: RelayEnv, rendering: Pick<EventRendering, "eventsByIds">): Promise<void> {
  await db.execute(sql`delete from ${webhookDeliveries} where created_at < now() - interval '30 days'`);
  while ((await relayWebhooks(db, env, rendering)) === BATCH);
}
