// The outbox of stored bytes to remove (file_deletions, filled by a trigger in the transaction that deletes an
// attachment, or its comment or task): the relay sends its due rows to the files queue after the response of a delete
// and from the Cron Trigger; the consumer removes each object, then its row. At least once: a row stays until its
// object is gone, and is sent again while it stays.
import { inArray, sql } from "drizzle-orm";
import { fileDeletions } from "../../drizzle/schema";
import type { FileMessage } from "../core/file-messages";
import type { Executor } from "../db/client";
import type { Env } from "../env";

/** A row sent and still here is sent again this long after (the consumer had it, or the send was lost). */
export const RELAY_LEASE_SECONDS = 120;
/** Cloudflare Queues takes at most 100 messages per sendBatch. */
const BATCH = 100;

/** Takes up to 100 due rows (skip locked: two relays never take one), moves them a lease ahead and queues them. */
export async function relayFileDeletions(db: Executor, env: Pick<Env, "FILES_QUEUE">): Promise<number> {
  const { rows } = await db.execute<{ object_key: string }>(sql`
    with due as (select object_key from ${fileDeletions} where relay_after <= now() order by relay_after limit ${BATCH}
      for update skip locked)
    update ${fileDeletions} d set relay_after = now() + make_interval(secs => ${RELAY_LEASE_SECONDS})
    from due where d.object_key = due.object_key returning d.object_key`);
  if (rows.length > 0) await env.FILES_QUEUE.sendBatch(rows.map((row) => ({ body: { key: row.object_key } satisfies FileMessage })));
  return rows.length;
}

/** The consumer: each object removed from R2, then its outbox rows; a failure comes back as the queue's retry. */
export async function removeObjects(db: Executor, env: Pick<Env, "FILES">, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await env.FILES.delete(keys);
  await db.delete(fileDeletions).where(inArray(fileDeletions.objectKey, keys));
}
