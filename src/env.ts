/** Bindings of the API worker and the queue consumer (wrangler.toml, workers/email/wrangler.toml, secrets). */
export interface Env {
  /** Postgres connection string (Neon in production; the embedded server locally). Secret. */
  DATABASE_URL: string;
  /** Dev/test only: host:port of the local WebSocket-to-TCP proxy. Absent in production. */
  DB_WS_PROXY?: string;
  /** Dev/test only: host:port of the local stand-in for Neon's SQL-over-HTTP endpoint (the driver's `fetchEndpoint`). Absent in production. */
  DB_HTTP_PROXY?: string;
  EMAIL_QUEUE: Queue<import("./core/email-messages").EmailMessage>;
  /** Webhook deliveries to send (docs/webhooks.md): the consumer worker POSTs each to its webhook's URL. */
  WEBHOOK_QUEUE: Queue<import("./core/webhook-messages").WebhookMessage>;
  /** Attachments' bytes (docs/api.md, "Attachments"). */
  FILES: R2Bucket;
  /** Stored bytes to remove (the file_deletions outbox); the consumer worker deletes them. */
  FILES_QUEUE: Queue<import("./core/file-messages").FileMessage>;
  /** Largest attachment in bytes (default 25 MiB; at most the platform's request-body limit). */
  MAX_ATTACHMENT_BYTES?: string;
  /** Bytes of attachments a workspace may store (default 1 GiB). */
  MAX_WORKSPACE_FILE_BYTES?: string;
  /**
   * "true" (local development and tests only): webhook URLs may be `http://127.0.0.1…`/`http://localhost…` and loopback
   * answers are allowed at delivery; POST/GET /_dev/webhooks (the built-in receiver) exist.
   */
  DEV_WEBHOOKS?: string;
  /** How long a receiver may take to answer a delivery, in milliseconds (default 10000). */
  WEBHOOK_TIMEOUT_MS?: string;
  /** The first retry's wait in seconds, doubled per failed attempt up to 12 h (default 30). */
  WEBHOOK_RETRY_BASE_SECONDS?: string;
  /** Attempts before a delivery is failed and its message goes to the dead-letter queue (default 14; max_retries + 1). */
  WEBHOOK_MAX_ATTEMPTS?: string;
  /** "true" keeps delivered mail in the dev mailbox and exposes GET /_dev/mailbox. */
  DEV_MAILBOX?: string;
  /**
   * Local development only (`npm start` passes it through from its own environment): the files sweep's grace in seconds
   * instead of an hour, so a test can repair a stop it just caused. Never set in production.
   */
  DEV_FILES_SWEEP_GRACE_SECONDS?: string;
  /** "true" exposes the benchmark ceiling and floor routes. Never set in production. */
  BENCH_ROUTES?: string;
  /** ES256 private key as a JWK JSON string (secret); its public half is served at /.well-known/jwks.json. */
  JWT_PRIVATE_JWK: string;
  JWT_ISSUER: string;
  JWT_AUDIENCE: string;
  /** HMAC key for list cursors (secret). */
  CURSOR_SECRET: string;
  /** Public base URL used in links inside emails and device-flow answers. */
  PUBLIC_BASE_URL?: string;
  /** Email delivery: "dev" (dev mailbox) or "http" (provider API). */
  EMAIL_PROVIDER?: string;
  EMAIL_API_URL?: string;
  EMAIL_API_KEY?: string;
  EMAIL_FROM?: string;
  /** One RateLimiter Durable Object per limited key (src/core/rate-limiter.ts). */
  RATE_LIMITER: DurableObjectNamespace<import("./core/rate-limiter").RateLimiter>;
  /** Requests per window per credential (API key, or a JWT's user and workspace). */
  RATE_LIMIT_CREDENTIAL: string;
  /** Requests per window per client IP on the public sign-up, login, invite-redeem and device endpoints. */
  RATE_LIMIT_IP: string;
  /** The fixed window, in seconds. */
  RATE_LIMIT_WINDOW_SECONDS: string;
  /**
   * OAuth clients an operator approved, by `client_id` (a metadata document's URL, or a registered id), separated by
   * spaces: a refusal of their authorization request before consent goes back to them with `error` (RFC 6749 §4.1.2.1).
   * Any other client is not verified (anyone may register one, or publish a metadata document): its refusal is a page,
   * so the service redirects nobody to a URI no one vouched for (RFC 9700 §4.11.2). Empty by default.
   */
  OAUTH_VERIFIED_CLIENTS?: string;
  /** OAuth client registrations (POST /oauth/register) per hour per client IP: each stores a client for good. */
  RATE_LIMIT_REGISTRATIONS: string;
}
