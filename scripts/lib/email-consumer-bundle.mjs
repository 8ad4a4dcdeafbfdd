// The queue consumer worker (src/queue/consumer.ts: email, webhook deliveries, deleted files) bundled into one ES
// module, for a Miniflare that runs it as its own worker (the Workers test project, test/smoke/email-delivery.test.mjs)
// as `npm start` and production do.
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "../..");

/** Bundles the consumer into `outfile` (keep it under the project root: workerd refuses module paths that climb out). */
export async function bundleEmailConsumer(outfile) {
  await build({
    entryPoints: [path.join(root, "src/queue/consumer.ts")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    outfile,
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    external: ["node:*", "cloudflare:*"],
    logLevel: "warning",
  });
  return outfile;
}
