import { neon, neonConfig, Pool, type PoolClient } from "@neondatabase/serverless";
import {
  createTableRelationsHelpers,
  type ExtractTablesWithRelations,
  extractTablesRelationalConfig,
  is,
  type SQL,
  sql,
} from "drizzle-orm";
import { NeonHttpDatabase, NeonHttpDriver } from "drizzle-orm/neon-http";
import { NeonDatabase, NeonDriver } from "drizzle-orm/neon-serverless";
import { PgTransaction, type PgTransactionConfig } from "drizzle-orm/pg-core";
import { schema } from "../../drizzle/schema";
import { errorSummary } from "../core/error-chain";
import type { Env } from "../env";
import { sqlDialect as dialect } from "./dialect";
import { type EventContext, withContext } from "./event-context";
import { type PositionRow, positionSelect } from "./position";

export type Db = NeonDatabase<typeof schema>;

/** Round trips made by one request, reported in Server-Timing and asserted by the tests. */
export interface DbStats {
  queries: number;
  /** Transactions opened (BEGIN statements); a write must be exactly one. */
  transactions: number;
  ms: number;
}

/**
 * Bounds on waiting for PostgreSQL, so an unreachable or hung database is a 503 within 5 s, never a hung request
 * (test/smoke/outage.test.mjs; each bound has its case there, which hung without it). Opening the WebSocket may take
 * this long (a Neon compute waking from scale-to-zero takes well under it); past it the pool destroys the socket.
 * It is what ends a wait on a proxy that accepts TCP and never answers the upgrade.
 */
export const CONNECT_TIMEOUT_MS = 5000;
/**
 * Each statement's answer may take this long (client side, pg's `query_timeout`). This is the bound that holds on the
 * WebSocket path: with the pipelined connect the client counts as connected once the socket is open, so a server that
 * accepts and never answers (the outage test stops its postmaster) is cut only by this; without it the request hung.
 * The API's statements take milliseconds. The server's `statement_timeout` cannot be a startup parameter (Neon's pooled
 * endpoint refuses it): SERVER_TIMEOUT_MS sets it per transaction.
 */
export const QUERY_TIMEOUT_MS = 5000;

/**
 * The server's own bound on a write, shorter than the client's (QUERY_TIMEOUT_MS), so a write the client gives up on has
 * been cancelled and rolled back by the server first: a 503 means nothing was written (docs/security.md). The
 * second between them is for the answer's way back. A transaction gets `statement_timeout` in its BEGIN's round trip
 * (counted, below); a one-statement write gets `lock_timeout` in its own statement (statementBound), the only setting
 * that still applies to the statement that sets it (a lock wait reads it when it begins; statement_timeout is armed
 * before the statement runs), and what makes a write wait that long: a row lock, e.g. a team's counter under concurrent
 * creates.
 */
export const SERVER_TIMEOUT_MS = QUERY_TIMEOUT_MS - 1000;

/** A condition (always true) that bounds the statement's lock waits by SERVER_TIMEOUT_MS; evaluated before it writes, as an InitPlan. */
export const statementBound: SQL = sql`(select set_config('lock_timeout', ${sql.raw(`'${SERVER_TIMEOUT_MS}'`)}, true) is not null)`;

/**
 * A transaction's BEGIN with its server bound (a second under the client's, `queryMs`), in the same simple-protocol
 * query (no extra round trip).
 */
const boundedBegin = (begin: string, queryMs: number) => `${begin}; set local statement_timeout = ${queryMs - 1000}`;

type DriverEnv = Pick<Env, "DATABASE_URL" | "DB_WS_PROXY" | "DB_HTTP_PROXY">;

let configuredFor: string | undefined;
/**
 * Local driver settings, switched on only by the dev/test bindings DB_WS_PROXY and DB_HTTP_PROXY; production keeps
 * Neon's defaults. Only what the local stack lacks changes: its own WebSocket proxy and SQL-over-HTTP endpoint
 * (scripts/lib/ws-proxy.mjs, scripts/lib/sql-over-http.mjs), and no TLS. Everything else stays Neon's default, above
 * all `pipelineConnect: "password"`, which sends the startup, the password and the first query without waiting
 * for the server (the local server asks for the password method, as Neon does), so locally a request takes the
 * same round trips as in production: 2 fewer on every connection (test/db-client.test.ts).
 */
