import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import FileOrder from "./test/file-order";

// The smoke files that need a running `npm start` and nothing of their own: they share one (test/smoke/lib/stack.mjs,
// sharedStack()). The others restart theirs, set it up otherwise, or need none.
const sharedStackFiles = [
  "account",
  "agent-worker",
  "cli",
  "cli-daily",
  "cli-workspaces",
  "cli-sync",
  "cli-worklog",
  "docs-page",
  "generated-clients",
  "mcp-inspector",
  "oauth-device-client",
  "readme-least-privilege",
  "walkthrough",
].map((name) => `test/smoke/${name}.test.mjs`);
const smoke = { environment: "node", testTimeout: 60_000, hookTimeout: 150_000 } as const;
/** How many Workers runtimes the pool has started (each takes the next server). */
let runtimes = 0;

export default defineConfig({
  test: {
    // Three files at a time on 2 cores (vitest's default there is one): a file mostly waits on a server or a child
    // process, and two at a time kept 1.4 cores busy. Workers files run side by side when their runtimes are bound to
    // different PostgreSQL servers (test/global-setup.ts makes one per slot; test/helpers/file-lock.mjs); docs/testing.md.
    maxWorkers: 3,
    // Longest first, the Workers files in one block (test/file-order.ts).
    sequence: { sequencer: FileOrder },
    // `npm run test:changed` (scripts/test-changed.mjs) reruns everything for a change the module graph cannot see: the
    // migrations and SQL functions the run's set-up applies (and vitest's own defaults).
    forceRerunTriggers: ["**/package.json/**", "**/{vitest,vite}.config.*/**", "**/migrations/**"],
    projects: [
      {
        // 30 s as the workers project: fast-check properties of 500 runs took 5.6 s (vitest's default budget: 5 s) beside
        // the linters on a loaded machine.
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node", testTimeout: 30_000 },
      },
      {
        // Boots the real `npm start` as a child process and drives it over HTTP (test/smoke/*.test.mjs: Node code,
        // outside the TypeScript program, which has no Node types).
        test: { name: "smoke", include: ["test/smoke/**/*.test.mjs"], exclude: sharedStackFiles, ...smoke },
      },
      {
        // The same, on one `npm start` booted as the run starts (test/smoke/lib/shared-stack-setup.mjs).
        test: { name: "smoke-shared", include: sharedStackFiles, globalSetup: ["./test/smoke/lib/shared-stack-setup.mjs"], ...smoke },
      },
      {
        plugins: [
          // Options resolve when the pool starts, after test/global-setup.ts has started Postgres and the proxy.
          // Called for each runtime the pool starts: each is bound to the next of the run's servers (test/global-setup.ts)
          // and takes that server's file lock, so files on different servers run side by side.
          cloudflareTest(async ({ inject }) => {
            const stack = inject("stack");
            const server = runtimes++ % stack.databaseUrls.length;
            const dbBindings = {
              DATABASE_URL: stack.databaseUrls[server],
              DB_WS_PROXY: stack.proxy,
              DB_HTTP_PROXY: stack.httpProxy,
              DEV_MAILBOX: "true",
              EMAIL_PROVIDER: "dev",
              // Webhooks (docs/webhooks.md): loopback receivers allowed; a 1 s timeout and retries within seconds.
              DEV_WEBHOOKS: "true",
              WEBHOOK_TIMEOUT_MS: "1000",
              WEBHOOK_RETRY_BASE_SECONDS: "1",
              WEBHOOK_MAX_ATTEMPTS: "4",
              CURSOR_SECRET: "test-cursor-secret",
            };
            return {
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: {
                bindings: {
                  ...dbBindings,
                  JWT_PRIVATE_JWK: stack.jwk,
                  WEBHOOK_RECEIVER: stack.webhookReceiver,
                  FILE_LOCK: `${stack.fileLock}/${server}`,
                  BENCH_ROUTES: "true",
                  PUBLIC_BASE_URL: "http://api.test",
                  // Generous, so no other test meets them; test/rate-limit.test.ts lowers them per request.
                  RATE_LIMIT_CREDENTIAL: "1000000",
                  RATE_LIMIT_IP: "1000000",
                  RATE_LIMIT_REGISTRATIONS: "1000000",
                },
                // The email (and webhook) consumer runs as its own worker, as in `npm start` and production.
                workers: [
                  {
                    name: "pm-email",
                    modules: true,
                    scriptPath: stack.consumerScript,
                    compatibilityDate: "2026-04-20",
                    compatibilityFlags: ["nodejs_compat"],
                    bindings: dbBindings,
                    queueProducers: { EMAIL_QUEUE: "pm-email" },
                    // The same bucket as the API worker's (wrangler.toml): the consumer removes deleted attachments' bytes.
                    r2Buckets: { FILES: "pm-files" },
                    // WEBHOOK_MAX_ATTEMPTS = maxRetries + 1: the last attempt's message goes to the dead-letter queue.
                    queueConsumers: {
                      "pm-email": { maxBatchTimeout: 0.2, maxRetries: 3 },
                      "pm-webhooks": { maxBatchTimeout: 0.2, maxRetries: 3, deadLetterQueue: "pm-webhooks-dlq" },
                      "pm-files": { maxBatchTimeout: 0.2, maxRetries: 3 },
                    },
                  },
                ],
              },
            };
          }),
        ],
        test: {
          name: "workers",
          // Middleware keeps its test beside it (src/middleware/<name>/<name>.test.ts), as Hono's own middleware does.
          include: ["test/**/*.test.ts", "src/**/*.test.ts"],
          exclude: ["test/unit/**"],
          globalSetup: ["./test/global-setup.ts"],
          // One workerd for every file instead of one each: each file already makes its own tenants in the one shared
          // PostgreSQL, and the per-file start (workerd, the worker's modules, the consumer worker) was half the run:
          // the project took 370 s instead of about 700 s on 2 cores. With two slots, two workerd runtimes (each kept
          // for the files after it), each on a PostgreSQL server of its own (test/helpers/file-lock.mjs says why).
          isolate: false,
          setupFiles: ["./test/helpers/file-lock-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
