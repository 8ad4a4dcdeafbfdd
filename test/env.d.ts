// The test worker's `env` carries the API worker's bindings.
declare namespace Cloudflare {
  interface Env extends Omit<import("../src/env").Env, never> {
    /** Base URL of the test webhook receiver (test/helpers/webhook-receiver.mjs). */
    WEBHOOK_RECEIVER: string;
  }
}