export const LOCAL_DRIVER_SETTINGS = ["wsProxy", "useSecureWebSocket", "pipelineTLS", "fetchEndpoint"] as const;
function configureDriver({ DB_WS_PROXY: proxy, DB_HTTP_PROXY: endpoint }: DriverEnv) {
  const key = `${proxy} ${endpoint}`;
  if (!proxy || configuredFor === key) return;
  neonConfig.wsProxy = (host, port) => `${proxy}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  if (endpoint) neonConfig.fetchEndpoint = `http://${endpoint}/sql`;
  configuredFor = key;
}

/**
 * Whether one-shot statements take the HTTP query: always in production (Neon's own endpoint); locally only where
 * the stand-in is bound (DB_HTTP_PROXY), since without it the driver would look for Neon's endpoint beside the
 * local proxy's database host.
 */
const httpAvailable = (env: DriverEnv) => env.DB_HTTP_PROXY !== undefined || env.DB_WS_PROXY === undefined;

/**
 * The HTTP query's bound on waiting (`ms`: QUERY_TIMEOUT_MS, as the WebSocket's `query_timeout`): the driver spreads
 * its fetch options into every fetch, so this getter gives each query a fresh signal (one per request would also cut a
 * long run of quick ones).
 */
const boundedFetch = (ms: number): RequestInit => ({
  get signal() {
    return AbortSignal.timeout(ms);
  },
});

// biome-ignore lint/suspicious/noExplicitAny: pg's query() has many overloads; the wrapper forwards them untouched.
type QueryFn = (...args: any[]) => any;
// Wrapping client.query stays: pg (and the Neon driver) has no query event, and Drizzle's logger sees statements but not BEGIN/COMMIT.
// A BEGIN also sets the server's bound (SERVER_TIMEOUT_MS) and the request's event context (event-context.ts), in the
// same round trip.
/** Whether the transaction open on a connection writes (its BEGIN was not READ ONLY): its COMMIT reads its position. */
const writingTransaction = new WeakMap<object, boolean>();
function counted<T extends { query: QueryFn }>(target: T, stats: DbStats, request: RequestDb): T {
  const original = target.query.bind(target);
  // biome-ignore lint/suspicious/noExplicitAny: see QueryFn.
  target.query = ((...args: any[]) => {
    const started = performance.now();
    const done = () => (stats.ms += performance.now() - started);
    stats.queries++;
    const text = typeof args[0] === "string" ? args[0] : args[0]?.text;
    let positioned = false;
    if (typeof text === "string" && /^\s*begin\b/i.test(text)) {
      stats.transactions++;
      // A read-only transaction (a streamed export's snapshot) writes nothing: no event context, no webhooks to relay.
      const readOnly = /\bread only\b/i.test(text);
      const ctx = readOnly ? undefined : request.writing();
      writingTransaction.set(target, !readOnly);
      const begin = boundedBegin(ctx ? withContext(text, ctx) : text, request.bounds.query);
      args[0] = typeof args[0] === "string" ? begin : { ...args[0], text: begin };
    } else if (typeof text === "string" && /^\s*commit\b/i.test(text) && writingTransaction.get(target)) {
      // The write's position (PM-Position: src/db/position.ts), read just before it commits, in the COMMIT's round trip.
      const commit = `${request.positionText()}; ${text}`;
      args[0] = typeof args[0] === "string" ? commit : { ...args[0], text: commit };
      positioned = true;
    }
    // On a connection that is open: once a write has begun, whatever goes out may commit it (src/db/settle.ts).
    if (request.wrote) request.sent = true;
    // pg-pool calls client.query with a callback; drizzle's transactions use the promise form.
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const callback = args[last];
      args[last] = (...cbArgs: unknown[]) => {
        done();
        return callback(...cbArgs);
      };
      return original(...args);
    }
    const result = original(...args);
    if (!(result && typeof result.then === "function")) return result;
    // Two statements answer an array of results: the first is the position's row.
    if (positioned)
      result.then(
        (r: unknown) => request.positioned(Array.isArray(r) ? r[0] : undefined),
        () => {},
      );
    return result.finally(done);
  }) as T["query"];
  return target;
}

