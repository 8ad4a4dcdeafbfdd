// A local stand-in for Neon's SQL-over-HTTP endpoint (`POST /sql`), which the Neon driver's HTTP query (`neon()`,
// `transaction()`) reaches through its `fetchEndpoint` setting (src/db/client.ts, the dev/test binding DB_HTTP_PROXY).
// It speaks the driver's wire format as Neon's proxy does (neondatabase/neon, proxy/src/serverless/sql_over_http.rs):
// the body is `{ query, params }`, or `{ queries: [...] }` for a transaction (its options in the Neon-Batch-* headers);
// every statement runs with the extended protocol and text parameters; the answer is `{ fields, rows, command, rowCount,
// rowAsArray }` (`{ results: [...] }` for a transaction) with each field's type id and the rows as PostgreSQL's text; a
// PostgreSQL error is a 400 with its message, SQLSTATE and the other fields the driver copies onto its error. Like Neon's
// endpoint it keeps a warm pool of connections per connection string, so no request pays a connection's start.
import http from "node:http";
import pg from "pg";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);
/** The error fields the driver copies from the answer onto its NeonDbError (Neon answers each, null when absent). */
const ERROR_FIELDS = [
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "severity",
  "where",
  "table",
  "column",
  "schema",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
];
const ISOLATION = {
  Serializable: "serializable",
  ReadUncommitted: "read uncommitted",
  ReadCommitted: "read committed",
  RepeatableRead: "repeatable read",
};
/** Every value as PostgreSQL's text, as Neon's raw text output sends it (the driver parses it by the field's type id). */
const RAW = { getTypeParser: () => (value) => value };
/** How long a connection of the pool may take to open, and how long one may stay idle (Neon's pool keeps them minutes). */
const CONNECT_TIMEOUT_MS = 5000;
const IDLE_MS = 300_000;

/**
 * Faults a test asks for from inside a statement (e.g. a task's title), as the WebSocket proxy's (scripts/lib/ws-proxy.mjs),
 * so a write's answer is lost after the write went out (test/outcome.test.ts). The statement runs to its end (a one-shot
 * statement commits, as does a transaction sent at once), then `drop-commit` and `drop-answer` cut the caller's
 * connection without an answer, and `fail-answer` answers 502 as a gateway that lost it. (The API's transactions go
 * over the WebSocket, whose proxy cuts `drop-answer`'s before its COMMIT.) Dev/test only: Neon's endpoint has none.
 */
const FAULTS = ["pm-fault:drop-commit", "pm-fault:drop-answer", "pm-fault:fail-answer"];
const faultOf = (body) => FAULTS.find((marker) => body.includes(marker))?.slice("pm-fault:".length);

const later = (ms) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : undefined);

/** A JSON parameter as PostgreSQL text, as Neon's proxy converts it (json_to_pg_text): strings as they are, arrays as array literals. */
function pgText(value, inArray = false) {
  if (value === null || value === undefined) return inArray ? "NULL" : null;
  if (Array.isArray(value)) return `{${value.map((v) => pgText(v, true)).join(",")}}`;
  if (typeof value === "string") return inArray ? JSON.stringify(value) : value;
  if (typeof value === "object") return inArray ? JSON.stringify(JSON.stringify(value)) : JSON.stringify(value);
  return String(value);
}

class RequestError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** The command tag's name and count, as Neon splits it (INSERT's tag carries an oid first). */
function commandOf(result) {
  return { command: result.command ?? "", rowCount: typeof result.rowCount === "number" ? result.rowCount : null };
}

/** One statement on `client`, answered as Neon answers it. */
async function run(client, { query, params = [], arrayMode }, defaultArrayMode) {
  if (typeof query !== "string") throw new RequestError(400, "request body must hold `query` or `queries`");
  const asArray = arrayMode ?? defaultArrayMode;
  const result = await client.query({
    text: query,
    values: params.map((p) => pgText(p)),
    rowMode: "array",
    types: RAW,
    // Neon runs every statement with the extended protocol, so a text of several statements is refused there too.
    queryMode: "extended",
  });
  const fields = result.fields.map((f) => ({
    name: f.name,
    dataTypeID: f.dataTypeID,
    tableID: f.tableID,
    columnID: f.columnID,
    dataTypeSize: f.dataTypeSize,
    dataTypeModifier: f.dataTypeModifier,
    format: "text",
  }));
  const rows = asArray ? result.rows : result.rows.map((row) => Object.fromEntries(fields.map((f, i) => [f.name, row[i]])));
  return { rowAsArray: asArray, fields, rows, ...commandOf(result) };
}

/** A transaction's BEGIN with the options of its Neon-Batch-* headers. */
function beginOf(headers) {
  const level = headers["neon-batch-isolation-level"];
  if (level !== undefined && !ISOLATION[level]) throw new RequestError(400, "invalid isolation level");
  const modes = [
    level ? `isolation level ${ISOLATION[level]}` : "",
    headers["neon-batch-read-only"] === "true" ? "read only" : "",
    headers["neon-batch-deferrable"] === "true" ? "deferrable" : "",
  ].filter(Boolean);
  return `begin ${modes.join(", ")}`.trim();
}

