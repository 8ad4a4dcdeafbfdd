import { neonConfig, Pool, type PoolClient } from "@neondatabase/serverless";
import { drizzle, type NeonDatabase } from "drizzle-orm/neon-serverless";
import { schema } from "../../drizzle/schema";
import type { Env } from "../env";

export type Db = NeonDatabase<typeof schema>;

/** Round trips made by one request, reported in Server-Timing and asserted by the tests. */
export interface DbStats {
  queries: number;
  /** Transactions opened (BEGIN statements); a write must be exactly one. */
  transactions: number;
  ms: number;
}

let configuredFor: string | undefined;
/**
 * Local driver settings, switched on only by the dev/test DB_WS_PROXY binding; production keeps Neon's defaults.
 * Only what the local stack lacks changes: its own proxy, and no TLS. Everything else stays Neon's default, above
 * all `pipelineConnect: "password"`, which sends the startup, the password and the first query without waiting
 * for the server (the local server asks for the password method, as Neon does), so locally a request takes the
 * same round trips as in production: 2 fewer on every connection (test/db-client.test.ts).
 */
export const LOCAL_DRIVER_SETTINGS = ["wsProxy", "useSecureWebSocket", "pipelineTLS"] as const;
function configureDriver(proxy: string | undefined) {
  if (!proxy || configuredFor === proxy) return;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  configuredFor = proxy;
}

// biome-ignore lint/suspicious/noExplicitAny: pg's query() has many overloads; the wrapper forwards them untouched.
type QueryFn = (...args: any[]) => any;
/** The extended-protocol messages of pg's connection that a pipelined transaction writes around a statement. */
interface PgConnection {
  parse(query: { text: string }): void;
  bind(config: object): void;
  execute(config: object): void;
  describe(config: { type: "P"; name: string }): void;
  sync(): void;
  query(text: string): void;
}
/** A pooled client: its query() and the connection it writes to. */
type PgClient = { query: QueryFn; connection: PgConnection };

/** Per request database: whether the next statement it runs goes out as a whole transaction (oneTransaction). */
const pipelineNext = new WeakMap<object, { next: boolean }>();

/**
 * Runs `query` (a Drizzle query on the request's database) as one transaction in ONE round trip: BEGIN, the
 * statement and COMMIT leave together, before one Sync, so its checks and writes commit or roll back as one, like
 * a transaction, without waiting between them. Inside an open transaction (`db` is a Tx) it is just the query.
 * The request's statements run one after another, so "the next one" is this one.
 */
export function oneTransaction<T>(db: Executor, query: () => PromiseLike<T>): Promise<T> {
  const state = pipelineNext.get(db);
  if (state) state.next = true;
  return Promise.resolve(query()).finally(() => {
    if (state) state.next = false;
  });
}

/** The extended-protocol messages of one parameterless statement (BEGIN, COMMIT, or a statement pg sent simply). */
function writeStatement(connection: PgConnection, text: string, describe = false) {
  connection.parse({ text });
  connection.bind({});
  if (describe) connection.describe({ type: "P", name: "" });
  connection.execute({});
}

/**
 * Wraps a pooled client: counts its round trips into `stats` and sends the statement oneTransaction marked as
 * BEGIN; statement; COMMIT. pg hands back one result per statement; the caller gets the statement's. If the
 * statement fails, the server skips to the Sync and leaves the transaction aborted: a ROLLBACK goes next, ahead
 * of anything else on the connection. (Wrapping client.query stays: pg has no query event, and Drizzle's logger
 * sees statements but not BEGIN/COMMIT.)
 */
