// The webhook queue's consumer (docs/webhooks.md, delivery): takes each delivery, POSTs its body to the webhook's URL
// signed per Standard Webhooks, and records the attempt. A 2xx succeeds; a 410 disables the webhook; anything else is
// retried by the queue with exponential backoff and jitter (the receiver's Retry-After honoured) until the last attempt,
// which fails the delivery and leaves the message to the dead-letter queue. A webhook whose deliveries have failed for
// 3 days without a success is disabled and its creator emailed (through the email outbox).
import { and, eq, sql } from "drizzle-orm";
import { users, webhookDeliveries, webhooks } from "../../drizzle/schema";
import { errorSummary } from "../core/error-chain";
import type { WebhookMessage } from "../core/webhook-messages";
import { RequestDb } from "../db/client";
import { EmailOutbox } from "../email/outbox";
import type { Env } from "../env";
import { Event } from "../records/events";
import { retryAfterSeconds, retryDelaySeconds } from "./backoff";
import { RELAY_LEASE_SECONDS } from "./relay";
import { openSecret, signatureHeader } from "./signing";
import { destinationProblem, devWebhooks } from "./url-safety";

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRY_BASE_SECONDS = 30;
const DEFAULT_MAX_ATTEMPTS = 14;
/** Of the receiver's answer only this much is read (and nothing of it kept): a huge or endless body cannot hold us. */
const MAX_ANSWER_BYTES = 4096;
const FAILING_DAYS = 3;

const number = (value: string | undefined, fallback: number) => (value && Number.isFinite(Number(value)) ? Number(value) : fallback);

/** The delivery settings, from the environment (tests shorten them). */
export function deliverySettings(env: Pick<Env, "WEBHOOK_TIMEOUT_MS" | "WEBHOOK_RETRY_BASE_SECONDS" | "WEBHOOK_MAX_ATTEMPTS">) {
  return {
    timeoutMs: number(env.WEBHOOK_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    retryBaseSeconds: number(env.WEBHOOK_RETRY_BASE_SECONDS, DEFAULT_RETRY_BASE_SECONDS),
    maxAttempts: number(env.WEBHOOK_MAX_ATTEMPTS, DEFAULT_MAX_ATTEMPTS),
  };
}

type TakenDelivery = {
  id: string;
  attempts: number;
  event_id: string;
  body: string;
  webhook_id: string;
  url: string;
  sealed_secret: string;
  sealed_previous: string | null;
};

/** What an attempt came to: the receiver's status (null: no answer), how long it took, and why it failed. */
interface Outcome {
  status: number | null;
  durationMs: number;
  error: string | null;
  retryAfter: number | null;
}

/** An event's keys in the order GET /events answers them (the stored body is jsonb, which keeps no order). */
const EVENT_KEYS = Object.keys(Event.shape);

/** The body as sent: compact JSON, the event's keys in the API's order, the same bytes on every attempt. */
export function bodyText(stored: string): string {
  const value = JSON.parse(stored) as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const key of EVENT_KEYS) if (key in value) ordered[key] = value[key];
  return JSON.stringify(Object.assign(ordered, value));
}

/** Reads at most MAX_ANSWER_BYTES of the answer, then lets the rest go. */
async function drain(res: Response): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  let read = 0;
  try {
    while (read < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** One POST of the delivery, everything (the DNS check, the answer, its first bytes) inside the timeout. */
async function attempt(delivery: TakenDelivery, env: Env, timeoutMs: number, fetcher: typeof fetch): Promise<Outcome> {
  const started = Date.now();
  const signal = AbortSignal.timeout(timeoutMs);
  const elapsed = () => Date.now() - started;
  try {
    const problem = await destinationProblem(delivery.url, devWebhooks(env), fetcher, signal);
    if (problem) return { status: null, durationMs: elapsed(), error: `Destination refused: ${problem}`, retryAfter: null };
    const secrets = [await openSecret(env.CURSOR_SECRET, delivery.webhook_id, delivery.sealed_secret)];
    if (delivery.sealed_previous) secrets.push(await openSecret(env.CURSOR_SECRET, delivery.webhook_id, delivery.sealed_previous));
    const body = bodyText(delivery.body);
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await fetcher(delivery.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "pm-api-webhooks/1",
        "webhook-id": delivery.event_id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signatureHeader(secrets, delivery.event_id, timestamp, body),
      },
      body,
      // A redirect could lead anywhere (a private address): it is an answer like any other, not followed.
      redirect: "manual",
      signal,
    });
    await drain(res);
    const ok = res.status >= 200 && res.status < 300;
    return {
      status: res.status,
      durationMs: elapsed(),
      error: ok ? null : `The receiver answered ${res.status}`,
      retryAfter: retryAfterSeconds(res.headers.get("retry-after")),
    };
  } catch (err) {
    const timedOut = signal.aborted;
    return {
      status: null,
      durationMs: elapsed(),
      error: timedOut ? `No answer within ${timeoutMs} ms` : `Request failed: ${errorSummary(err)}`,
      retryAfter: null,
    };
  }
}

/**
 * Records the attempt `recorded` of delivery `deliveryId` as failed and disables the webhook (when `condition` still
 * holds and it is enabled): its pending deliveries fail and its creator is emailed, all in one transaction.
 */
