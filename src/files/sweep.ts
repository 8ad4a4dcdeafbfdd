// The repair of a stop between the two steps of an upload or a removal (docs/api.md, "Attachments"): an upload writes
// its object, then its record; a removal deletes the record (the outbox row in the same transaction), then the object.
// A process killed in between leaves an object without a record; an object lost leaves a record without an object. The
// sweep walks the bucket in key order beside the records in the same order (a merge, a page of 1,000 keys at a time) and
// removes both kinds, leaving alone what is younger than `graceMs` (an upload in flight has its object before its record).
import { and, asc, gt, inArray, like, lte } from "drizzle-orm";
import { attachments, fileDeletions } from "../../drizzle/schema";
import type { Executor } from "../db/client";
import type { Env } from "../env";

/** An upload takes at most this long between its object and its record. */
export const SWEEP_GRACE_MS = 60 * 60 * 1000;

/** The grace of the Cron Trigger's sweep: an hour, or locally DEV_FILES_SWEEP_GRACE_SECONDS (env.ts). */
export function sweepGraceMs(env: Pick<Env, "DEV_FILES_SWEEP_GRACE_SECONDS">): number {
  const seconds = Number(env.DEV_FILES_SWEEP_GRACE_SECONDS);
  return env.DEV_FILES_SWEEP_GRACE_SECONDS && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : SWEEP_GRACE_MS;
}

export interface SweepResult {
  objectsRemoved: number;
  recordsRemoved: number;
}

/** `prefix`: one workspace's objects (`<workspace id>/`); by default the whole bucket. */
export async function sweepFiles(
  db: Executor,
  env: Pick<Env, "FILES">,
  { graceMs = SWEEP_GRACE_MS, prefix = "" }: { graceMs?: number; prefix?: string } = {},
): Promise<SweepResult> {
  const before = new Date(Date.now() - graceMs);
  const result: SweepResult = { objectsRemoved: 0, recordsRemoved: 0 };
  let cursor: string | undefined;
  let after = prefix;
  for (;;) {
    const page = await env.FILES.list({ cursor, limit: 1000, prefix: prefix || undefined });
    const last = page.truncated ? page.objects.at(-1)?.key : undefined;
    cursor = page.truncated ? page.cursor : undefined;
    const records = await db
      .select({ id: attachments.id, key: attachments.objectKey, createdAt: attachments.createdAt })
      .from(attachments)
      .where(
        and(
          gt(attachments.objectKey, after),
          last === undefined ? undefined : lte(attachments.objectKey, last),
          prefix ? like(attachments.objectKey, `${prefix}%`) : undefined,
        ),
      )
      .orderBy(asc(attachments.objectKey));
    const recorded = new Set(records.map((r) => r.key));
    const objects = new Set(page.objects.map((o) => o.key));
    const strayKeys = page.objects.filter((o) => !recorded.has(o.key) && o.uploaded < before).map((o) => o.key);
    if (strayKeys.length > 0) {
      await env.FILES.delete(strayKeys);
      // Any outbox rows of them are done too.
      await db.delete(fileDeletions).where(inArray(fileDeletions.objectKey, strayKeys));
      result.objectsRemoved += strayKeys.length;
    }
    const hollow = records.filter((r) => !objects.has(r.key) && r.createdAt < before).map((r) => r.id);
    if (hollow.length > 0) {
      // Their attachment.deleted events say no one did it (no actor).
      const gone = await db.delete(attachments).where(inArray(attachments.id, hollow)).returning({ id: attachments.id });
      result.recordsRemoved += gone.length;
    }
    if (last === undefined) return result;
    after = last;
  }
}

/** The Cron Trigger of the sweep (wrangler.toml [triggers]): hourly, at minute 17. */
export const SWEEP_CRON = "17 * * * *";