type RelationalSchema = NonNullable<ConstructorParameters<typeof NeonDatabase<typeof schema>>[2]>;
/**
 * The schema's relational config (every table's relations), derived once per isolate instead of on every call, as
 * `drizzle({ client, schema })` would: each request builds its own databases, and deriving it was a tenth of a write's
 * JavaScript in the API Worker's CPU profile (docs/performance.md, profiles). Derived as the Worker loads: every request
 * that reads the database needs it, and made in the first one it cost about 2 ms of that request (docs/performance.md,
 * "Cold start").
 */
const relational: RelationalSchema = (() => {
  const config = extractTablesRelationalConfig<ExtractTablesWithRelations<typeof schema>>(schema, createTableRelationsHelpers);
  return { fullSchema: schema, schema: config.tables, tableNamesMap: config.tableNamesMap };
})();

/** A Drizzle database over `pool` (the WebSocket path), as `drizzle({ client: pool, schema })` builds it. */
function databaseOver(pool: Pool): Db {
  const db = new NeonDatabase<typeof schema>(dialect, new NeonDriver(pool, dialect).createSession(relational), relational);
  return Object.assign(db, { $client: pool });
}

type HttpClient = ReturnType<typeof neon>;
/**
 * A Drizzle database whose statements go over the HTTP query (drizzle-orm's neon-http, the same SQL), each counted as
 * one query in `stats`, and whose `transaction()` is `interactive`'s: HTTP has no interactive transaction. Drizzle's
 * neon-http and neon-serverless databases are both PgDatabases and differ only in `execute`'s result type (`rows`
 * either way), so it stands in for `Db`.
 */
function httpDatabase(http: HttpClient, request: RequestDb, interactive: () => Db): Db {
  const client = {
    query: (...args: Parameters<HttpClient["query"]>) => request.overHttp(() => http.query(...args)),
  } as unknown as HttpClient;
  const db = new NeonHttpDatabase<typeof schema>(dialect, new NeonHttpDriver(client, dialect).createSession(relational), relational);
  return Object.assign(db, {
    $client: client,
    transaction: ((work, config) => interactive().transaction(work, config)) as Db["transaction"],
  }) as unknown as Db;
}

type Rows = Record<string, unknown>[];

/**
 * `statements` as one transaction with no decision between them (a lock, then the statement that must see what the
 * lock waited for), each one's rows, where they cannot go in one HTTP request (RequestDb.executeWrite): inside an open
 * transaction they run in it; on the WebSocket path (the bench's WebSocket tables) in a transaction of their own.
 */
async function atOnce(db: Executor, statements: SQL[], config?: PgTransactionConfig): Promise<Rows[]> {
  const run = async (tx: Executor) => {
    const rows: Rows[] = [];
    for (const statement of statements) rows.push((await tx.execute<Record<string, unknown>>(statement)).rows);
    return rows;
  };
  return is(db, PgTransaction) ? run(db) : db.transaction(run, config);
}

/**
 * A request's database. A one-shot statement (almost every request's whole work) goes over Neon's HTTP query: one
 * `fetch` over a connection the runtime keeps, one round trip, a backend Neon keeps warm. An interactive transaction
 * (`transaction()`, `inTransaction`: statements decided on the previous one's answer) goes over a WebSocket: one
 * connection pool per request (a client reused across requests fails in Workers), opened on first use and ended
 * after the response through waitUntil.
 */
export class RequestDb {
  readonly stats: DbStats = { queries: 0, transactions: 0, ms: 0 };
  /** Who this request's writes are by: the events of its changes carry it (set once the caller is known). */
  eventContext: EventContext | undefined;
  /** Whether anything of this request wrote (a transaction began or a guarded write ran). */
  wrote = false;
  /**
   * Whether its writes queued webhook deliveries: "unknown" from a write's start until its position read says
   * (pm_queued, src/db/position.ts), "queued" once one did. A write whose position was not read stays unknown.
   */
  #deliveries: "none" | "unknown" | "queued" = "none";
  /**
   * Whether a statement went out on an open connection once a write had begun: until then a failure left nothing
   * written; from then on its outcome must be settled (src/db/settle.ts).
   */
  sent = false;
  /** The position of the request's last committed write (PM-Position, src/db/position.ts), once it is known. */
  position: string | undefined;
  /** The workspace the request writes in (SQL reading it from the credential, or its id): a write without events takes its latest event. */
  writesIn: SQL | string | undefined;
  /** When the request began (ms since the epoch): its events are looked for from then on. */
  readonly startedAt = Date.now();
  #pool?: Pool;
  #httpClient?: HttpClient;
  #db?: Db;
  #socketDb?: Db;
  #scope?: Tx;
  readonly #http: boolean;