/** PostgreSQL's error as Neon's 400 answer. */
function errorBody(err) {
  const body = { message: err.message };
  for (const key of ERROR_FIELDS) body[key] = err[key] ?? null;
  return body;
}

/**
 * Starts the stand-in on 127.0.0.1. `delayMs` holds each request and each answer that long (the stack's distance
 * simulation, as the WebSocket proxy's: a round trip of 2 × delayMs per query, none for a connection, which the
 * runtime keeps open as it does Neon's); `setDelay(ms)` changes it for requests that arrive afterwards.
 * @returns {Promise<{ port: number, url: string, setDelay: (ms: number) => void, close: () => Promise<void> }>}
 */
export function startSqlOverHttp({ port = 0, delayMs = 0, log = () => {} } = {}) {
  let delay = delayMs;
  const pools = new Map();
  const poolFor = (connectionString) => {
    let pool = pools.get(connectionString);
    if (!pool) {
      const url = new URL(connectionString);
      // Only loopback databases: this endpoint must never become a way out of the machine.
      if (!LOOPBACK.has(url.hostname)) throw new RequestError(400, "database host not allowed");
      pool = new pg.Pool({ connectionString, max: 20, idleTimeoutMillis: IDLE_MS, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      // A connection that dies idle (a restart, a crash) leaves the pool; the next request opens another. One that dies
      // in use fails its statement (a 500) and is not put back; either way the process carries on.
      pool.on("error", (e) => log(`sql-over-http pool: ${e.message}`));
      pool.on("connect", (client) => client.on("error", (e) => log(`sql-over-http connection: ${e.message}`)));
      pools.set(connectionString, pool);
    }
    return pool;
  };

  /** The answer to a request, and the fault it asked for (undefined for none). */
  const answer = async (req, res) => {
    if (req.method !== "POST" || new URL(req.url ?? "/", "http://x").pathname !== "/sql") throw new RequestError(404, "not found");
    const connectionString = req.headers["neon-connection-string"];
    if (typeof connectionString !== "string") throw new RequestError(400, "missing Neon-Connection-String header");
    if (req.headers["neon-raw-text-output"] !== "true")
      throw new RequestError(400, "this stand-in answers raw text output only (the driver always asks for it)");
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const text = Buffer.concat(chunks).toString("utf8");
    const fault = faultOf(text);
    let payload;
    try {
      payload = JSON.parse(text);
    } catch {
      throw new RequestError(400, "request body is not valid JSON");
    }
    const arrayMode = req.headers["neon-array-mode"] === "true";
    let client;
    try {
      client = await poolFor(connectionString).connect();
    } catch (e) {
      if (e instanceof RequestError) throw e;
      throw Object.assign(new RequestError(500, `Couldn't connect to compute node: ${e.message}`), { cause: e });
    }
    // A caller that gives up (its fetch aborted) takes the connection with it: the statement may still be running.
    let broken;
    const gone = () => {
      if (!res.writableEnded) broken = new Error("client disconnected");
    };
    res.on("close", gone);
    try {
      if (!Array.isArray(payload.queries)) return { body: await run(client, payload, arrayMode), fault };
      await client.query(beginOf(req.headers));
      try {
        const results = [];
        for (const q of payload.queries) results.push(await run(client, q, arrayMode));
        await client.query("commit");
        return { body: { results }, fault };
      } catch (e) {
        await client.query("rollback").catch(() => {});
        throw e;
      }
    } catch (e) {
      // A connection that failed (not a statement that PostgreSQL refused) does not go back to the pool.
      if (!(e instanceof pg.DatabaseError) || /^(08|57P)/.test(e.code)) broken ??= e;
      throw e;
    } finally {
      res.off("close", gone);
      client.release(broken);
    }
  };

  const server = http.createServer(async (req, res) => {
    const held = delay;
    await later(held);
    let status = 200;
    let body;
    let fault;
    try {
      ({ body, fault } = await answer(req, res));
    } catch (e) {
      // PostgreSQL's refusal is the caller's 400, as Neon answers it; anything else (the connection) a 500.
      const refused = e instanceof pg.DatabaseError;
      status = e instanceof RequestError ? e.status : refused ? 400 : 500;
      body = refused ? errorBody(e) : { message: e.message };
    }
    await later(held);
    if (res.destroyed) return;
    if (fault === "drop-commit" || fault === "drop-answer") return void req.socket.destroy();
    if (fault === "fail-answer") [status, body] = [502, { message: "pm-fault: the answer was lost" }];
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
    res.end(text);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const { port: p } = server.address();
      resolve({
        port: p,
        url: `http://127.0.0.1:${p}/sql`,
        setDelay: (ms) => {
          delay = ms;
        },
        close: async () => {
          server.closeAllConnections();
          await new Promise((r) => server.close(() => r()));
          await Promise.all([...pools.values()].map((p) => p.end().catch(() => {})));
          pools.clear();
        },
      });
    });
  });
}
