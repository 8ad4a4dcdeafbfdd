// The proxy's distance (`delayMs`): each message waits that long each way, the upgrade twice that, so every
// round trip through it costs 2 × delayMs, as a far database would. The proxy's waits run on a clock the test moves
// (fake timers), so the counts are exact on a loaded machine too; what the distance costs in real time is the bench's
// to measure (docs/performance.md). (Node code: it lives with the smoke tests, outside the TypeScript program, which
// has no Node types.)
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { startWsProxy } from "../../scripts/lib/ws-proxy.mjs";

let echo;
let echoPort;
beforeAll(async () => {
  echo = net.createServer((socket) => socket.pipe(socket));
  await new Promise((r) => echo.listen(0, "127.0.0.1", () => r()));
  echoPort = echo.address().port;
});
afterAll(() => new Promise((r) => echo.close(() => r())));
afterEach(() => vi.useRealTimers());

/** Real time, kept before any timer is faked: lets the sockets' I/O happen while the test's clock stands still. */
const realSetTimeout = globalThis.setTimeout;
const ioTurn = () => new Promise((r) => realSetTimeout(r, 1));

/**
 * Waits for `done` with the proxy's timers on the test's clock: the clock moves only to the next pending timer,
 * and only when one is pending, so it ends at the virtual time the proxy made the exchange wait. Returns how many
 * timers it ran.
 */
async function virtually(done) {
  let timers = 0;
  while (!(await done())) {
    if (vi.getTimerCount() > 0) {
      await vi.advanceTimersToNextTimerAsync();
      timers++;
    } else await ioTurn();
  }
  return timers;
}

/**
 * Virtual milliseconds (the test's clock) that the proxy held a WebSocket's upgrade, and then one echo round trip
 * (through `proxy` when given), and how many timers the proxy set for the two.
 */
async function timings(delayMs, proxy, port = echoPort) {
  const own = !proxy;
  proxy ??= await startWsProxy({ delayMs });
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const started = Date.now();
    const ws = new WebSocket(`${proxy.url}/v1?address=127.0.0.1:${port}`);
    let opened = false;
    ws.once("open", () => (opened = true)).once("error", (e) => expect.fail(String(e)));
    let timers = await virtually(() => opened);
    const openedAt = Date.now();
    let reply = null;
    ws.once("message", (data) => (reply = String(data)));
    ws.send("ping");
    timers += await virtually(() => reply !== null);
    expect(reply).toBe("ping");
    const echoedAt = Date.now();
    // The proxy passes the close on after its delay too: done once the echo server's end is gone, so no timer of
    // this exchange is left for the next.
    ws.terminate();
    await virtually(async () => (await new Promise((r) => echo.getConnections((_, n) => r(n)))) === 0);
    return { upgrade: openedAt - started, roundTrip: echoedAt - openedAt, timers };
  } finally {
    vi.useRealTimers();
    if (own) await proxy.close();
  }
}

describe("ws-proxy delay", () => {
  it("holds the upgrade for 2 × delayMs, and each message and its answer for 2 × delayMs", async () => {
    expect(await timings(25)).toEqual({ upgrade: 50, roundTrip: 50, timers: 3 });
  });

  it("adds nothing by default: no wait at all, the clock never moves", async () => {
    expect(await timings(0)).toEqual({ upgrade: 0, roundTrip: 0, timers: 0 });
  });

  it("takes a new distance for the connections opened after setDelay (the bench's 0 and --rtt tables in one run)", async () => {
    const proxy = await startWsProxy();
    try {
      proxy.setDelay(25);
      expect(await timings(undefined, proxy)).toEqual({ upgrade: 50, roundTrip: 50, timers: 3 });
      proxy.setDelay(0);
      expect(await timings(undefined, proxy)).toEqual({ upgrade: 0, roundTrip: 0, timers: 0 });
    } finally {
      await proxy.close();
    }
  });

  // On real timers, last: its connections' delayed closes must not land on a faked clock.
  it("keeps the order of messages", async () => {
    const proxy = await startWsProxy({ delayMs: 5 });
    try {
      const ws = new WebSocket(`${proxy.url}/v1?address=127.0.0.1:${echoPort}`);
      await new Promise((r) => ws.once("open", r));
      let got = "";
      const done = new Promise((r) =>
        ws.on("message", (data) => {
          got += String(data);
          if (got.length >= 10) r();
        }),
      );
      for (const c of "0123456789") ws.send(c);
      await done;
      expect(got).toBe("0123456789");
      ws.close();
    } finally {
      await proxy.close();
    }
  });
});

/** Whether a message sent through `proxy` to `port` comes back (false: the proxy closed the socket first). */
async function echoes(proxy, port) {
  const ws = new WebSocket(`${proxy.url}/v1?address=127.0.0.1:${port}`);
  await new Promise((r, j) => ws.once("open", r).once("error", j));
  const answer = new Promise((r) => {
    ws.once("message", () => r(true));
    ws.once("close", () => r(false));
  });
  ws.send("ping");
  const got = await answer;
  ws.close();
  return got;
}

describe("ws-proxy redirect", () => {
  it("sends the connections asked for one port to another until the redirect ends (the bench's pooled path)", async () => {
    const proxy = await startWsProxy();
    const closed = await new Promise((r) => {
      const srv = net.createServer();
      srv.listen(0, "127.0.0.1", () => {
        const { port } = srv.address();
        srv.close(() => r(port));
      });
    });
    try {
      // Nothing listens on `closed`: only the redirect to the echo server answers.
      proxy.redirect(closed, echoPort);
      expect(await echoes(proxy, closed)).toBe(true);
      proxy.redirect(closed, null);
      expect(await echoes(proxy, closed)).toBe(false);
    } finally {
      await proxy.close();
    }
  });
});