  readonly bounds: { connect: number; query: number };

  /**
   * `http: false` sends every statement over the WebSocket (the bench's WebSocket tables); `bounds` are the waits on
   * connecting and on each statement's answer (a settling connection's are shorter: src/db/settle.ts).
   */
  constructor(
    private readonly env: DriverEnv,
    {
      http = true,
      bounds = { connect: CONNECT_TIMEOUT_MS, query: QUERY_TIMEOUT_MS },
    }: { http?: boolean; bounds?: { connect: number; query: number } } = {},
  ) {
    this.#http = http && httpAvailable(env);
    this.bounds = bounds;
  }

  get db(): Db {
    // Inside inTransaction every query of the request runs in that transaction (a handler's own transactions nest as savepoints).
    if (this.#scope) return this.#scope as unknown as Db;
    if (!this.#db) {
      configureDriver(this.env);
      if (this.#http) {
        this.#httpClient = neon(this.env.DATABASE_URL, { fetchOptions: boundedFetch(this.bounds.query) });
        this.#db = httpDatabase(this.#httpClient, this, () => this.#socket());
      } else this.#db = this.#socket();
    }
    return this.#db;
  }

  /** The WebSocket path: a pool of this request's own, for interactive transactions. */
  #socket(): Db {
    if (!this.#socketDb) {
      const pool = new Pool({
        connectionString: this.env.DATABASE_URL,
        max: 4,
        connectionTimeoutMillis: this.bounds.connect,
        query_timeout: this.bounds.query,
      });
      // A dropped connection fails the query that used it (mapped to 503); the pool's own event is only logged.
      pool.on("error", (err: Error) => console.error("database pool error", err.message));
      // Count at the connection: pool.query and transactions both end in client.query, once each.
      pool.on("connect", (client: PoolClient) => {
        counted(client, this.stats, this);
        // A connection lost between a transaction's statements fails its next one (and so the request, settled by
        // src/http/settled-write.ts); unheard, the client's own error event would be an uncaught exception.
        client.on("error", (err: Error) => console.error("database connection error", err.message));
      });
      this.#pool = pool;
      this.#socketDb = databaseOver(pool);
    }
    return this.#socketDb;
  }

  /**
   * Runs `work` with the whole request's database (`db`) inside one transaction, for request-wide rules that must be
   * atomic with whatever the handler writes (Idempotency-Key records, If-Match checks): committed when `work`
   * resolves, rolled back when it throws.
   */
  async inTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    if (this.#scope) return work(this.#scope);
    return this.db.transaction(async (tx) => {
      this.#scope = tx;
      try {
        return await work(tx);
      } finally {
        this.#scope = undefined;
      }
    });
  }

