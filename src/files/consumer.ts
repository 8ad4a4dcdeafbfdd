// The files queue's consumer (in the queue-consumer worker): removes the objects of deleted attachments.
import type { FileMessage } from "../core/file-messages";
import { withOwnDb } from "../db/client";
import type { Env } from "../env";
import { removeObjects } from "./deletions";

export async function consumeFileDeletions(batch: MessageBatch<FileMessage>, env: Env): Promise<void> {
  try {
    await withOwnDb(env, (db) => removeObjects(db, env, [...new Set(batch.messages.map((m) => m.body.key))]));
    batch.ackAll();
  } catch (err) {
    console.error("removing stored files failed; retried", err);
    batch.retryAll({ delaySeconds: 30 });
  }
}
