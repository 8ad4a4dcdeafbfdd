import { inArray, sql } from "drizzle-orm";
import { emailOutbox } from "../../drizzle/schema";
import type { EmailMessage } from "../core/email-messages";
import type { Executor, RequestDb } from "../db/client";
import { newId } from "../ids";
import { RESEND_AFTER_SECONDS, type RelayEnv, relayEmails } from "./relay";
import { sealMessage } from "./sealed-message";

/** An email before the outbox gives it its id. */
type Unsent = EmailMessage extends infer M ? (M extends EmailMessage ? Omit<M, "id"> : never) : never;

/**
 * How a request sends email: never inside the request. The write that causes a mail stores it in the outbox in the same
 * statement, so the mail commits with the write or not at all; after the response the relay sends what committed.
 */
export class EmailOutbox {
  constructor(
    private readonly env: RelayEnv,
    private readonly rdb: Pick<RequestDb, "defer">,
  ) {}

  /**
   * A CTE that inserts `message` (sealed) into the outbox, for the statement of the write that causes it:
   * `db.with(await outbox.add(db, …)).insert(…)`. `expiresAt`: when the code or invite it carries expires. Once the
   * response is out the relay sends it, if that write committed; should that send fail or never happen, the relay's
   * cron sends it later.
   */
  async add(db: Executor, message: Unsent, expiresAt: Date) {
    const id = newId("mail");
    const sealedMessage = await sealMessage(this.env.CURSOR_SECRET, { ...message, id } as EmailMessage);
    this.rdb.defer((after) => relayEmails(after, this.env, { ids: [id] }));
    return db.$with("outbox_mail").as(
      db.insert(emailOutbox).values({
        id,
        sealedMessage,
        expiresAt,
        relayAfter: sql`now() + make_interval(secs => ${RESEND_AFTER_SECONDS})`,
      }),
    );
  }
}

/** The consumer's receipt: delivered mails leave the outbox (and their sealed codes or tokens with them). */
export async function emailDelivered(db: Executor, ids: string[]): Promise<void> {
  await db.delete(emailOutbox).where(inArray(emailOutbox.id, ids));
}
