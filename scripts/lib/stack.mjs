// The local stack: embedded PostgreSQL + WebSocket proxy + SQL-over-HTTP stand-in + `wrangler dev` running, in one process, the front Worker
// on the public port, the API worker behind it (reached only over the front's Service Binding, as in production) and
// the queue consumer (email, webhook deliveries, deleted files; local queues between them).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { devSecrets } from "./dev-keys.mjs";
import { startPostgres } from "./postgres.mjs";
import { startSqlOverHttp } from "./sql-over-http.mjs";
import { startWsProxy } from "./ws-proxy.mjs";

const root = path.resolve(import.meta.dirname, "../..");
const CONSUMER_DIR = "workers/email";
const FRONT_DIR = "workers/front";

export function wranglerEnv() {
  const configHome = path.join(root, ".wrangler", "config");
  mkdirSync(configHome, { recursive: true });
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    XDG_CONFIG_HOME: configHome,
    CI: process.env.CI ?? "",
    // Miniflare otherwise downloads a sample `Request.cf` from workers.cloudflare.com at start-up (offline: a warning with
    // a stack trace, per worker, after a wait of up to 3 s) and falls back to its built-in placeholder; nothing here reads cf.
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
  };
}

/**
 * The processes `pid` started, and the ones they started (`ps`, as on Linux and macOS): wrangler's launcher runs wrangler,
 * which runs esbuild and workerd. None of them ends with its parent.
 */