async function failAndDisable(
  rdb: RequestDb,
  env: Env,
  delivery: { id: string; webhookId: string; recorded: Record<string, unknown> },
  reason: string,
  condition = sql`true`,
): Promise<void> {
  // Interactive (the WebSocket): the webhook's disabling decides whether its creator is emailed.
  await rdb.db.transaction(async (tx) => {
    await tx
      .update(webhookDeliveries)
      .set({ ...delivery.recorded, status: "failed", nextAttemptAt: null })
      .where(eq(webhookDeliveries.id, delivery.id));
    const [row] = await tx
      .update(webhooks)
      .set({ enabled: false, disabledReason: reason, updatedAt: sql`now()` })
      .where(and(eq(webhooks.id, delivery.webhookId), eq(webhooks.enabled, true), condition))
      .returning({
        url: webhooks.url,
        email: sql<string | null>`(select ${users.email} from ${users} where ${users.id} = ${webhooks.creatorId})`,
      });
    if (!row) return;
    const mail = row.email
      ? [
          await new EmailOutbox(env, rdb).add(
            tx,
            { to: row.email, template: "webhook_disabled", data: { webhookId: delivery.webhookId, url: row.url, reason } },
            new Date(Date.now() + 7 * 24 * 60 * 60 * 1000),
          ),
        ]
      : [];
    await tx
      .with(...mail)
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null, lastError: `Webhook disabled: ${reason}`, updatedAt: sql`now()` })
      .where(and(eq(webhookDeliveries.webhookId, delivery.webhookId), eq(webhookDeliveries.status, "pending")));
  });
}

/** One message: take, send, record. Acks or retries it. */
async function deliver(message: Message<WebhookMessage>, rdb: RequestDb, env: Env, fetcher: typeof fetch): Promise<void> {
  const { db } = rdb;
  const settings = deliverySettings(env);
  // The attempts this delivery has when this message is its next one; a duplicate copy, or a message a resend
  // overtook, finds more and sends nothing.
  const expected = message.body.attempt + message.attempts - 1;
  const { rows } = await db.execute<TakenDelivery>(sql`
    update ${webhookDeliveries} d set attempts = d.attempts + 1,
      next_attempt_at = now() + make_interval(secs => ${RELAY_LEASE_SECONDS}), updated_at = now()
    from ${webhooks} w
    where d.id = ${message.body.deliveryId} and w.id = d.webhook_id and d.status = 'pending' and d.attempts = ${expected}
      and d.payload is not null and w.enabled
    returning d.id, d.attempts, d.event_id, d.payload::text as body, w.id as webhook_id, w.url, w.sealed_secret,
      case when w.previous_secret_expires_at > now() then w.sealed_previous_secret end as sealed_previous`);
  const [delivery] = rows;
  if (!delivery) {
    message.ack();
    return;
  }
  const outcome = await attempt(delivery, env, settings.timeoutMs, fetcher);
  const recorded = { responseStatus: outcome.status, durationMs: outcome.durationMs, lastError: outcome.error, updatedAt: sql`now()` };
  if (outcome.error === null) {
    await db.execute(sql`
      with healthy as (update ${webhooks} set failing_since = null where id = ${delivery.webhook_id} and failing_since is not null)
      ${db
        .update(webhookDeliveries)
        .set({ ...recorded, status: "succeeded", nextAttemptAt: null })
        .where(eq(webhookDeliveries.id, delivery.id))
        .getSQL()}`);
    message.ack();
    return;
  }
  const failed = { id: delivery.id, webhookId: delivery.webhook_id, recorded };
  if (outcome.status === 410) {
    await failAndDisable(rdb, env, failed, "the receiver answered 410 Gone");
    message.ack();
    return;
  }
  const last = delivery.attempts >= settings.maxAttempts;
  const delay = retryDelaySeconds(delivery.attempts, settings.retryBaseSeconds, outcome.retryAfter);
  const { rows: state } = await db.execute<{ expired: boolean }>(sql`
    with failing as (
      update ${webhooks} set failing_since = coalesce(failing_since, now()) where id = ${delivery.webhook_id}
      returning failing_since <= now() - make_interval(days => ${FAILING_DAYS}) as expired),
    recorded as (${db
      .update(webhookDeliveries)
      .set({
        ...recorded,
        status: last ? "failed" : "pending",
        nextAttemptAt: last ? null : sql`now() + make_interval(secs => ${delay})`,
      })
      .where(eq(webhookDeliveries.id, delivery.id))
      .getSQL()})
    select expired from failing`);
  if (state[0]?.expired) {
    await failAndDisable(
      rdb,
      env,
      failed,
      `its deliveries failed for ${FAILING_DAYS} days`,
      sql`${webhooks.failingSince} <= now() - make_interval(days => ${FAILING_DAYS})`,
    );
    message.ack();
    return;
  }
  console.error(`webhook delivery ${delivery.id} attempt ${delivery.attempts} failed: ${outcome.error}`);
  // The last attempt's message goes to the dead-letter queue (max_retries = attempts - 1, workers/email/wrangler.toml).
  message.retry({ delaySeconds: last ? 0 : delay });
}

/** Queue consumer of `pm-webhooks`: each message of the batch at once, so one slow receiver does not delay the others. */
export async function consumeWebhooks(batch: MessageBatch<WebhookMessage>, env: Env, fetcher: typeof fetch = fetch): Promise<void> {
  const rdb = new RequestDb(env);
  try {
    await Promise.all(
      batch.messages.map((message) =>
        deliver(message, rdb, env, fetcher).catch((err) => {
          console.error(`webhook delivery ${message.body?.deliveryId} failed: ${errorSummary(err)}`);
          message.retry({ delaySeconds: retryDelaySeconds(message.attempts, deliverySettings(env).retryBaseSeconds) });
        }),
      ),
    );
  } finally {
    await rdb.close();
  }
}
