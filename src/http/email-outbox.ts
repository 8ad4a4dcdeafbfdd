import type { RequestDb } from "../db/client";
import { EmailOutbox } from "../email/outbox";
import type { Env } from "../env";

/** The request's email outbox: the mails its writes store are relayed once the response is out (src/email/outbox.ts). */
export const emailOutbox = (c: { env: Env; get(key: "rdb"): RequestDb }) => new EmailOutbox(c.env, c.get("rdb"));
