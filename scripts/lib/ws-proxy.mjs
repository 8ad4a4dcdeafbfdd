// WebSocket-to-TCP proxy: lets the Neon serverless driver inside workerd reach the local PostgreSQL,
// exactly as it reaches Neon's own proxy in production (`/v1?address=host:port`).
import net from "node:net";
import { WebSocketServer } from "ws";

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * Faults a test asks for from inside a statement (e.g. a task's title), so it can lose a write's answer the way a
 * network does, after the write went out (test/outcome.test.ts). `drop-answer`: the message carrying it reaches the
 * server, which runs it to its end, and the client's connection is cut before any answer (inside a transaction: before
 * its COMMIT). `drop-commit`: the same at the message that commits the marked statement: itself outside a transaction,
 * else the transaction's next COMMIT. Client-to-server bytes are read only for these markers and COMMIT; of the
 * server's, only the transaction status of its ReadyForQuery.
 */
const DROP_ANSWER = Buffer.from("pm-fault:drop-answer");
const DROP_COMMIT = Buffer.from("pm-fault:drop-commit");
const COMMIT = /\bcommit\b/i;
/** ReadyForQuery: 'Z', its length (5), then the transaction status. */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5]);
const ZEROS = Buffer.from([0, 0, 0]);
/**
 * Whether the server has answered a statement in full: its CommandComplete (or ErrorResponse), then a ReadyForQuery.
 * (A ReadyForQuery alone may be the one that ends a new connection's startup, sent before the statement pipelined
 * behind it.) A message is its type, a 4-byte length (short ones start with three zero bytes) and its body.
 */
function answered(bytes) {
  const ready = bytes.lastIndexOf(READY_FOR_QUERY);
  for (let i = bytes.indexOf(ZEROS); i > 0 && i < ready; i = bytes.indexOf(ZEROS, i + 1)) {
    const body = bytes.toString("latin1", i + 4, i + 12);
    if (bytes[i - 1] === 0x43 && /^(SELECT|INSERT|UPDATE|DELETE|COMMIT|ROLLBACK)/.test(body)) return true;
    if (bytes[i - 1] === 0x45 && /^S(ERROR|FATAL)/.test(body)) return true;
  }
  return false;
}

/**
 * Runs `fn` after `ms`, or at once when there is no delay. Timers of one duration fire in the order they were
 * set, so every message keeps its place in its direction.
 */
const later = (ms, fn) => (ms > 0 ? setTimeout(fn, ms) : fn());

/**
 * `delayMs` holds every message for that long in each direction, and the WebSocket upgrade for twice as long
 * (request and answer), so the loopback behaves like a Worker that far from its database: a round trip of
 * 2 × delayMs, paid again by every round trip the driver makes. The bench changes both between its tables, for
 * connections opened afterwards: `setDelay(ms)`, and `redirect(from, to)`, which sends connections asked for port
 * `from` to port `to` instead (its pooled path: PgBouncer in front of the database; `to` null ends it).
 * @returns {Promise<{ port: number, url: string, close: () => Promise<void>, setDelay: (ms: number) => void, redirect: (from: number, to: number | null) => void }>}
 */
export function startWsProxy({ port = 0, delayMs = 0, log = () => {} } = {}) {
  let delay = delayMs;
  const redirects = new Map();
  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port,
    perMessageDeflate: false,
    verifyClient: (_info, accept) => later(2 * delay, () => accept(true)),
  });
  wss.on("connection", (ws, req) => {
    const delayMs = delay;
    const address = new URL(req.url ?? "/", "http://proxy").searchParams.get("address") ?? "";
    const i = address.lastIndexOf(":");
    const host = address.slice(0, i);
    const asked = Number(address.slice(i + 1));
    const targetPort = redirects.get(asked) ?? asked;
    // Only loopback targets: this proxy must never become a way out of the machine.
    if (!LOOPBACK.has(host) || !Number.isInteger(targetPort)) {
      ws.close(1008, "target not allowed");
      return;
    }
    const tcp = net.connect({ host, port: targetPort });
    tcp.setNoDelay(true);
    const pending = [];
    tcp.on("connect", () => {
      for (const chunk of pending.splice(0)) tcp.write(chunk);
    });
    const toServer = (data) => {
      if (tcp.destroyed) return;
      if (tcp.connecting) pending.push(data);
      else tcp.write(data);
    };
    // A fault asked for: `awaitingCommit` after drop-commit's marker; `cut` once the client's side is to be cut: it hears
    // nothing more (`unheard` collects what the server says instead), and is cut when the server has answered the marked
    // message in full: by then the server has run it to its end, committed or not. The server's side is only half-closed.
    let awaitingCommit = false;
    let cut = false;
    let unheard = Buffer.alloc(0);
    // The server's transaction status at its last ReadyForQuery ('I' idle, 'T' in a transaction, 'E' failed one).
    let status = "I";
    const cutNow = () => {
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.terminate();
      tcp.end();
    };
    const faultOf = (data) => {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (bytes.includes(DROP_ANSWER)) cut = true;
      else if (bytes.includes(DROP_COMMIT)) {
        if (status === "I") cut = true;
        else awaitingCommit = true;
      } else if (awaitingCommit && COMMIT.test(bytes.toString("latin1"))) cut = true;
    };
    ws.on("message", (data) => {
      if (!cut) faultOf(data);
      later(delayMs, () => toServer(data));
    });
    tcp.on("data", (chunk) => {
      const ready = chunk.lastIndexOf(READY_FOR_QUERY);
      if (ready >= 0 && ready + READY_FOR_QUERY.length < chunk.length) status = String.fromCharCode(chunk[ready + READY_FOR_QUERY.length]);
      if (cut) {
        unheard = Buffer.concat([unheard, chunk]);
        if (answered(unheard)) cutNow();
        return;
      }
      later(delayMs, () => ws.readyState === ws.OPEN && ws.send(chunk));
    });
    const end = () => {
      if (!cut) tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.terminate();
    };
    tcp.on("error", (e) => {
      log(`proxy tcp error: ${e.message}`);
      end();
    });
    // A close travels behind the messages sent before it.
    tcp.on("close", () => later(delayMs, end));
    ws.on("close", () => later(delayMs, end));
    ws.on("error", end);
  });
  return new Promise((resolve, reject) => {
    wss.once("error", reject);
    wss.once("listening", () => {
      const { port: p } = wss.address();
      resolve({
        port: p,
        url: `ws://127.0.0.1:${p}`,
        setDelay: (ms) => {
          delay = ms;
        },
        redirect: (from, to) => (to === null ? redirects.delete(from) : redirects.set(from, to)),
        close: () =>
          new Promise((r) => {
            for (const c of wss.clients) c.terminate();
            wss.close(() => r());
          }),
      });
    });
  });
}