  /** A write starts (a transaction, or a statement that writes): the event context it sets. */
  writing(): EventContext | undefined {
    this.wrote = true;
    if (this.#deliveries === "none") this.#deliveries = "unknown";
    return this.eventContext;
  }

  /** One round trip over HTTP, counted; once a write has begun, what goes out may commit even if its answer is lost (outcome.ts). */
  async overHttp<R>(send: () => Promise<R>): Promise<R> {
    const started = performance.now();
    this.stats.queries++;
    // A one-shot statement commits on its own, before the endpoint answers.
    if (this.wrote) this.sent = true;
    try {
      return await send();
    } finally {
      this.stats.ms += performance.now() - started;
    }
  }

  /** The position query as one inlined statement (a COMMIT's simple-protocol query takes no parameters). */
  positionText(): string {
    return dialect.sqlToQuery(positionSelect(this.writesIn).inlineParams()).sql;
  }

  /** The position row a write read (undefined: none read). */
  positioned(result: { rows?: PositionRow[] } | undefined): void {
    const row = result?.rows?.[0];
    if (row?.pm_position) this.position = row.pm_position;
    if (row?.pm_queued === true) this.#deliveries = "queued";
    else if (row?.pm_queued === false && this.#deliveries === "unknown") this.#deliveries = "none";
  }

  /** Whether the request's writes may have queued webhook deliveries (the relay after its response is for them). */
  get queuedDeliveries(): boolean {
    return this.#deliveries !== "none";
  }

  /**
   * A statement that writes (after the statements before it, sent with it with no decision between them), and the
   * write's position (src/db/position.ts) in the same round trip: over HTTP all of them as one HTTP transaction (one
   * fetch); inside an open transaction (or on the WebSocket) the statements alone, whose transaction's COMMIT reads the
   * position. The last statement's rows.
   */
  async executeWrite<R extends Record<string, unknown>>(statements: SQL[]): Promise<{ rows: R[] }> {
    const db = this.db; // made first: it opens the HTTP client
    if (statements.length === 1 && (this.#scope || !this.#httpClient)) return (await db.execute<R>(statements[0])) as { rows: R[] };
    return { rows: (await this.executeWrites(statements)).at(-1) as R[] };
  }

  /** As executeWrite, in the same one round trip: every statement's rows (a write, then a read of what its triggers wrote). */
  async executeWrites(statements: SQL[]): Promise<Rows[]> {
    const db = this.db; // made first: it opens the HTTP client
    const http = this.#httpClient;
    if (this.#scope || !http) return atOnce(db, statements);
    const results = await this.#sentAtOnce(http, statements, [positionSelect(this.writesIn)]);
    this.positioned({ rows: results.at(-1) as PositionRow[] });
    return results.slice(0, -1);
  }

  /**
   * `statements` read from one snapshot (REPEATABLE READ, read only) in one round trip over the HTTP query; inside an
   * open transaction they run in it, and on the WebSocket path in a transaction of their own. Every statement's rows.
   */
  async readTogether(statements: SQL[]): Promise<Rows[]> {
    const db = this.db; // made first: it opens the HTTP client
    const http = this.#httpClient;
    if (this.#scope || !http) return atOnce(db, statements, { isolationLevel: "repeatable read", accessMode: "read only" });
    return this.#sentAtOnce(http, statements, [], { isolationLevel: "RepeatableRead", readOnly: true });
  }

  /**
   * `statements`, then `along` (the position a write reads), as one transaction sent at once over the HTTP query: every
   * one's rows. Counted as atOnce counts them: each of `statements` a query, more than one a transaction.
   */
  async #sentAtOnce(
    http: HttpClient,
    statements: SQL[],
    along: SQL[],
    options: Omit<NonNullable<Parameters<HttpClient["transaction"]>[1]>, "fullResults"> = {},
  ): Promise<Rows[]> {
    const queries = [...statements, ...along].map((statement) => {
      const { sql: text, params } = dialect.sqlToQuery(statement);
      return http.query(text, params);
    });
    if (statements.length > 1) {
      this.stats.queries += statements.length - 1;
      this.stats.transactions++;
    }
    const results = await this.overHttp(() => http.transaction(queries, { ...options, fullResults: true }));
    return results.map((result) => (result as { rows: Rows }).rows);
  }

  #deferred: Array<(db: Db) => Promise<unknown>> = [];
  /** Work that must not delay the response (e.g. lastUsedAt); it runs after it, before the pool closes. */
  defer(work: (db: Db) => Promise<unknown>): void {
    this.#deferred.push(work);
  }

  /** Runs deferred work, then ends the pool; called through waitUntil once the response is out. */
  async close(): Promise<void> {
    for (const work of this.#deferred.splice(0))
      await work(this.db).catch((e) => console.error(`deferred work failed: ${errorSummary(e)}`));
    const pool = this.#pool;
    this.#pool = undefined;
    this.#db = undefined;
    this.#httpClient = undefined;
    this.#socketDb = undefined;
    if (pool) await pool.end().catch(() => {});
  }
}

/** Work outside any request (a Cron Trigger's), on a connection of its own that is closed afterwards. */
export async function withOwnDb<T>(env: DriverEnv, work: (db: Db) => Promise<T>): Promise<T> {
  const rdb = new RequestDb(env);
  try {
    return await work(rdb.db);
  } finally {
    await rdb.close();
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