export function descendantsOf(pid) {
  const children = new Map();
  for (const line of execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" }).split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found = [];
  for (let next = children.get(pid) ?? []; next.length; next = next.flatMap((p) => children.get(p) ?? [])) found.push(...next);
  return found;
}

/** How much of a quiet wrangler's standard error is kept (its last characters). */
const STDERR_KEPT = 16_384;

async function waitForHttp(url, timeoutMs, child, signal, errors = () => "") {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler exited with code ${child.exitCode}${errors() && `:\n${errors()}`}`);
    if (signal?.aborted) throw new Error("stopped while starting");
    try {
      // Bounded: a port another process holds may accept and never answer; and a stop ends the wait at once.
      const bound = AbortSignal.timeout(2_000);
      const res = await fetch(url, { signal: signal ? AbortSignal.any([bound, signal]) : bound });
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`service did not answer at ${url} within ${timeoutMs} ms`);
}

/**
 * One line of a dotenv file that wrangler's parser gives back unchanged. Single quotes: dotenv keeps their
 * content literally, whereas inside double quotes it expands only `\n` and leaves `\"` as two characters, which
 * turned the JSON of JWT_PRIVATE_JWK into invalid JSON (GET /.well-known/jwks.json answered 500).
 */
export function dotenvLine(key, value) {
  const v = String(value);
  if (/['\r\n]/.test(v)) throw new Error(`${key}: a dev variable cannot hold a single quote or a line break`);
  return `${key}='${v}'`;
}

/**
 * A Worker's config and its .dev.vars under the stack's data dir, not beside its wrangler.toml: wrangler gives only the
 * first config of `wrangler dev -c … -c …` an --env-file, a second one reads the .dev.vars beside it, and a shared one
 * would let two stacks (npm start, the smoke test, the bench) hand each other's DATABASE_URL to their workers (and one
 * in the project root would leak into the test runner's bindings). `topLevel` adds top-level keys (dev-only settings).
 * Its paths (`main`, an `[assets]` directory) are made absolute, as the copy lives elsewhere.
 */
function workerConfig(data, name, toml, lines, topLevel = "") {
  const dir = path.join(data, name);
  mkdirSync(dir, { recursive: true });
  const source = readFileSync(path.join(root, toml), "utf8");
  const main = path.resolve(root, path.dirname(toml), /^main\s*=\s*"([^"]+)"/m.exec(source)[1]);
  const located = source
    .replace(/^main\s*=.*$/m, `main = ${JSON.stringify(main)}${topLevel}`)
    .replace(/^directory\s*=\s*"([^"]+)"/m, (_, d) => `directory = ${JSON.stringify(path.resolve(root, path.dirname(toml), d))}`);
  writeFileSync(path.join(dir, "wrangler.toml"), located);
  writeFileSync(path.join(dir, ".dev.vars"), lines, { mode: 0o600 });
  return path.join(dir, "wrangler.toml");
}

/**
 * @param {{ dataDir?: string, port?: number, pgPort?: number, benchRoutes?: boolean, rttMs?: number, originRttMs?: number, edgeMaxSeconds?: number, inspectorPort?: number, log?: (m: string) => void, quiet?: boolean, signal?: AbortSignal }} opts
 * `pgPort` 0 takes any free port; the default prefers 54329. `rttMs` puts the database that far away (the proxy
 * holds each message for half of it each way, the SQL-over-HTTP stand-in each request and answer); `originRttMs` puts the API Worker that far from the front Worker (each
 * forwarded call held that long). `edgeMaxSeconds` overrides the front's EDGE_CACHE_MAX_SECONDS. `inspectorPort`: where
 * wrangler's DevTools proxy listens (the bench reads the API Worker's heap there, scripts/bench/worker-heap.mjs; 0 any
 * free port, taken when it listens). `signal`: aborted while the Worker is not yet answering, the start stops what it
 * started and rejects (a Ctrl-C during the start, or a wrangler that keeps running after it could not listen).
 */
export async function startStack({
  dataDir = ".data",
  port = 8787,
  pgPort = 54329,
  benchRoutes = false,
  rttMs = 0,
  originRttMs = 0,
  edgeMaxSeconds,
  inspectorPort,
  log = console.log,
  quiet = false,
  signal,
} = {}) {
  const data = path.resolve(root, dataDir);
  const db = await startPostgres({ dataDir: path.join(data, "pg"), port: pgPort });
  log(`PostgreSQL ready at ${db.url.replace(/:[^:@]*@/, ":***@")}`);
  // PostgreSQL runs from here: a failure before `stop` exists below stops it.
  const proxy = await startWsProxy({ delayMs: rttMs / 2, log }).catch(async (err) => {
    await db.stop();
    throw err;
  });
  log(`WebSocket proxy at ${proxy.url}`);
  const sqlOverHttp = await startSqlOverHttp({ delayMs: rttMs / 2, log });
  log(`SQL-over-HTTP endpoint at ${sqlOverHttp.url}`);

  // Dev-only bindings of the API worker and the consumer, each in the .dev.vars beside its generated config.
  const vars = {
    ...devSecrets(data),
    DATABASE_URL: db.url,
    DB_WS_PROXY: `127.0.0.1:${proxy.port}`,
    DB_HTTP_PROXY: `127.0.0.1:${sqlOverHttp.port}`,
    DEV_MAILBOX: "true",
    // Webhooks may point at http://127.0.0.1…, e.g. the built-in receiver http://127.0.0.1:<port>/_dev/webhooks.
    DEV_WEBHOOKS: "true",
    EMAIL_PROVIDER: "dev",
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    BENCH_ROUTES: benchRoutes ? "true" : "false",
    // Generous local limits (production's are in wrangler.toml): suites and the bench from one machine never meet them.
    RATE_LIMIT_CREDENTIAL: "1000000",
    RATE_LIMIT_IP: "1000000",
    // The files sweep's grace (an hour unless set): a smoke test shortens it to repair a stop it caused.
    ...(process.env.DEV_FILES_SWEEP_GRACE_SECONDS ? { DEV_FILES_SWEEP_GRACE_SECONDS: process.env.DEV_FILES_SWEEP_GRACE_SECONDS } : {}),
  };
  const dotenv = (o) =>
    `${Object.entries(o)
      .map(([k, v]) => dotenvLine(k, v))
      .join("\n")}\n`;
  const lines = dotenv(vars);
  const apiToml = workerConfig(data, "api-worker", "wrangler.toml", lines);
  const consumerToml = workerConfig(data, "email-worker", path.join(CONSUMER_DIR, "wrangler.toml"), lines);
  // The front Worker goes first: the public port is the first config's. Its dev-only settings: the simulated distance,
  // and the flag that lets its scheduled handler reach the API's (wrangler dev's /__scheduled, which the launcher uses
  // to relay the email outbox, reaches the first Worker only; src/front/index.ts).
  // With the bench routes, a request may set its own distance (x-dev-origin-delay-ms): the bench's edge rows.
  const frontVars = { DEV_ORIGIN_DELAY_MS: String(originRttMs), DEV_ORIGIN_DELAY_HEADER: benchRoutes ? "true" : "false" };
  if (edgeMaxSeconds !== undefined) frontVars.EDGE_CACHE_MAX_SECONDS = String(edgeMaxSeconds);
  const frontToml = workerConfig(
    data,
    "front-worker",
    path.join(FRONT_DIR, "wrangler.toml"),
    dotenv(frontVars),
    '\ncompatibility_flags = ["service_binding_extra_handlers"]',
  );
  const envFile = path.join(data, "front-worker", ".dev.vars");

  const child = spawn(
    process.execPath,
    [
      path.join(root, "node_modules/wrangler/bin/wrangler.js"),
      "dev",
      "-c",
      frontToml,
      "-c",
      apiToml,
      "-c",
      consumerToml,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      path.join(data, "wrangler"),
      "--env-file",
      envFile,
      "--show-interactive-dev-session=false",
      // GET /__scheduled runs the Worker's scheduled handler (the email relay): wrangler dev fires no Cron Triggers.
      "--test-scheduled",
      "--log-level",
      quiet ? "error" : "info",
      ...(inspectorPort !== undefined ? ["--inspector-port", String(inspectorPort)] : []),
    ],
    { cwd: root, env: wranglerEnv(), stdio: ["ignore", quiet ? "ignore" : "inherit", quiet ? "pipe" : "inherit"] },
  );
  // A quiet stack still reads wrangler's errors: a pipe nobody reads fills (64 KB) and then blocks wrangler, and the
  // Workers behind it, on their next line (a bench stalled, then lost its stack, so). The last of them is kept for an
  // error to show.
  let errors = "";
  child.stderr?.on("data", (chunk) => {
    errors = (errors + chunk).slice(-STDERR_KEPT);
  });
  child.once("exit", (code, signal) => {
    errors += `\nwrangler exited (${code ?? signal})`;
  });
  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        // A wrangler that has not ended within 5 s is killed with what it started: killed alone, its launcher had left
        // wrangler, workerd and esbuild running, the port still taken (test/smoke/outage.test.mjs, the last test).
        const timer = setTimeout(() => {
          let started = [];
          try {
            started = descendantsOf(child.pid);
          } catch {} // without `ps`, the launcher at least, and the stop goes on to PostgreSQL
          for (const pid of [...started, child.pid]) {
            try {
              process.kill(pid, "SIGKILL");
            } catch {}
          }
        }, 5000);
        await exited;
        clearTimeout(timer);
      }
      await proxy.close();
      await sqlOverHttp.close();
      await db.stop();
    })());
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${baseUrl}/health`, 60_000, child, signal, () => errors);
  } catch (err) {
    await stop();
    throw err;
  }
  return { baseUrl, databaseUrl: db.url, stop, child, postgres: db, proxy, sqlOverHttp, errors: () => errors };
}
