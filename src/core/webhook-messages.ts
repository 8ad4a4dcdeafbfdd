/**
 * What the API puts on the webhook queue: the delivery to send, and how many attempts it had when relayed. The consumer
 * sends only when the delivery still has `attempt + message.attempts - 1` attempts, so two copies of one message (or a
 * relay's resend racing the queue's retry) cannot both send (src/webhooks/consumer.ts).
 */
export interface WebhookMessage {
  deliveryId: string;
  attempt: number;
}