function counted(target: PgClient, stats: DbStats, pipeline: { next: boolean }): PgClient {
  const original = target.query.bind(target);
  const connection = target.connection;
  let batchText: string | undefined;
  let inBatch = false;
  const { parse, query, sync } = connection;
  // The statement oneTransaction marked goes out between BEGIN and COMMIT, whichever protocol pg picks for it.
  const opening = (text: string) => {
    if (text !== batchText) return false;
    batchText = undefined;
    inBatch = true;
    writeStatement(connection, "begin");
    return true;
  };
  connection.parse = function (this: PgConnection, q) {
    opening(q.text);
    parse.call(this, q);
  };
  connection.query = function (this: PgConnection, text) {
    if (!opening(text)) return query.call(this, text);
    writeStatement(this, text, true);
    this.sync();
  };
  connection.sync = function (this: PgConnection) {
    if (inBatch) {
      inBatch = false;
      writeStatement(this, "commit");
    }
    sync.call(this);
  };

  // biome-ignore lint/suspicious/noExplicitAny: see QueryFn.
  target.query = ((...args: any[]) => {
    const started = performance.now();
    stats.queries++;
    const text = typeof args[0] === "string" ? args[0] : args[0]?.text;
    const pipelined = pipeline.next && typeof text === "string";
    const settled = () => {
      stats.ms += performance.now() - started;
      // A batch that never went out (the client failed first) must not wrap a later statement of the same text.
      if (pipelined && batchText === text) batchText = undefined;
    };
    if (pipelined) {
      pipeline.next = false;
      batchText = text;
      stats.transactions++;
    } else if (typeof text === "string" && /^\s*begin\b/i.test(text)) stats.transactions++;
    // BEGIN, the statement, COMMIT: three results; the caller asked for the statement's.
    const own = (result: unknown) => (pipelined && Array.isArray(result) ? result[1] : result);
    const failed = () => pipelined && void target.query("rollback").catch(() => {});
    // pg-pool calls client.query with a callback; drizzle's transactions use the promise form.
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const callback = args[last];
      args[last] = (err: unknown, result: unknown) => {
        settled();
        if (err) failed();
        return callback(err, own(result));
      };
      return original(...args);
    }
    const result = original(...args);
    if (!result || typeof result.then !== "function") return result;
    return result
      .then(own, (err: unknown) => {
        failed();
        throw err;
      })
      .finally(settled);
  }) as QueryFn;
  return target;
}

/**
 * One connection pool per request (a client reused across requests fails in Workers), opened on first use
 * and ended after the response through waitUntil.
 */
export class RequestDb {
  readonly stats: DbStats = { queries: 0, transactions: 0, ms: 0 };
  #pool?: Pool;
  #db?: Db;

  constructor(private readonly env: Pick<Env, "DATABASE_URL" | "DB_WS_PROXY">) {}

  get db(): Db {
    if (!this.#db) {
      configureDriver(this.env.DB_WS_PROXY);
      const pool = new Pool({ connectionString: this.env.DATABASE_URL, max: 4 });
      // A dropped connection fails the query that used it (mapped to 503); the pool's own event is only logged.
      pool.on("error", (err: Error) => console.error("database pool error", err.message));
      const pipeline = { next: false };
      // Count at the connection: pool.query and transactions both end in client.query, once each.
      pool.on("connect", (client: PoolClient) => void counted(client as unknown as PgClient, this.stats, pipeline));
      this.#pool = pool;
      this.#db = drizzle({ client: this.#pool, schema });
      pipelineNext.set(this.#db, pipeline);
    }
    return this.#db;
  }

  #deferred: Array<(db: Db) => Promise<unknown>> = [];
  /** Work that must not delay the response (e.g. lastUsedAt); it runs after it, before the pool closes. */
  defer(work: (db: Db) => Promise<unknown>): void {
    this.#deferred.push(work);
  }

  /** Runs deferred work, then ends the pool; called through waitUntil once the response is out. */
  async close(): Promise<void> {
    for (const work of this.#deferred.splice(0)) await work(this.db).catch((e) => console.error("deferred work failed", e));
    const pool = this.#pool;
    this.#pool = undefined;
    this.#db = undefined;
    if (pool) await pool.end().catch(() => {});
  }
}

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything that runs queries: the request's database or an open transaction. */
export type Executor = Db | Tx;

/**
 * The workspace a query is scoped to: its id, or (for reads that authenticate inside their own query) the
 * credential's workspace as a scalar subquery, which is null and matches nothing for a bad credential.
 */
export type WorkspaceScope = string | import("drizzle-orm").SQL<string>;
