// The test worker's `env` carries the API worker's bindings.
declare namespace Cloudflare {
  interface Env extends Omit<import("../src/env").Env, never> {
    /** Base URL of the test webhook receiver (test/helpers/webhook-receiver.mjs). */
    WEBHOOK_RECEIVER: string;
    /** Base URL of the lock that runs one Workers test file at a time (test/helpers/file-lock.mjs). */
    FILE_LOCK: string;
  }
}

// A file's text, imported with Vite's `?raw` suffix (docs the tests hold to the truth).
declare module "*?raw" {
  const text: string;
  export default text;
}
