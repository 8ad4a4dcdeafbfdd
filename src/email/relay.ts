import { inArray, sql } from "drizzle-orm";
import { emailOutbox } from "../../drizzle/schema";
import type { EmailMessage } from "../core/email-messages";
import { errorSummary } from "../core/error-chain";
import { type Executor, withOwnDb } from "../db/client";
import type { Env } from "../env";
import { openMessage } from "./sealed-message";

export type RelayEnv = Pick<Env, "EMAIL_QUEUE" | "CURSOR_SECRET" | "PUBLIC_BASE_URL">;

/** A notification's mail as the relay reads it with its outbox row (nothing secret: the trigger wrote it unsealed). */
type Notice = { to: string; data: Omit<Extract<EmailMessage, { template: "notification" }>["data"], "url"> & { path: string } };

/**
 * A mail still in the outbox this long after it was sent to the queue is sent again, each time waiting twice as long (at
 * most an hour). The first wait leaves the queue time to deliver: it normally takes a second or two.
 */
export const RESEND_AFTER_SECONDS = 120;
const MAX_RESEND_WAIT_SECONDS = 3600;
/** Cloudflare Queues takes at most 100 messages per sendBatch. */
const BATCH = 100;

/**
 * Sends outbox rows to the email queue: the rows `ids` (a request's own mail, right after its commit), or every row due
 * for a resend (the cron). One statement takes the rows and sets their next resend, so two relays never send a row at
 * once and a failed send is retried at that next resend; the cron's also drops rows whose code or invite has expired.
 * The message id is the row id: the consumer delivers each id once, so a resend never makes a second email.
 * Returns how many rows it took; throws when the queue refused them (they stay in the outbox).
 */
export async function relayEmails(db: Executor, env: RelayEnv, rows: { ids: string[] } | "due"): Promise<number> {
  const which = rows === "due" ? sql`${emailOutbox.relayAfter} <= now()` : inArray(emailOutbox.id, rows.ids);
  const { rows: taken } = await db.execute<{ id: string; sealed_message: string | null; notice: Notice | null }>(sql`
    with ${rows === "due" ? sql`expired as (delete from ${emailOutbox} where ${emailOutbox.expiresAt} <= now()),` : sql``}
    taken as (
      select ${emailOutbox.id} from ${emailOutbox} where ${which} and ${emailOutbox.expiresAt} > now()
      order by ${emailOutbox.relayAfter} limit ${BATCH} for update skip locked)
    update ${emailOutbox} o set relays = o.relays + 1,
      relay_after = now() + make_interval(secs => least(${MAX_RESEND_WAIT_SECONDS}, ${RESEND_AFTER_SECONDS} * power(2, o.relays)))
    from taken where o.id = taken.id
    returning o.id, o.sealed_message, (
      select json_build_object('to', u.email, 'data', json_build_object('type', n.type, 'actor', a.name,
          'reference', tm.prefix || '-' || t.number, 'title', t.title, 'path', '/tasks/' || tm.prefix || '-' || t.number, 'comment', c.content))
      from notifications n join users u on u.id = n.user_id join tasks t on t.id = n.task_id join teams tm on tm.id = t.team_id
        left join users a on a.id = n.actor_id left join comments c on c.id = n.comment_id
      where n.id = o.notification_id) as notice`);
  const messages: EmailMessage[] = [];
  for (const row of taken) {
    if (row.sealed_message === null) {
      // A notification's mail (docs/api.md, "Inbox"), rendered from the notification; gone with it, it is not sent.
      if (row.notice) {
        const { path, ...data } = row.notice.data;
        const url = `${(env.PUBLIC_BASE_URL ?? "").replace(/\/+$/, "")}${path}`;
        messages.push({ id: row.id, to: row.notice.to, template: "notification", data: { ...data, url } });
      }
      continue;
    }
    try {
      messages.push({ ...(await openMessage(env.CURSOR_SECRET, row.id, row.sealed_message)), id: row.id });
    } catch (err) {
      // Sealed under another CURSOR_SECRET (rotated since): it cannot be sent; it goes when its code or invite expires.
      console.error(`email outbox: ${row.id} cannot be opened: ${errorSummary(err)}`);
    }
  }
  if (messages.length > 0) {
    try {
      await env.EMAIL_QUEUE.sendBatch(messages.map((body) => ({ body, contentType: "json" })));
    } catch (err) {
      throw new Error(`email queue refused ${messages.length} message(s); the outbox sends them again later`, { cause: err });
    }
  }
  return taken.length;
}

/** The Cron Trigger's work: every mail due for a resend, in batches, on a connection of its own. */
export async function relayDueEmails(env: RelayEnv & Pick<Env, "DATABASE_URL" | "DB_WS_PROXY">): Promise<void> {
  await withOwnDb(env, async (db) => {
    while ((await relayEmails(db, env, "due")) === BATCH);
  });
}
