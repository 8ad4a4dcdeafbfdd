// The proxy's distance (`delayMs`): each message waits that long each way, the upgrade twice that, so every
// round trip through it costs 2 × delayMs, as a far database would. (Node code: it lives with the smoke tests,
// outside the TypeScript program, which has no Node types.)
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

/** Milliseconds to open a WebSocket through the proxy, and then for one echo round trip (through `proxy` when given). */
async function timings(delayMs, proxy, port = echoPort) {
  const own = !proxy;
  proxy ??= await startWsProxy({ delayMs });
  try {
    const started = performance.now();
    const ws = new WebSocket(`${proxy.url}/v1?address=127.0.0.1:${port}`);
    await new Promise((r, j) => ws.once("open", r).once("error", j));
    const opened = performance.now();
    const reply = new Promise((r) => ws.once("message", (data) => r(String(data))));
    ws.send("ping");
    expect(await reply).toBe("ping");
    const echoed = performance.now();
    ws.close();
    return { upgrade: opened - started, roundTrip: echoed - opened };
  } finally {
    if (own) await proxy.close();
  }
}

describe("ws-proxy delay", () => {
  it("costs a round trip of 2 × delayMs for the upgrade and for each message and its answer", async () => {
    const far = await timings(25);
    expect(far.upgrade).toBeGreaterThanOrEqual(49);
    expect(far.roundTrip).toBeGreaterThanOrEqual(49);
  });

  it("adds nothing by default", async () => {
    const near = await timings(0);
    expect(near.upgrade + near.roundTrip).toBeLessThan(45);
  });

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

  it("takes a new distance for the connections opened after setDelay (the bench's 0 and --rtt tables in one run)", async () => {
    const proxy = await startWsProxy();
    try {
      proxy.setDelay(25);
      const far = await timings(undefined, proxy);
      expect(far.upgrade).toBeGreaterThanOrEqual(49);
      expect(far.roundTrip).toBeGreaterThanOrEqual(49);
      proxy.setDelay(0);
      const near = await timings(undefined, proxy);
      expect(near.upgrade + near.roundTrip).toBeLessThan(45);
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
