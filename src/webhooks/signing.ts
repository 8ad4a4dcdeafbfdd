// Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-signature` is `v1,<base64 HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>">`, keyed by the base64-decoded part of the `whsec_…` secret; while a rotated-out
// secret still signs, one space-separated `v1,…` entry per secret. Secrets are stored sealed (AES-GCM, bound to the webhook).
import { decodeBase64, encodeBase64 } from "hono/utils/encode";
import { openText, sealText } from "../core/crypto";

const PREFIX = "whsec_";
const PURPOSE = "webhook secret";

/** A new signing secret: `whsec_` and 24 random bytes in base64, as the Standard Webhooks libraries make them. */
export const newWebhookSecret = (): string => PREFIX + encodeBase64(crypto.getRandomValues(new Uint8Array(24)).buffer);

export const sealSecret = (key: string, webhookId: string, secret: string) => sealText(key, PURPOSE, secret, webhookId);
export const openSecret = (key: string, webhookId: string, sealed: string) => openText(key, PURPOSE, sealed, webhookId);

const encoder = new TextEncoder();

/** `v1,<signature>` per secret (the current one first), space-separated. */
export async function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): Promise<string> {
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  const entries = await Promise.all(
    secrets.map(async (secret) => {
      const raw = decodeBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
      const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      return `v1,${encodeBase64(await crypto.subtle.sign("HMAC", key, signed))}`;
    }),
  );
  return entries.join(" ");
}
