import { openText, sealText } from "../core/crypto";
import type { EmailMessage } from "../core/email-messages";

// Outbox rows hold codes and invite tokens, which are never stored in plain text: sealed with a key of their own derived
// from CURSOR_SECRET, bound to the row id (a sealed message copied into another row does not open).
const PURPOSE = "email outbox";

export const sealMessage = (secret: string, message: EmailMessage): Promise<string> =>
  sealText(secret, PURPOSE, JSON.stringify(message), message.id);

export async function openMessage(secret: string, id: string, sealed: string): Promise<EmailMessage> {
  return JSON.parse(await openText(secret, PURPOSE, sealed, id)) as EmailMessage;
}
